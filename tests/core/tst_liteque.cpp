// SPDX-License-Identifier: MIT
// liteque (Karakeep's queue.db) through the format seam: the facts of the
// fixture written by the real library (tests/data/formats/facts.json),
// the operator actions of docs/FORMATS.md#liteque with their undo, the
// allocationId compare-and-swap, and a `tasks` table that is not liteque's.
#include "formatfacts.h"

#include <QObject>
#include <QTemporaryDir>

using namespace lqtest;
using namespace lq::core;

namespace {

const QString kFixture = QStringLiteral("formats/liteque-queue.db");
/// The raw columns of one task, as the sqlite3 shell would show them.
std::vector<std::string> rawTask(const std::string& path, const std::string& id) {
    Db db(path, /*readOnly=*/true);
    const auto rows = db.rows("SELECT status, allocationId, expireAt, availableAt, numRunsLeft, "
                              "maxNumRuns, queue, payload, createdAt FROM tasks WHERE id = " +
                              id);
    return rows.empty() ? std::vector<std::string>{} : rows.front();
}

} // namespace

class TstLiteque : public QObject {
    Q_OBJECT

private slots:
    void recognisedAndOpeningChangesNothing();
    void countsAtNowMatchTheFacts();
    void queueNamesAndPerQueueCounts();
    void samplesAndOneRowsFields();
    void listingFilteringSearch();
    void capabilities();
    void releaseExpiredAndUndo();
    void releaseRefusesALiveLease();
    void retryFailedAndUndo();
    void deleteAndPruneWithUndo();
    void staleAllocationIdRefused();
    void operatorAuditsAnAction();
    void notLitequeTasksRefusedByName();
    void twoFormatsInOneFileNamed();
    void damagedLitequeSaysWhatIsMissing();
};

void TstLiteque::recognisedAndOpeningChangesNothing() {
    checkOpeningChangesNothing(kFixture, "liteque",
                               [](Queue& q) { QCOMPARE(q.info().table, std::string("tasks")); });
}

void TstLiteque::countsAtNowMatchTheFacts() {
    QTemporaryDir dir;
    auto q = openAtFactsNow(copyFixture(dir, kFixture));
    // An expired lease is the library's own stuck rule (locked_expired).
    checkCounts(*q, factsOf(kFixture));
}

void TstLiteque::queueNamesAndPerQueueCounts() {
    QTemporaryDir dir;
    auto q = openAtFactsNow(copyFixture(dir, kFixture));
    checkPerQueue(*q, factsOf(kFixture));
}

void TstLiteque::samplesAndOneRowsFields() {
    QTemporaryDir dir;
    auto q = openAtFactsNow(copyFixture(dir, kFixture));
    const QJsonObject f = factsOf(kFixture);
    checkSamples(*q, f);
    for (const QJsonValue v : f.value(QStringLiteral("samples")).toArray()) {
        const QJsonObject s = v.toObject();
        const Message m = row(*q, std::to_string(s.value(QStringLiteral("id")).toInteger()));
        QCOMPARE(fromStd(m.tokenText.value_or("")), s.value(QStringLiteral("token"))
                                                        .toObject()
                                                        .value(QStringLiteral("allocationId"))
                                                        .toString());
    }
    // Task 7 (facts: running, expired, numRunsLeft 4 of 6), every field
    // against the raw columns.
    const Message m = row(*q, "7");
    const auto raw = rawTask(q->path(), "7");
    QCOMPARE(raw.at(0), std::string("running"));
    QCOMPARE(m.statusText, raw.at(0));
    QCOMPARE(m.state, State::Locked);
    QCOMPARE(m.extraState, std::string("locked_expired"));
    QCOMPARE(m.tokenText.value_or(""), raw.at(1));
    QCOMPARE(*m.leaseExpiry, std::stoll(raw.at(2)) * kNsPerSecond);
    QCOMPARE(*m.scheduledAt, std::stoll(raw.at(3)) * 1'000'000);
    QCOMPARE(m.maxAttempts.value_or(-1), std::stoll(raw.at(5)));
    QCOMPARE(m.attempts, std::stoll(raw.at(5)) - std::stoll(raw.at(4)));
    QCOMPARE(m.queueName.value_or(""), raw.at(6));
    QCOMPARE(m.data, raw.at(7));
    QCOMPARE(*m.inTime, std::stoll(raw.at(8)) * kNsPerSecond);
    QVERIFY(m.data.rfind("{\"bookmarkId\"", 0) == 0);
    // A pending_retry task that is not due yet is SCHEDULED.
    const Message r6 = row(*q, "6");
    QCOMPARE(r6.state, State::Scheduled);
    QCOMPARE(r6.extraState, std::string("pending_retry"));
    // A kept failed task: its failure time is availableAt.
    const Message f25 = row(*q, "25");
    QCOMPARE(f25.state, State::Failed);
    QCOMPARE(f25.doneTime, f25.scheduledAt);
}

void TstLiteque::listingFilteringSearch() {
    QTemporaryDir dir;
    auto q = openAtFactsNow(copyFixture(dir, kFixture));
    const auto all = q->list({}, {}, 0, -1);
    QCOMPARE(all.size(), std::size_t(17));
    QVERIFY(std::is_sorted(all.begin(), all.end(),
                           [](const Message& a, const Message& b) { return a.rowid < b.rowid; }));
    Filter s;
    s.search = "bmuaxf9xi"; // in the payload and the idempotency key of task 30
    const auto hits = q->list(s, {}, 0, -1);
    QCOMPARE(hits.size(), std::size_t(1));
    QCOMPARE(hits.front().messageId, std::string("30"));
    s.search = "openai_queue"; // the queue name
    QCOMPARE(q->count(s), std::int64_t(3));
    // Sorted by enqueue time, descending: createdAt never increases.
    const auto byIn = q->list({}, {SortKey::InTime, true}, 0, -1);
    QVERIFY(std::is_sorted(byIn.begin(), byIn.end(), [](const Message& a, const Message& b) {
        return *a.inTime > *b.inTime;
    }));
    QCOMPARE(q->orderedRowids({}, {SortKey::Status, false}).size(), std::size_t(17));
    // A queue name the file does not have matches nothing.
    Filter none;
    none.queue = "no_such_queue";
    QCOMPARE(q->count(none), std::int64_t(0));
}

void TstLiteque::capabilities() {
    checkNamedAndOffersRowActions("liteque");
    const QueueFormat& f = *lq::core::QueueFormat::byId("liteque");
    const FormatInfo info = infoOf("liteque");
    QVERIFY(!f.whyNot(Action::MarkFailed, info).empty());
    QVERIFY(!f.whyNot(Action::Enqueue, info).empty());
    for (auto m : {Filter::Metric::Wait, Filter::Metric::Processing, Filter::Metric::Total,
                   Filter::Metric::TimeToFailure})
        QVERIFY(f.whyNoMetric(m, info).size() > 20);
    QVERIFY(f.namedQueues());
    QCOMPARE(f.extraStates().size(), std::size_t(2));
}

void TstLiteque::releaseExpiredAndUndo() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    auto q = openAtFactsNow(path);
    const auto before = rawTask(path, "7");
    const ActionResult r = q->apply(Action::Release, {targetOf(*q, "7")});
    QCOMPARE(r.applied.size(), std::size_t(1));
    QVERIFY(r.skipped.empty());
    const auto after = rawTask(path, "7");
    QCOMPARE(after.at(0), std::string("pending_retry"));
    QVERIFY(after.at(1) != before.at(1)); // a fresh allocationId
    QCOMPARE(after.at(2), std::string("NULL"));
    QCOMPARE(after.at(3), std::to_string(kFactsNow / 1'000'000)); // due now, in ms
    QCOMPARE(after.at(4), before.at(4));                          // runs left unchanged
    QCOMPARE(row(*q, "7").state, State::Ready);
    // The old worker's finalize (DELETE WHERE id AND allocationId) is now a no-op.
    {
        Db db(path);
        db.exec("DELETE FROM tasks WHERE id = 7 AND allocationId = '" + before.at(1) + "'");
    }
    QCOMPARE(rawTask(path, "7").size(), std::size_t(9));

    const ActionResult u = q->undo(Action::Release, r.applied);
    QCOMPARE(u.applied.size(), std::size_t(1));
    QCOMPARE(rawTask(path, "7"), before);
}

void TstLiteque::releaseRefusesALiveLease() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    auto q = openAtFactsNow(path);
    // Task 8's lease runs until after now; task 9 is pending.
    checkRefused(*q, Action::Release, {"8", "9"}, SkipKind::NotApplicable);
    // Delete refuses a running task too.
    const ActionResult d = q->apply(Action::Delete, {targetOf(*q, "8")});
    QVERIFY(d.applied.empty());
    QCOMPARE(rawTask(path, "8").at(0), std::string("running"));
}

void TstLiteque::retryFailedAndUndo() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    auto q = openAtFactsNow(path);
    const auto before = rawTask(path, "25");
    QCOMPARE(before.at(0), std::string("failed"));
    const ActionResult r = q->apply(Action::Retry, {targetOf(*q, "25"), targetOf(*q, "9")});
    QCOMPARE(r.applied.size(), std::size_t(1)); // 9 is pending: not applicable
    QCOMPARE(r.skipped.size(), std::size_t(1));
    const auto after = rawTask(path, "25");
    QCOMPARE(after.at(0), std::string("pending"));
    QVERIFY(after.at(1) != before.at(1));
    QCOMPARE(after.at(4), before.at(5)); // numRunsLeft = maxNumRuns
    QCOMPARE(after.at(3), std::to_string(kFactsNow / 1'000'000));
    QCOMPARE(q->counts().failed, std::int64_t(1));

    const ActionResult u = q->undo(Action::Retry, r.applied);
    QCOMPARE(u.applied.size(), std::size_t(1));
    QCOMPARE(rawTask(path, "25"), before);
    QCOMPARE(q->counts().failed, std::int64_t(2));
}

void TstLiteque::deleteAndPruneWithUndo() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    auto q = openAtFactsNow(path);
    const auto b30 = rawTask(path, "30");
    const auto b27 = rawTask(path, "27");
    const ActionResult d = q->apply(Action::Delete, {targetOf(*q, "30")});
    QCOMPARE(d.applied.size(), std::size_t(1));
    QVERIFY(rawTask(path, "30").empty());
    const ActionResult p = q->apply(Action::Prune, {targetOf(*q, "27"), targetOf(*q, "9")});
    QCOMPARE(p.applied.size(), std::size_t(1)); // only FAILED tasks are pruned
    QVERIFY(rawTask(path, "27").empty());
    QCOMPARE(q->counts().stored, std::int64_t(15));

    QCOMPARE(q->undo(Action::Delete, d.applied).applied.size(), std::size_t(1));
    QCOMPARE(q->undo(Action::Prune, p.applied).applied.size(), std::size_t(1));
    QCOMPARE(rawTask(path, "30"), b30);
    QCOMPARE(rawTask(path, "27"), b27);
    QCOMPARE(q->counts().stored, std::int64_t(17));
    Db db(path, true);
    QCOMPARE(db.rows("PRAGMA integrity_check").front().front(), std::string("ok"));
}

void TstLiteque::staleAllocationIdRefused() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    auto q = openAtFactsNow(path);
    const Target shown = targetOf(*q, "29"); // running, lease expired
    // Meanwhile the library's own dequeue takes the expired task over.
    {
        Db db(path);
        db.exec(
            "UPDATE tasks SET allocationId = 'takenover1', expireAt = 1796040600 WHERE id = 29");
    }
    const auto now29 = rawTask(path, "29");
    const ActionResult r = q->apply(Action::Release, {shown});
    QVERIFY(r.applied.empty());
    QCOMPARE(r.skipped.size(), std::size_t(1));
    QCOMPARE(r.skipped.front().kind, SkipKind::Changed);
    QVERIFY2(contains(r.skipped.front().reason, "allocationId"), r.skipped.front().reason.c_str());
    QCOMPARE(rawTask(path, "29"), now29);

    // An undo whose row moved on is refused the same way.
    const ActionResult ok = q->apply(Action::Release, {targetOf(*q, "7")});
    QCOMPARE(ok.applied.size(), std::size_t(1));
    {
        Db db(path);
        db.exec("UPDATE tasks SET status = 'running', allocationId = 'worker2', expireAt = "
                "1796040600 WHERE id = 7");
    }
    const ActionResult u = q->undo(Action::Release, ok.applied);
    QVERIFY(u.applied.empty());
    QCOMPARE(rawTask(path, "7").at(1), std::string("worker2"));
}

void TstLiteque::operatorAuditsAnAction() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    auto q = openAtFactsNow(path);
    const auto b25 = rawTask(path, "25");
    checkOperatorRetriesFailedAndUndoes(*q, dir, "tst_liteque", 2);
    QCOMPARE(rawTask(path, "25"), b25);
}

void TstLiteque::notLitequeTasksRefusedByName() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, QStringLiteral("formats/not-liteque-tasks.sqlite3"));
    const QByteArray before = sha256(path);
    LQ_EXPECT_ERROR(Queue::open(path), ErrorKind::NotAQueue, "tasks");
    LQ_EXPECT_ERROR(Queue::open(path), ErrorKind::NotAQueue, path);
    QCOMPARE(sha256(path), before);
}

void TstLiteque::twoFormatsInOneFileNamed() {
    checkTwoFormatsInOneFileNamed(kFixture, "liteque");
}

void TstLiteque::damagedLitequeSaysWhatIsMissing() {
    checkDamagedSaysWhatIsMissing(
        kFixture,
        {"DROP INDEX tasks_allocation_id_idx", "ALTER TABLE tasks DROP COLUMN allocationId"},
        "allocationId");
}

QTEST_GUILESS_MAIN(TstLiteque)
#include "tst_liteque.moc"
