// SPDX-License-Identifier: MIT
#pragma once

// runAsync(): the one way lqui runs blocking work (every lqcore call) off
// the UI thread. The work runs on `pool` (workPool() by default) and
// `done` runs on the UI thread with the result, unless `context` died in
// the meantime (the watcher is its child, so it dies with it).

#include <QFutureWatcher>
#include <QObject>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrentRun>
#include <memory>
#include <type_traits>
#include <utility>

namespace lq::ui {

/// Lowers the calling worker thread's CPU priority once (Linux: nice 10 for
/// this thread; threads it starts inherit it). On a 2-core machine a scan on
/// two threads would otherwise keep the UI thread waiting for a core; with
/// the workers niced the scheduler runs the UI thread as soon as it wakes.
void useBackgroundPriority();

/// Gives the calling thread (the UI thread) a short scheduler slice
/// (Linux 6.12+: EEVDF's custom slice, 0.3 ms). A thread with a shorter
/// slice than the running one preempts it when it wakes, so an input or a
/// timer no longer waits out a niced worker's slice (up to a few ms each
/// wake-up on a 2-core machine with scans on both cores). Its share of the
/// CPU is unchanged. No-op elsewhere.
void useInteractiveSlice();

/// Starts all of `pool`'s threads now, at background priority, and keeps
/// them: call it where a pool of ours is made.
void startBackgroundThreads(QThreadPool& pool);

/// The pool lqui's blocking work runs on by default: its own, never Qt's
/// global one (see runasync.cpp).
QThreadPool* workPool();

/// Drops `owned` on a background thread of its own (one, at background
/// priority), not on the caller's: for the last reference to something
/// large, whose freeing is itself a stall (an 80 MB ordering of ten million
/// rows takes 10-50 ms to unmap). Never queued behind a scan.
void releaseOffThread(std::shared_ptr<const void> owned);

template <class Work, class Done>
void runAsync(QObject* context, QThreadPool* pool, Work&& work, Done&& done) {
    using R = std::invoke_result_t<Work>;
    auto* watcher = new QFutureWatcher<R>(context);
    QObject::connect(watcher, &QFutureWatcher<R>::finished, context,
                     [watcher, done = std::forward<Done>(done)]() mutable {
                         watcher->deleteLater();
                         if (watcher->future().isCanceled()) {
                             return;
                         }
                         if constexpr (std::is_void_v<R>) {
                             done();
                         } else {
                             // Moved out, not copied: a result can be a
                             // million-row ordering.
                             done(watcher->future().takeResult());
                         }
                     });
    watcher->setFuture(
        QtConcurrent::run(pool ? pool : workPool(), [work = std::forward<Work>(work)]() mutable {
            useBackgroundPriority();
            return work();
        }));
}

template <class Work, class Done> void runAsync(QObject* context, Work&& work, Done&& done) {
    runAsync(context, nullptr, std::forward<Work>(work), std::forward<Done>(done));
}

} // namespace lq::ui
