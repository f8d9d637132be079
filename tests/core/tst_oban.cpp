// SPDX-License-Identifier: MIT
// Oban Lite (docs/FORMATS.md#oban-lite) through the format seam: the facts of its
// fixture (tests/data/formats/facts.json), Oban's own retry, the Lifeline's
// rescue, delete and prune with their undo, the claim compare-and-swap, and
// errors appended double-encoded by the Lite engine.
#include "core/formats/queueformat.h"
#include "core/operator.h"
#include "jobtable_facts.h"

#include <QObject>

using namespace lqtest;
using namespace lqtest::jobtable;
using namespace lq::core;

namespace {

const QString kFixture = QStringLiteral("formats/oban-lite.sqlite3");
const std::string kTable = "oban_jobs";

QJsonObject obanFacts() {
    return factsOf(kFixture);
}

/// Named columns of one job (NULL -> "NULL").
std::vector<std::string> cols(const std::string& path, const std::string& id,
                              const std::string& which) {
    Db db(path, true);
    const auto rows = db.rows("SELECT " + which + " FROM oban_jobs WHERE id = " + id);
    return rows.empty() ? std::vector<std::string>{} : rows.front();
}

} // namespace

class TstOban : public QObject {
    Q_OBJECT

private slots:
    void recognisedAndOpeningChangesNothing() { checkOpeningChangesNothing(kFixture, "oban-lite"); }
    void countsAtNowMatchTheFacts() {
        QTemporaryDir dir;
        auto q = openAtFactsNow(copyFixture(dir, kFixture));
        checkCounts(*q, obanFacts(), FactsExtras::ZerosLeftOut);
        // A retryable job already due stays retryable (not staged yet), in no
        // canonical count; a due `scheduled` one is READY.
        QCOMPARE(row(*q, "18").extraState, std::string("retryable"));
        QCOMPARE(row(*q, "18").state, State::Unknown);
    }
    void queueNamesAndPerQueueCounts() {
        QTemporaryDir dir;
        auto q = openAtFactsNow(copyFixture(dir, kFixture));
        checkPerQueue(*q, obanFacts());
    }
    void samplesAndFields() {
        QTemporaryDir dir;
        auto q = openAtFactsNow(copyFixture(dir, kFixture));
        checkSamples(*q, obanFacts());
        checkSampleTokens(*q, obanFacts());
        // Job 9: discarded after 3 attempts; its errors are JSON strings that
        // hold the encoded object (the Lite engine's json_insert).
        const Message m = row(*q, "9");
        const auto raw = cols(q->path(), "9", "worker, args, max_attempts, priority, errors");
        QCOMPARE(m.jobName.value_or(""), raw.at(0));
        QCOMPARE(m.data, raw.at(1));
        QCOMPARE(m.maxAttempts.value_or(-1), std::stoll(raw.at(2)));
        QCOMPARE(m.priority.value_or(-1), std::stoll(raw.at(3)));
        QVERIFY(raw.at(4).rfind("[\"{\\\"", 0) == 0); // double encoded as stored
        QVERIFY(m.lastError);
        QVERIFY2(m.lastError->find("** (File.Error) could not read file") != std::string::npos,
                 m.lastError->c_str());
        QVERIFY(m.lastError->find("lib/oban/queue/executor.ex") != std::string::npos);
        QCOMPARE(m.state, State::Failed);
        QVERIFY(m.doneTime && m.lockTime && m.inTime);
        QVERIFY(*m.doneTime > *m.lockTime);
        // Timing: every metric is stored.
        const QueueFormat& f = QueueFormat::of(q->info());
        for (auto metric : {Filter::Metric::Wait, Filter::Metric::Processing, Filter::Metric::Total,
                            Filter::Metric::TimeToFailure})
            QVERIFY(f.whyNoMetric(metric, q->info()).empty());
        QCOMPARE(q->stats().processing.count, std::int64_t(8)); // the completed jobs
        // Search: ids, worker names, args.
        Filter s;
        s.search = "Thumbnail";
        QVERIFY(q->count(s) > 0);
        for (const Message& hit : q->list(s, {}, 0, -1))
            QVERIFY(hit.jobName->find("Thumbnail") != std::string::npos);
        s.search = "\"upload_id\":503";
        QCOMPARE(q->count(s), std::int64_t(1));
    }
    void capabilities() {
        checkNamedAndOffersRowActions("oban-lite");
        const QueueFormat& f = *lq::core::QueueFormat::byId("oban-lite");
        const FormatInfo info = infoOf("oban-lite");
        QVERIFY(f.offers(Action::Prune, info));
        for (Action a : {Action::MarkFailed, Action::Enqueue, Action::Reschedule,
                         Action::RetryExpired, Action::Upgrade})
            QVERIFY(f.whyNot(a, info).size() > 20);
        QVERIFY(f.namedQueues());
        QVERIFY(f.keepsHistory());
    }
    void retryDiscardedAndUndo() {
        QTemporaryDir dir;
        const std::string path = copyFixture(dir, kFixture);
        auto q = openAtFactsNow(path);
        const auto before = rawJob(path, kTable, "9");
        // 9 discarded, 14 scheduled (run now), 20 available (refused), 5 executing (refused).
        const ActionResult r = q->apply(Action::Retry, {targetOf(*q, "9"), targetOf(*q, "14"),
                                                        targetOf(*q, "20"), targetOf(*q, "5")});
        QCOMPARE(r.applied.size(), std::size_t(2));
        QCOMPARE(r.skipped.size(), std::size_t(2));
        for (const auto& s : r.skipped)
            QCOMPARE(s.kind, SkipKind::NotApplicable);
        const auto after = cols(path, "9",
                                "state, max_attempts, attempt, scheduled_at, discarded_at, "
                                "completed_at, cancelled_at, errors");
        QCOMPARE(after.at(0), std::string("available"));
        QCOMPARE(after.at(1), std::string("4")); // max(max_attempts, attempt + 1)
        QCOMPARE(after.at(2), std::string("3")); // attempt kept
        QCOMPARE(after.at(3), std::string("2026-11-30T12:00:00.000000Z")); // Ecto's usec
        QCOMPARE(after.at(4), std::string("NULL"));
        QVERIFY(after.at(7).size() > 100); // errors kept
        QCOMPARE(row(*q, "9").state, State::Ready);
        QCOMPARE(row(*q, "14").state, State::Ready);
        const ActionResult u = q->undo(Action::Retry, r.applied);
        QCOMPARE(u.applied.size(), std::size_t(2));
        QCOMPARE(rawJob(path, kTable, "9"), before); // byte for byte
        checkCounts(*q, obanFacts(), FactsExtras::ZerosLeftOut);
    }
    void releaseFollowsTheLifeline() {
        QTemporaryDir dir;
        const std::string path = copyFixture(dir, kFixture);
        auto q = openAtFactsNow(path);
        const auto before = rawJob(path, kTable, "12");
        // 12 executing for 90 min: past rescue_after. 5 and 17: live.
        const ActionResult r =
            q->apply(Action::Release, {targetOf(*q, "12"), targetOf(*q, "5"), targetOf(*q, "17")});
        QCOMPARE(r.applied.size(), std::size_t(1));
        QCOMPARE(r.skipped.size(), std::size_t(2));
        for (const auto& s : r.skipped) {
            QCOMPARE(s.kind, SkipKind::NotApplicable);
            QVERIFY(s.reason.find("live") != std::string::npos);
        }
        QCOMPARE(cols(path, "12", "state, attempt").at(0), std::string("available"));
        QCOMPARE(cols(path, "5", "state").at(0), std::string("executing"));
        QCOMPARE(q->counts().stuck, std::int64_t(0));
        const ActionResult u = q->undo(Action::Release, r.applied);
        QCOMPARE(u.applied.size(), std::size_t(1));
        QCOMPARE(rawJob(path, kTable, "12"), before);
        // At its last attempt, the Lifeline discards instead.
        {
            Db db(path);
            db.exec("UPDATE oban_jobs SET max_attempts = 1 WHERE id = 12");
        }
        const ActionResult d = q->apply(Action::Release, {targetOf(*q, "12")});
        QCOMPARE(d.applied.size(), std::size_t(1));
        const auto disc = cols(path, "12", "state, discarded_at");
        QCOMPARE(disc.at(0), std::string("discarded"));
        QCOMPARE(disc.at(1), std::string("2026-11-30T12:00:00.000000Z"));
    }
    void deleteAndPruneWithUndo() {
        QTemporaryDir dir;
        const std::string path = copyFixture(dir, kFixture);
        auto q = openAtFactsNow(path);
        const auto b10 = rawJob(path, kTable, "10");
        const auto b7 = rawJob(path, kTable, "7");
        const ActionResult d = q->apply(Action::Delete, {targetOf(*q, "10"), targetOf(*q, "5")});
        QCOMPARE(d.applied.size(), std::size_t(1)); // 5 is executing: never deleted
        QVERIFY(rawJob(path, kTable, "10").empty());
        QCOMPARE(cols(path, "5", "state").at(0), std::string("executing"));
        const ActionResult p = q->apply(Action::Prune, {targetOf(*q, "7"), targetOf(*q, "20")});
        QCOMPARE(p.applied.size(), std::size_t(1)); // 20 is available: not finished
        QVERIFY(rawJob(path, kTable, "7").empty());
        QCOMPARE(q->counts().stored, std::int64_t(21));
        QCOMPARE(q->undo(Action::Prune, p.applied).applied.size(), std::size_t(1));
        QCOMPARE(q->undo(Action::Delete, d.applied).applied.size(), std::size_t(1));
        QCOMPARE(rawJob(path, kTable, "10"), b10);
        QCOMPARE(rawJob(path, kTable, "7"), b7);
        checkCounts(*q, obanFacts(), FactsExtras::ZerosLeftOut);
    }
    void pruneByAgeThroughTheOperator() {
        QTemporaryDir dir;
        const std::string path = copyFixture(dir, kFixture);
        auto q = openAtFactsNow(path);
        Operator op(*q, "test");
        // Finished more than 2 h before now, failed kept: completed and, as
        // Oban's Pruner prunes them too, cancelled jobs before 10:00.
        const Plan plan = op.planPrune(false, std::chrono::hours(2), kFactsNow);
        Db db(path, true);
        const auto want = db.rows("SELECT count(*) FROM oban_jobs WHERE (state = 'completed' AND "
                                  "completed_at < '2026-11-30T10:00:00Z') OR (state = 'cancelled' "
                                  "AND cancelled_at < '2026-11-30T10:00:00Z')");
        QCOMPARE(std::to_string(plan.targets.size()), want.at(0).at(0));
        QVERIFY(!plan.targets.empty());
    }
    void staleClaimRefused() {
        QTemporaryDir dir;
        auto q = openAtFactsNow(copyFixture(dir, kFixture));
        // A worker claimed job 12 again since it was shown.
        checkStaleTokenRefused(
            *q, kTable, "12", Action::Release,
            "attempt = attempt + 1, attempted_at = '2026-11-30T11:59:59.000001Z'");
        // Oban Web retried job 9 since it was shown.
        checkStaleTokenRefused(*q, kTable, "9", Action::Delete,
                               "state = 'available', discarded_at = NULL");
    }
    void actionsNotOfferedAreRefused() {
        QTemporaryDir dir;
        auto q = openAtFactsNow(copyFixture(dir, kFixture));
        const ActionResult r = q->apply(Action::MarkFailed, {targetOf(*q, "20")});
        QVERIFY(r.applied.empty());
        QCOMPARE(r.skipped.size(), std::size_t(1));
        QVERIFY(r.skipped.front().reason.find("not offered") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TstOban)
#include "tst_oban.moc"
