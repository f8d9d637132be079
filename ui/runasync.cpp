// SPDX-License-Identifier: MIT
#include "ui/runasync.h"

#ifdef __linux__
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#endif

#include <algorithm>
#include <latch>
#include <memory>

namespace lq::ui {

namespace {

#ifdef __linux__
/// The calling thread's nice value and, for `sliceNs` > 0, its EEVDF slice
/// (Linux 6.12+; 0: the kernel's default). Where sched_setattr(2) is
/// refused, the nice value alone.
void setThreadScheduling(int nice, std::uint64_t sliceNs) {
    const auto tid = static_cast<id_t>(::syscall(SYS_gettid));
#ifdef SYS_sched_setattr
    // struct sched_attr of sched_setattr(2); glibc before 2.41 has no wrapper.
    struct Attr {
        std::uint32_t size;
        std::uint32_t policy;
        std::uint64_t flags;
        std::int32_t nice;
        std::uint32_t priority;
        std::uint64_t runtime, deadline, period;
    };
    Attr a{};
    a.size = sizeof a;
    a.policy = SCHED_OTHER;
    a.nice = nice;
    a.runtime = sliceNs;
    if (::syscall(SYS_sched_setattr, 0, &a, 0) == 0)
        return;
#else
    (void)sliceNs;
#endif
    // Per-thread on Linux: PRIO_PROCESS with a thread id.
    setpriority(PRIO_PROCESS, tid, nice);
}
#endif

} // namespace

void useBackgroundPriority() {
#ifdef __linux__
    thread_local bool done = false;
    if (!done) {
        done = true;
        // Nice 10, and the default slice: not the UI thread's short one,
        // which a thread it started inherits.
        setThreadScheduling(10, 0);
    }
#endif
}

void useInteractiveSlice() {
#ifdef __linux__
    setThreadScheduling(getpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid))),
                        300'000);
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
