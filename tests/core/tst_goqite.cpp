// SPDX-License-Identifier: MIT
// goqite through the format seam: the facts of the fixture
// (tests/data/formats/facts.json), goqite's own trigger accepted exactly,
// dead letters retried, deleted and pruned with undo, the (id, received,
// timeout) compare-and-swap, and opening that changes nothing.
#include "formatfacts.h"

#include <QObject>
#include <QTemporaryDir>

using namespace lqtest;
using namespace lq::core;

namespace {

const QString kFixture = QStringLiteral("formats/goqite.sqlite3");
const std::string kDead = "m_b3ee8a40d042cc7f63930a381dc265f2";     // received 3
const std::string kInFlight = "m_05a6bb34ef7dcca23f712b26a62b040d"; // lease until 12:25
const std::string kReady = "m_74e35ec7009f44a7ad65680074fa9486";
const std::string kDelayed = "m_068014ea88bc2182f4d397c4ea3f26b8"; // received 0, due 13:05
const std::string kNowText = "2026-11-30T12:00:00.000Z";

std::vector<std::string> rawMsg(const std::string& path, const std::string& id) {
    Db db(path, /*readOnly=*/true);
    const auto rows = db.rows("SELECT received, timeout, created, queue, hex(body), priority "
                              "FROM goqite WHERE id = '" +
                              id + "'");
    return rows.empty() ? std::vector<std::string>{} : rows.front();
}

} // namespace

class TstGoqite : public QObject {
    Q_OBJECT

private slots:
    void recognisedAndOpeningChangesNothing();
    void countsAndQueuesMatchTheFacts();
    void samplesTokensAndFields();
    void capabilities();
    void retryDeadLetterAndUndo();
    void inFlightRefused();
    void runDelayedNowAndUndo();
    void deleteAndPruneWithUndo();
    void staleTokenRefused();
    void foreignTriggerMakesItReadOnly();
};

void TstGoqite::recognisedAndOpeningChangesNothing() {
    // goqite's own trigger does not make the file read-only.
    checkOpeningChangesNothing(kFixture, "goqite");
}

void TstGoqite::countsAndQueuesMatchTheFacts() {
    QTemporaryDir dir;
    auto q = openAtFactsNow(copyFixture(dir, kFixture));
    const QJsonObject f = factsOf(kFixture);
    checkCounts(*q, f);
    checkPerQueue(*q, f);
}

void TstGoqite::samplesTokensAndFields() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    auto q = openAtFactsNow(path);
    const QJsonObject f = factsOf(kFixture);
    checkSamples(*q, f);
    for (const QJsonValue v : f.value(QStringLiteral("samples")).toArray()) {
        const QJsonObject tok = v.toObject().value(QStringLiteral("token")).toObject();
        const auto m = q->get(toStd(tok.value(QStringLiteral("id")).toString()));
        QCOMPARE(m->attempts, tok.value(QStringLiteral("received")).toInteger());
        QCOMPARE(fromStd(m->tokenText.value_or("")),
                 tok.value(QStringLiteral("timeout")).toString());
    }
    const Message m = *q->get(kInFlight);
    const auto raw = rawMsg(path, kInFlight);
    QCOMPARE(m.state, State::Locked);
    QVERIFY(m.dataIsBlob);
    QCOMPARE(QByteArray::fromStdString(m.data).toHex().toUpper().toStdString(), raw.at(4));
    QCOMPARE(m.maxAttempts.value_or(0), std::int64_t(3));
    // 2026-11-30T12:25:00.132Z
    QCOMPARE(*m.leaseExpiry, kFactsNow + 25LL * 60 * kNsPerSecond + 132'000'000);
    QCOMPARE(m.priority.value_or(-1), std::stoll(raw.at(5)));
    QCOMPARE(q->get(kDead)->extraState, std::string("dead_letter"));
    Filter s;
    s.search = "hook-later";
    QCOMPARE(q->count(s), std::int64_t(2));
}

void TstGoqite::capabilities() {
    checkNamedAndOffersRowActions(Format::Goqite, "goqite");
    const QueueFormat& f = QueueFormat::of(Format::Goqite);
    const FormatInfo info = infoOf(Format::Goqite);
    QVERIFY(!f.whyNot(Action::Release, info).empty());
    QVERIFY(!f.whyNot(Action::MarkFailed, info).empty());
    QVERIFY(f.whyNoMetric(Filter::Metric::Wait, info).size() > 20);
}

void TstGoqite::retryDeadLetterAndUndo() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    auto q = openAtFactsNow(path);
    const auto before = rawMsg(path, kDead);
    const ActionResult r = q->apply(Action::Retry, {targetOf(*q, kDead), targetOf(*q, kReady)});
    QCOMPARE(r.applied.size(), std::size_t(1));
    QCOMPARE(r.skipped.size(), std::size_t(1));
    const auto after = rawMsg(path, kDead);
    QCOMPARE(after.at(0), std::string("0"));
    QCOMPARE(after.at(1), kNowText); // exactly goqite's time format
    QCOMPARE(q->get(kDead)->state, State::Ready);
    QCOMPARE(q->undo(Action::Retry, r.applied).applied.size(), std::size_t(1));
    QCOMPARE(rawMsg(path, kDead), before);
}

void TstGoqite::inFlightRefused() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    auto q = openAtFactsNow(path);
    const auto before = rawMsg(path, kInFlight);
    for (Action a : {Action::Retry, Action::Delete, Action::Reschedule, Action::Release}) {
        const ActionResult r = q->apply(a, {targetOf(*q, kInFlight)});
        QVERIFY(r.applied.empty());
        QCOMPARE(r.skipped.front().kind, SkipKind::NotApplicable);
    }
    QCOMPARE(rawMsg(path, kInFlight), before);
}

void TstGoqite::runDelayedNowAndUndo() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    auto q = openAtFactsNow(path);
    const auto before = rawMsg(path, kDelayed);
    const ActionResult r = q->apply(Action::Reschedule, {targetOf(*q, kDelayed)});
    QCOMPARE(r.applied.size(), std::size_t(1));
    QCOMPARE(rawMsg(path, kDelayed).at(1), kNowText);
    QCOMPARE(q->get(kDelayed)->state, State::Ready);
    QCOMPARE(q->undo(Action::Reschedule, r.applied).applied.size(), std::size_t(1));
    QCOMPARE(rawMsg(path, kDelayed), before);
}

void TstGoqite::deleteAndPruneWithUndo() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    auto q = openAtFactsNow(path);
    const auto stored = q->counts().stored;
    const auto bReady = rawMsg(path, kReady);
    const auto bDead = rawMsg(path, kDead);
    const ActionResult d = q->apply(Action::Delete, {targetOf(*q, kReady)});
    QCOMPARE(d.applied.size(), std::size_t(1));
    const ActionResult p = q->apply(Action::Prune, {targetOf(*q, kDead), targetOf(*q, kDelayed)});
    QCOMPARE(p.applied.size(), std::size_t(1)); // only dead letters are pruned
    QCOMPARE(q->counts().stored, stored - 2);
    QCOMPARE(q->undo(Action::Delete, d.applied).applied.size(), std::size_t(1));
    QCOMPARE(q->undo(Action::Prune, p.applied).applied.size(), std::size_t(1));
    QCOMPARE(rawMsg(path, kReady), bReady);
    QCOMPARE(rawMsg(path, kDead), bDead);
    QCOMPARE(q->counts().stored, stored);
}

void TstGoqite::staleTokenRefused() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    auto q = openAtFactsNow(path);
    const Target shown = targetOf(*q, kReady);
    {
        Db db(path); // goqite's own receive, meanwhile
        db.exec("UPDATE goqite SET timeout = '2026-11-30T12:00:05.000Z', received = received + 1 "
                "WHERE id = '" +
                kReady + "'");
    }
    const auto now = rawMsg(path, kReady);
    const ActionResult r = q->apply(Action::Delete, {shown});
    QVERIFY(r.applied.empty());
    QCOMPARE(r.skipped.front().kind, SkipKind::Changed);
    QCOMPARE(rawMsg(path, kReady), now);
}

void TstGoqite::foreignTriggerMakesItReadOnly() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    {
        Db db(path);
        db.exec("DROP TRIGGER goqite_updated_timestamp");
        db.exec("CREATE TRIGGER goqite_updated_timestamp AFTER UPDATE ON goqite BEGIN DELETE FROM "
                "goqite WHERE id = old.id; END");
    }
    auto q = openAtFactsNow(path);
    QVERIFY(q->readOnly());
    QVERIFY(contains(q->info().readOnlyReason, "goqite_updated_timestamp"));
}

QTEST_GUILESS_MAIN(TstGoqite)
#include "tst_goqite.moc"
