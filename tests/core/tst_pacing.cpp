// SPDX-License-Identifier: MIT
// core/pacing: how soon a watcher reads a live queue file again. The rest
// after a read is a multiple of its cost, by the file's journal mode, so
// the reads of one watcher hold a rollback-journal file (or a core) for at
// most 1/(1 + factor) of the time whatever the file's size.
#include "core/pacing.h"

#include <QTest>

#include <climits>

using namespace lq::core;

namespace {
constexpr TimeNs kMs = 1'000'000;
} // namespace

class TestPacing : public QObject {
    Q_OBJECT
private slots:
    void factorByJournalMode() {
        QCOMPARE(ReadPacing::factorFor("wal"), ReadPacing::kWalFactor);
        QCOMPARE(ReadPacing::factorFor("delete"), ReadPacing::kRollbackFactor);
        QCOMPARE(ReadPacing::factorFor("truncate"), ReadPacing::kRollbackFactor);
        QCOMPARE(ReadPacing::factorFor("persist"), ReadPacing::kRollbackFactor);
        // Not known (a remote queue before its info arrives): the careful one.
        QCOMPARE(ReadPacing::factorFor(""), ReadPacing::kRollbackFactor);
        QVERIFY(ReadPacing::kRollbackFactor > ReadPacing::kWalFactor);
    }

    void restIsAMultipleOfTheCost() {
        QCOMPARE(ReadPacing::restAfter(5 * kMs, 100), 500 * kMs);
        QCOMPARE(ReadPacing::restAfter(5 * kMs, 10, 100 * kMs), 100 * kMs);     // at least min
        QCOMPARE(ReadPacing::restAfter(5 * kMs, 100, 0, 200 * kMs), 200 * kMs); // at most max
        QCOMPARE(ReadPacing::restAfter(-3, 100), TimeNs(0));
        QCOMPARE(ReadPacing::restAfter(INT64_MAX / 2, 100), INT64_MAX); // no overflow
    }

    void aPacerWaitsOutTheRest() {
        ReadPacer p(100);
        QCOMPARE(p.waitAt(1'000 * kMs), TimeNs(0)); // nothing read yet
        p.ran(1'000 * kMs, 1'005 * kMs);            // a 5 ms read
        QCOMPARE(p.lastCostNs(), 5 * kMs);
        QCOMPARE(p.waitAt(1'005 * kMs), 500 * kMs);
        QCOMPARE(p.waitAt(1'205 * kMs), 300 * kMs);
        QCOMPARE(p.waitAt(1'505 * kMs), TimeNs(0));
        QCOMPARE(p.waitAt(9'000 * kMs), TimeNs(0));
        // A cheap read (nothing changed) rests little.
        p.ran(9'000 * kMs, 9'000 * kMs + 10'000);
        QCOMPARE(p.waitAt(9'000 * kMs + 10'000), 1 * kMs);
        // WAL mode rests a tenth as long.
        p.setFactor(ReadPacing::kWalFactor);
        p.ran(10'000 * kMs, 10'005 * kMs);
        QCOMPARE(p.waitAt(10'005 * kMs), 50 * kMs);
        p.reset();
        QCOMPARE(p.waitAt(10'005 * kMs), TimeNs(0));
    }

    void aCappedPacerNeverRestsLongerThanItsCap() {
        ReadPacer p(100, 2'000 * kMs);
        p.ran(0 + kMs, 1'001 * kMs); // a 1 s read: 100 s, capped at 2 s
        QCOMPARE(p.waitAt(1'001 * kMs), 2'000 * kMs);
    }
};

QTEST_APPLESS_MAIN(TestPacing)
#include "tst_pacing.moc"
