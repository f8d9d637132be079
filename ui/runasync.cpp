// SPDX-License-Identifier: MIT
#include "ui/runasync.h"

#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include <algorithm>
#include <latch>
#include <memory>

namespace lq::ui {

void useBackgroundPriority() {
#ifdef __linux__
    thread_local bool done = false;
    if (!done) {
        done = true;
        // Per-thread on Linux: PRIO_PROCESS with a thread id.
        setpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)), 10);
    }
#endif
}

void startBackgroundThreads(QThreadPool& pool) {
    // Started now, when the pool is made (with the window), not at the first
    // task: a thread inherits its creator's priority, so one born from the
    // UI thread to run an open's first scan ran that scan at nice 0 until
    // the kernel's next tick after its renice, with the UI thread waiting
    // for the core (1-4 ms in an open, seen with perf sched). Kept for good.
    pool.setExpiryTimeout(-1);
    const int n = pool.maxThreadCount();
    // Each waits until all are up, so the pool makes n threads, not one.
    auto started = std::make_shared<std::latch>(n);
    for (int i = 0; i < n; ++i) {
        pool.start([started] {
            useBackgroundPriority();
            started->arrive_and_wait();
        });
    }
}

QThreadPool* workPool() {
    // Never Qt's global pool: QtGui 6.4 splits large raster fills and image
    // conversions into tasks on QThreadPool::globalInstance() and the UI
    // thread waits for them, so a scan of ours holding a global thread made
    // a chart's paint wait 150-250 ms for it, with 1 ms on a core.
    static QThreadPool* pool = [] {
        auto* p = new QThreadPool; // lives as long as the process's work
        p->setMaxThreadCount(std::max(2, QThread::idealThreadCount()));
        p->setObjectName(QStringLiteral("lq work"));
        startBackgroundThreads(*p);
        return p;
    }();
    return pool;
}

void releaseOffThread(std::shared_ptr<const void> owned) {
    if (!owned)
        return;
    static QThreadPool* pool = [] {
        auto* p = new QThreadPool; // lives as long as the process
        p->setMaxThreadCount(1);
        p->setObjectName(QStringLiteral("lq release"));
        startBackgroundThreads(*p);
        return p;
    }();
    pool->start([owned = std::move(owned)]() mutable { owned.reset(); });
}

} // namespace lq::ui
