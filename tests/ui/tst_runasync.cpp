// SPDX-License-Identifier: MIT
// runAsync's work leaves Qt's global thread pool to Qt: QtGui 6.4 runs parts
// of large raster fills there and the UI thread waits for them.
#include "ui/runasync.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QScopeGuard>
#include <QSemaphore>
#include <QTest>

#include <algorithm>
#include <atomic>

class TstRunAsync : public QObject {
    Q_OBJECT
private slots:
    void busyWorkLeavesQtsPoolFree();
    void poolThreadsStartAtBackgroundPriorityBeforeAnyTask();
    void releaseOffThreadFreesOnABackgroundThread();
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

/// The nice value of each of this process's threads named `name`.
static QList<int> niceOfThreads(const QByteArray& name) {
    QList<int> out;
    const QDir tasks(QStringLiteral("/proc/self/task"));
    for (const QString& tid : tasks.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        QFile comm(tasks.filePath(tid + QStringLiteral("/comm")));
        if (!comm.open(QIODevice::ReadOnly) || comm.readAll().trimmed() != name) {
            continue;
        }
        QFile stat(tasks.filePath(tid + QStringLiteral("/stat")));
        if (!stat.open(QIODevice::ReadOnly)) {
            continue;
        }
        // After "(comm)": state is field 3, nice field 19.
        const QByteArray line = stat.readAll();
        const QList<QByteArray> fields = line.mid(line.lastIndexOf(')') + 2).split(' ');
        if (fields.size() > 16) {
            out.append(fields.at(16).toInt());
        }
    }
    return out;
}

void TstRunAsync::poolThreadsStartAtBackgroundPriorityBeforeAnyTask() {
#ifndef __linux__
    QSKIP("thread priorities are read from /proc");
#endif
    // A pool thread started at a first task inherited the UI thread's
    // priority and ran that task's scan at it until the kernel's next tick
    // after its renice, with the UI thread waiting for the core. A pool of
    // ours has its threads up, and niced, before any task comes.
    QThreadPool pool;
    pool.setObjectName(QStringLiteral("lq test pool"));
    pool.setMaxThreadCount(2);
    lq::ui::startBackgroundThreads(pool);
    // A thread takes the pool's name as it starts, a moment before its first
    // task (startBackgroundThreads' own) renices it: waited for, not read once.
    QTRY_COMPARE(niceOfThreads("lq test pool"), QList<int>({10, 10}));
    QCOMPARE(pool.expiryTimeout(), -1); // and kept
    // Work still runs, on those threads.
    QSemaphore ran;
    pool.start([&] { ran.release(); });
    QVERIFY(ran.tryAcquire(1, 5000));
    QCOMPARE(niceOfThreads("lq test pool").size(), 2);
}

void TstRunAsync::releaseOffThreadFreesOnABackgroundThread() {
    // The last reference to a large ordering is dropped on a thread of its
    // own: freeing 80 MB was a 10-50 ms stall where the UI thread did it.
    std::atomic<QThread*> freedOn{nullptr};
    {
        std::shared_ptr<int> owned(new int(7), [&](int* p) {
            freedOn = QThread::currentThread();
            delete p;
        });
        lq::ui::releaseOffThread(std::move(owned));
    }
    QTRY_VERIFY(freedOn.load() != nullptr);
    QVERIFY(freedOn.load() != QThread::currentThread());
    QVERIFY(freedOn.load() != QCoreApplication::instance()->thread());
#ifdef __linux__
    QCOMPARE(niceOfThreads("lq release"), QList<int>({10})); // background
#endif
    lq::ui::releaseOffThread(nullptr); // nothing to drop: no effect
}

QTEST_GUILESS_MAIN(TstRunAsync)
#include "tst_runasync.moc"
