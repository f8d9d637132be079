// SPDX-License-Identifier: MIT
#include "ui/heapwarmup.h"

#include <QThreadPool>

#include <cstdlib>
#include <mutex>

#if defined(__GLIBC__)
#include <malloc.h>
#include <unistd.h>
#endif

namespace lq::ui {

namespace {

// QHeaderView's bytes per section (SectionItem), with room for its list
// header and growth.
constexpr std::size_t kBytesPerRow = 12;
constexpr std::size_t kSlack = std::size_t(1) << 20;
constexpr std::size_t kLimit = std::size_t(32) << 20; // glibc's largest mmap threshold

/// Keeps allocations below kLimit on the heap, and up to kLimit free at its
/// top, so freed warm pages are reused (see heapwarmup.h).
void configureHeap() {
#if defined(__GLIBC__)
    static std::once_flag once;
    std::call_once(once, [] {
        mallopt(M_MMAP_THRESHOLD, int(kLimit));
        mallopt(M_TRIM_THRESHOLD, int(kLimit));
    });
#endif
}

/// A thread of its own: on the shared work pool the warm-up could wait behind
/// an open's scans (queue names, a document's open) until after the reset it
/// is for, whose faults then land on the UI thread again.
QThreadPool& warmupPool() {
    static QThreadPool* pool = [] {
        auto* p = new QThreadPool; // lives as long as the process
        p->setMaxThreadCount(1);
        p->setObjectName(QStringLiteral("lq warmup"));
        p->setExpiryTimeout(-1);
        return p;
    }();
    return *pool;
}

} // namespace

void waitForHeapWarmups() {
    warmupPool().waitForDone();
}

void warmHeapForRows(std::size_t rows) {
#if defined(__GLIBC__)
    const std::size_t bytes = rows * kBytesPerRow + kSlack;
    if (bytes >= kLimit || rows < 100000) {
        return; // a mapping of its own, or too small to matter
    }
    configureHeap();
    // Allocated here, on the UI thread, so it is the UI thread's heap (its
    // arena) whose pages get touched; freed by the worker into that heap.
    void* block = std::malloc(bytes);
    if (!block) {
        return;
    }
    warmupPool().start([block, bytes] {
        // Not niced as the scans are: it is short (tens of ms) and the
        // reset it prepares may already be on its way.
        const std::size_t page = std::size_t(sysconf(_SC_PAGESIZE));
        auto* p = static_cast<volatile char*>(block);
        for (std::size_t i = 0; i < bytes; i += page) {
            p[i] = 0;
        }
        std::free(block);
    });
#else
    (void)rows;
#endif
}

} // namespace lq::ui
