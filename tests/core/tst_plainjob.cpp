// SPDX-License-Identifier: MIT
// plainjob through the format seam: the facts of the fixture written by the
// real library (tests/data/formats/facts.json), the operator actions of
// docs/FORMATS.md#plainjob with their undo, the (id, status, next_run_at) guard, and
// opening that changes nothing.
#include "formatfacts.h"

#include <QObject>
#include <QTemporaryDir>

using namespace lqtest;
using namespace lq::core;

namespace {

const QString kFixture = QStringLiteral("formats/plainjob.sqlite3");

std::vector<std::string> rawJob(const std::string& path, const std::string& id) {
    Db db(path, /*readOnly=*/true);
    const auto rows = db.rows("SELECT status, next_run_at, failed_at, error, type, data, "
                              "created_at FROM plainjob_jobs WHERE id = " +
                              id);
    return rows.empty() ? std::vector<std::string>{} : rows.front();
}

} // namespace

class TstPlainjob : public QObject {
    Q_OBJECT

private slots:
    void recognisedAndOpeningChangesNothing();
    void countsAndQueuesMatchTheFacts();
    void samplesTokensAndFields();
    void capabilities();
    void releasePastTimeoutAndUndo();
    void releaseThenClaimedAgainRefusesTheStaleToken();
    void releaseRefusesALiveJob();
    void retryFailedAndUndo();
    void runScheduledNowAndUndo();
    void deleteAndPruneWithUndo();
    void staleGuardRefused();
    void operatorAuditsAnAction();
    void oldPlainjobSaysWhatIsMissing();
};

void TstPlainjob::recognisedAndOpeningChangesNothing() {
    checkOpeningChangesNothing(kFixture, "plainjob", [](Queue& q) {
        QCOMPARE(q.info().table, std::string("plainjob_jobs"));
    });
}

void TstPlainjob::countsAndQueuesMatchTheFacts() {
    QTemporaryDir dir;
    auto q = openAtFactsNow(copyFixture(dir, kFixture));
    const QJsonObject f = factsOf(kFixture);
    checkCounts(*q, f);
    checkPerQueue(*q, f);
    // The library's stuck rule: processing with next_run_at older than 30 min.
    QCOMPARE(q->counts().stuck,
             want(f.value(QStringLiteral("extra")).toObject(), "locked_expired"));
}

void TstPlainjob::samplesTokensAndFields() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    auto q = openAtFactsNow(path);
    const QJsonObject f = factsOf(kFixture);
    checkSamples(*q, f);
    for (const QJsonValue v : f.value(QStringLiteral("samples")).toArray()) {
        const QJsonObject tok = v.toObject().value(QStringLiteral("token")).toObject();
        const auto m = q->get(std::to_string(tok.value(QStringLiteral("id")).toInteger()));
        QCOMPARE(m->rawStatus, tok.value(QStringLiteral("status")).toInteger());
        QCOMPARE(*m->scheduledAt / 1'000'000, tok.value(QStringLiteral("next_run_at")).toInteger());
    }
    // Job 6 failed: every field against the raw columns.
    const Message m = *q->get("6");
    const auto raw = rawJob(path, "6");
    QCOMPARE(m.state, State::Failed);
    QCOMPARE(*m.doneTime / 1'000'000, std::stoll(raw.at(2)));
    QCOMPARE(m.lastError.value_or(""), raw.at(3));
    QVERIFY(!m.lastError->empty());
    QCOMPARE(m.jobName.value_or(""), raw.at(4));
    QCOMPARE(m.data, raw.at(5));
    QCOMPARE(*m.inTime / 1'000'000, std::stoll(raw.at(6)));
    QCOMPARE(q->get("11")->extraState, std::string("locked_expired"));
    QCOMPARE(q->get("12")->extraState, std::string());
    Filter s;
    s.search = "resize-image";
    QCOMPARE(q->count(s), std::int64_t(4));
}

void TstPlainjob::capabilities() {
    checkNamedAndOffersRowActions("plainjob");
    const QueueFormat& f = *lq::core::QueueFormat::byId("plainjob");
    const FormatInfo info = infoOf("plainjob");
    QVERIFY(!f.whyNot(Action::MarkFailed, info).empty());
    QVERIFY(!f.whyNot(Action::Enqueue, info).empty());
    for (auto m : {Filter::Metric::Wait, Filter::Metric::Processing, Filter::Metric::Total,
                   Filter::Metric::TimeToFailure})
        QVERIFY(f.whyNoMetric(m, info).size() > 20);
    QVERIFY(f.namedQueues());
}

void TstPlainjob::releasePastTimeoutAndUndo() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    auto q = openAtFactsNow(path);
    const auto before = rawJob(path, "11");
    QCOMPARE(before.at(0), std::string("1"));
    const ActionResult r = q->apply(Action::Release, {targetOf(*q, "11")});
    QCOMPARE(r.applied.size(), std::size_t(1));
    auto after = rawJob(path, "11");
    QCOMPARE(after.at(0), std::string("0"));
    // What maintenance does, but due now (see releaseThenClaimedAgain...).
    QCOMPARE(after.at(1), std::to_string(kFactsNow / 1'000'000));
    QCOMPARE(q->get("11")->state, State::Ready);
    QCOMPARE(q->undo(Action::Release, r.applied).applied.size(), std::size_t(1));
    QCOMPARE(rawJob(path, "11"), before);
}

void TstPlainjob::releaseThenClaimedAgainRefusesTheStaleToken() {
    // A released job claimed again by a worker must not look stuck, nor
    // hold the token the operator saw before the release: plainjob's own
    // maintenance keeps next_run_at, and a second release with the old
    // token then took the live worker's job (tests/stress/formats).
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    auto q = openAtFactsNow(path);
    const Target shown = targetOf(*q, "11");
    QCOMPARE(q->apply(Action::Release, {shown}).applied.size(), std::size_t(1));
    {
        Db db(path); // a live worker claims it again (getAndMarkJobAsProcessing)
        db.exec("UPDATE plainjob_jobs SET status = 1 WHERE id = 11");
    }
    const ActionResult stale = q->apply(Action::Release, {shown});
    QVERIFY(stale.applied.empty());
    const ActionResult fresh = q->apply(Action::Release, {targetOf(*q, "11")});
    QVERIFY(fresh.applied.empty());
    QCOMPARE(fresh.skipped.front().kind, SkipKind::NotApplicable);
    QCOMPARE(rawJob(path, "11").at(0), std::string("1"));
}

void TstPlainjob::releaseRefusesALiveJob() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    auto q = openAtFactsNow(path);
    checkRefused(*q, Action::Release, {"12", "9"}, SkipKind::NotApplicable);
    const ActionResult d = q->apply(Action::Delete, {targetOf(*q, "12")});
    QVERIFY(d.applied.empty());
    QCOMPARE(rawJob(path, "12").at(0), std::string("1"));
}

void TstPlainjob::retryFailedAndUndo() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    auto q = openAtFactsNow(path);
    const auto before = rawJob(path, "6");
    const ActionResult r = q->apply(Action::Retry, {targetOf(*q, "6"), targetOf(*q, "9")});
    QCOMPARE(r.applied.size(), std::size_t(1));
    QCOMPARE(r.skipped.size(), std::size_t(1));
    const auto after = rawJob(path, "6");
    QCOMPARE(after.at(0), std::string("0"));
    QCOMPARE(after.at(1), std::to_string(kFactsNow / 1'000'000));
    QCOMPARE(after.at(2), std::string("NULL"));
    QCOMPARE(after.at(3), std::string("NULL"));
    QCOMPARE(q->get("6")->state, State::Ready);
    QCOMPARE(q->undo(Action::Retry, r.applied).applied.size(), std::size_t(1));
    QCOMPARE(rawJob(path, "6"), before);
}

void TstPlainjob::runScheduledNowAndUndo() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    auto q = openAtFactsNow(path);
    const auto before = rawJob(path, "16");
    const ActionResult r = q->apply(Action::Reschedule, {targetOf(*q, "16")});
    QCOMPARE(r.applied.size(), std::size_t(1));
    QCOMPARE(rawJob(path, "16").at(1), std::to_string(kFactsNow / 1'000'000));
    QCOMPARE(q->get("16")->state, State::Ready);
    QCOMPARE(q->undo(Action::Reschedule, r.applied).applied.size(), std::size_t(1));
    QCOMPARE(rawJob(path, "16"), before);
}

void TstPlainjob::deleteAndPruneWithUndo() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    auto q = openAtFactsNow(path);
    const auto stored = q->counts().stored;
    const auto b9 = rawJob(path, "9");
    const auto b6 = rawJob(path, "6");
    const ActionResult d = q->apply(Action::Delete, {targetOf(*q, "9")});
    QCOMPARE(d.applied.size(), std::size_t(1));
    QVERIFY(rawJob(path, "9").empty());
    const ActionResult p = q->apply(Action::Prune, {targetOf(*q, "6"), targetOf(*q, "13")});
    QCOMPARE(p.applied.size(), std::size_t(1)); // 13 is READY
    QCOMPARE(q->counts().stored, stored - 2);
    QCOMPARE(q->undo(Action::Delete, d.applied).applied.size(), std::size_t(1));
    QCOMPARE(q->undo(Action::Prune, p.applied).applied.size(), std::size_t(1));
    QCOMPARE(rawJob(path, "9"), b9);
    QCOMPARE(rawJob(path, "6"), b6);
    QCOMPARE(q->counts().stored, stored);
}

void TstPlainjob::staleGuardRefused() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    auto q = openAtFactsNow(path);
    const Target shown = targetOf(*q, "9"); // READY
    {
        Db db(path); // a worker claims it meanwhile
        db.exec("UPDATE plainjob_jobs SET status = 1 WHERE id = 9");
    }
    const ActionResult r = q->apply(Action::Delete, {shown});
    QVERIFY(r.applied.empty());
    QCOMPARE(r.skipped.front().kind, SkipKind::Changed);
    QVERIFY2(contains(r.skipped.front().reason, "status"), r.skipped.front().reason.c_str());
    QCOMPARE(rawJob(path, "9").at(0), std::string("1"));
    // An undo whose row moved on is refused.
    const ActionResult ok = q->apply(Action::Retry, {targetOf(*q, "6")});
    QCOMPARE(ok.applied.size(), std::size_t(1));
    {
        Db db(path);
        db.exec("UPDATE plainjob_jobs SET status = 1 WHERE id = 6");
    }
    QVERIFY(q->undo(Action::Retry, ok.applied).applied.empty());
    QCOMPARE(rawJob(path, "6").at(0), std::string("1"));
}

void TstPlainjob::operatorAuditsAnAction() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    auto q = openAtFactsNow(path);
    const auto b6 = rawJob(path, "6");
    checkOperatorRetriesFailedAndUndoes(*q, dir, "tst_plainjob", 2);
    QCOMPARE(rawJob(path, "6"), b6);
}

void TstPlainjob::oldPlainjobSaysWhatIsMissing() {
    checkDamagedSaysWhatIsMissing(kFixture,
                                  {"DROP INDEX idx_jobs_status_type_next_run_at",
                                   "ALTER TABLE plainjob_jobs DROP COLUMN next_run_at"},
                                  "next_run_at");
}

QTEST_GUILESS_MAIN(TstPlainjob)
#include "tst_plainjob.moc"
