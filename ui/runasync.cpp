// SPDX-License-Identifier: MIT
#include "ui/runasync.h"

#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include <algorithm>

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

QThreadPool* workPool() {
    // Never Qt's global pool: QtGui 6.4 splits large raster fills and image
    // conversions into tasks on QThreadPool::globalInstance() and the UI
    // thread waits for them, so a scan of ours holding a global thread made
    // a chart's paint wait 150-250 ms for it, with 1 ms on a core.
    static QThreadPool* pool = [] {
        auto* p = new QThreadPool; // lives as long as the process's work
        p->setMaxThreadCount(std::max(2, QThread::idealThreadCount()));
        p->setObjectName(QStringLiteral("lq work"));
        return p;
    }();
    return pool;
}

} // namespace lq::ui
