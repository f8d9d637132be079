// SPDX-License-Identifier: MIT
// FileWatcher under a busy writer: a live queue's -wal changes on every
// write of every commit. After passing a change on, the watcher stops
// watching until its window ends (so neither its thread nor the UI thread
// handles every inotify event of the burst); a burst is a few changed(), the
// last write is never dropped, and a change made while it was not watching
// is passed on when it watches again.
#include "ui/filewatcher.h"

#include <QElapsedTimer>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <atomic>

using lq::ui::FileWatcher;

namespace {

void append(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::Append));
    QCOMPARE(f.write(bytes), qint64(bytes.size()));
}

} // namespace

class TstFileWatcher : public QObject {
    Q_OBJECT
private slots:
    void aBurstOfWritesIsAFewChanges();
    void aChangeWhileNotWatchingIsPassedOn();
};

void TstFileWatcher::aBurstOfWritesIsAFewChanges() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("q.sqlite3-wal"));
    append(path, "x");
    FileWatcher w;
    w.setCoalesceInterval(30);
    QSignalSpy changed(&w, &FileWatcher::changed);
    w.addPath(path);
    QTest::qWait(200); // the watch is added on its thread

    // A writer on another thread: 20,000 writes for about a second.
    std::atomic_bool done{false};
    QElapsedTimer clock;
    clock.start();
    QThread* writer = QThread::create([&] {
        QFile f(path);
        if (f.open(QIODevice::Append | QIODevice::Unbuffered)) {
            for (int i = 0; i < 20000; ++i) {
                f.write("0123456789abcdef");
                if (i % 200 == 0)
                    QThread::msleep(10);
            }
        }
        done = true;
    });
    writer->start();
    QTRY_VERIFY_WITH_TIMEOUT(done.load(), 30000);
    writer->wait();
    delete writer;
    const qint64 ms = clock.elapsed();
    const int duringBurst = int(changed.count());
    // The last write is passed on.
    QTRY_VERIFY_WITH_TIMEOUT(changed.count() > duringBurst || duringBurst > 0, 2000);
    QTest::qWait(300);
    const int total = int(changed.count());
    QVERIFY2(total >= 1, "no change passed on");
    // At most one per window (plus the one a paused change adds at resume).
    const int bound = int(ms / 30) * 2 + 4;
    QVERIFY2(total <= bound, qPrintable(QStringLiteral("%1 changes for %2 ms of writes (bound %3)")
                                            .arg(total)
                                            .arg(ms)
                                            .arg(bound)));
}

void TstFileWatcher::aChangeWhileNotWatchingIsPassedOn() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("q.sqlite3"));
    append(path, "x");
    FileWatcher w;
    w.setCoalesceInterval(1000); // a wide window to write into
    QSignalSpy changed(&w, &FileWatcher::changed);
    w.addPath(path);
    QTest::qWait(200);

    append(path, "first");
    QTest::qWait(300); // the first is being passed on: not watching now
    append(path, "second, unseen by inotify");
    QTRY_COMPARE_WITH_TIMEOUT(changed.count(), 1, 3000);
    // Watching again, the stamp that moved meanwhile is a change of its own.
    QTRY_COMPARE_WITH_TIMEOUT(changed.count(), 2, 3000);
    QTest::qWait(1500);
    QCOMPARE(changed.count(), 2); // and nothing more
}

QTEST_GUILESS_MAIN(TstFileWatcher)
#include "tst_filewatcher.moc"
