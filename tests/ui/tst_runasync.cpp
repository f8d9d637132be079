// SPDX-License-Identifier: MIT
// runAsync's work leaves Qt's global thread pool to Qt: QtGui 6.4 runs parts
// of large raster fills there and the UI thread waits for them.
#include "ui/runasync.h"

#include <QCoreApplication>
#include <QScopeGuard>
#include <QSemaphore>
#include <QTest>

#include <algorithm>
#include <atomic>

class TstRunAsync : public QObject {
    Q_OBJECT
private slots:
    void busyWorkLeavesQtsPoolFree();
};

void TstRunAsync::busyWorkLeavesQtsPoolFree() {
    QThreadPool* global = QThreadPool::globalInstance();
    const int n = std::max(global->maxThreadCount(), lq::ui::workPool()->maxThreadCount());
    QSemaphore release;
    // Released however the test ends, or the pool's threads never return.
    const auto unblock = qScopeGuard([&] { release.release(n); });
    std::atomic<int> running{0};
    int finished = 0;
    QObject context;
    for (int i = 0; i < n; ++i) {
        lq::ui::runAsync(
            &context,
            [&] {
                ++running;
                release.acquire(); // a long scan
                return 0;
            },
            [&](int) { ++finished; });
    }
    QTRY_COMPARE(running.load(), std::min(n, lq::ui::workPool()->maxThreadCount()));
    // With every worker of ours busy, a task of Qt's starts at once.
    QSemaphore ran;
    QVERIFY(global->tryStart([&] { ran.release(); }));
    QVERIFY(ran.tryAcquire(1, 5000));
    release.release(n);
    QTRY_COMPARE(finished, n);
}

QTEST_GUILESS_MAIN(TstRunAsync)
#include "tst_runasync.moc"
