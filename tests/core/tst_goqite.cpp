// SPDX-License-Identifier: MIT
// goqite through the format seam: the facts of the fixture
// (tests/data/formats/facts.json), goqite's own trigger accepted exactly,
// dead letters retried, deleted and pruned with undo, the (id, received,
// timeout) compare-and-swap, and opening that changes nothing.
#include "core/formats/backlite.h"
#include "core/formats/goqite.h"
#include "core/operator.h"
#include "core/statemodel.h"
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

std::int64_t rawCount(const std::string& path, const std::string& where) {
    Db db(path, /*readOnly=*/true);
    return std::stoll(db.rows("SELECT count(*) FROM goqite WHERE " + where).front().front());
}

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
    void maxReceivePerQueue();
    void settingsDeclared();
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
    checkNamedAndOffersRowActions("goqite");
    const QueueFormat& f = *lq::core::QueueFormat::byId("goqite");
    const FormatInfo info = infoOf("goqite");
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

// goqite's maxReceive is per queue name (goqite.New(NewOpts{Name,
// MaxReceive})): a value for one queue moves exactly that queue's dead
// letters, in the counts, the state filter, the rows and the retry guard.
void TstGoqite::maxReceivePerQueue() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    const QJsonObject f = factsOf(QStringLiteral("goqite.sqlite3"));
    const QJsonObject perQueue = f.value(QStringLiteral("per_queue")).toObject();
    const std::string lapsed = " AND timeout <= '" + kNowText + "'";
    const std::int64_t thumbsAt2 =
        rawCount(path, "queue = 'thumbnails' AND received >= 2" + lapsed);
    const std::int64_t thumbsAt3 =
        rawCount(path, "queue = 'thumbnails' AND received >= 3" + lapsed);
    QVERIFY(thumbsAt2 > thumbsAt3); // the fixture has a message received twice

    OpenOptions o;
    o.clock = fixedClock(kFactsNow);
    QVERIFY(o.settings.set(GoqiteFormat::kMaxReceiveKey, 2, "thumbnails"));
    QVERIFY(o.settings.set(GoqiteFormat::kMaxReceiveKey, 1,
                           "it's")); // a name that needs quoting in SQL
    auto q = Queue::open(path, o);
    for (const QString& name : perQueue.keys()) {
        const Counts c = q->counts(name.toStdString());
        const std::int64_t wantFailed = name == QStringLiteral("thumbnails")
                                            ? thumbsAt2
                                            : want(perQueue.value(name).toObject(), "FAILED");
        QCOMPARE(c.failed, wantFailed);
        // goqite's word for its FAILED (QueueFormat::stateWord).
        QCOMPARE(stateModel(QueueFormat::of(q->info()), c).count("dead_letter"), wantFailed);
        Filter failed;
        failed.queue = name.toStdString();
        failed.states = {State::Failed};
        QCOMPARE(q->count(failed), wantFailed);
    }
    const std::int64_t total = want(f.value(QStringLiteral("extra")).toObject(), "dead_letter");
    QCOMPARE(q->counts().failed, total - thumbsAt3 + thumbsAt2);

    // The message received twice: a dead letter at 2, retryable, and back.
    Filter twice;
    twice.queue = "thumbnails";
    twice.states = {State::Failed};
    std::string id;
    for (const Message& m : q->list(twice, {}, 0, -1))
        if (m.attempts == 2)
            id = m.messageId;
    QVERIFY(!id.empty());
    QCOMPARE(q->get(id)->maxAttempts.value_or(-1), std::int64_t(2));
    QCOMPARE(q->get(id)->extraState, std::string("dead_letter"));
    const auto before = rawMsg(path, id);
    const ActionResult r = q->apply(Action::Retry, {targetOf(*q, id)});
    QCOMPARE(r.applied.size(), std::size_t(1));
    QCOMPARE(q->undo(Action::Retry, r.applied).applied.size(), std::size_t(1));
    QCOMPARE(rawMsg(path, id), before);

    // At goqite's default the same message is not a dead letter: retry skips it.
    auto plain = openAtFactsNow(path);
    QVERIFY(plain->get(id)->state != State::Failed);
    QVERIFY(plain->apply(Action::Retry, {targetOf(*plain, id)}).applied.empty());
}

void TstGoqite::settingsDeclared() {
    const auto settings = lq::core::QueueFormat::byId("goqite")->settings();
    QCOMPARE(settings.size(), std::size_t(1));
    QCOMPARE(settings.front().key, std::string(GoqiteFormat::kMaxReceiveKey));
    QCOMPARE(settings.front().libraryDefault, GoqiteFormat::kDefaultMaxReceive);
    QVERIFY(settings.front().perQueue);
    QVERIFY(lq::core::QueueFormat::byId("litequeue-legacy")->settings().empty());

    FormatSettings s;
    QVERIFY(s.empty());
    QVERIFY(s.set(GoqiteFormat::kMaxReceiveKey, 5));
    QVERIFY(s.set(GoqiteFormat::kMaxReceiveKey, 2, "emails"));
    QVERIFY(!s.set(BackliteFormat::kReleaseAfterKey, 60, "emails")); // not per queue
    QVERIFY(!s.set("no_such_setting", 1));
    QCOMPARE(s.value(GoqiteFormat::kMaxReceiveKey, "emails"), std::int64_t(2));
    QCOMPARE(s.value(GoqiteFormat::kMaxReceiveKey, "jobs"), std::int64_t(5));
    QCOMPARE(s.entries().size(), std::size_t(2));
    QVERIFY(s.set(GoqiteFormat::kMaxReceiveKey, 0, "emails")); // back to the file-wide value
    QCOMPARE(s.value(GoqiteFormat::kMaxReceiveKey, "emails"), std::int64_t(5));
}

QTEST_GUILESS_MAIN(TstGoqite)
#include "tst_goqite.moc"
