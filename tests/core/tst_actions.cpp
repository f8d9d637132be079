// SPDX-License-Identifier: MIT
// Operator batch actions (docs/ARCHITECTURE.md#how-a-user-action-travels–3.3): compare-and-swap on
// (state, token), chunks, cancel, prune cutoffs, undo, jobs-lease actions and the audit log.

#include "testutil.h"

#include "core/audit.h"
#include "core/json.h"

#include <QTest>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <set>

using namespace lq::core;
using namespace lqtest;

namespace {

constexpr TimeNs kMixedEnd = 1741946700137482911;
constexpr TimeNs kJobsRef = TimeNs(1742126400) * kNsPerSecond;
constexpr TimeNs kSec = kNsPerSecond;

void sameMessage(const Message& a, const Message& b) {
    QCOMPARE(a.messageId, b.messageId);
    QCOMPARE(a.data, b.data);
    QCOMPARE(a.dataIsBlob, b.dataIsBlob);
    QCOMPARE(a.rawStatus, b.rawStatus);
    QCOMPARE(a.state, b.state);
    QCOMPARE(a.inTime, b.inTime);
    QCOMPARE(a.lockTime, b.lockTime);
    QCOMPARE(a.doneTime, b.doneTime);
    QCOMPARE(a.idempotencyKey, b.idempotencyKey);
    QCOMPARE(a.claimId, b.claimId);
    QCOMPARE(a.scheduledAt, b.scheduledAt);
    QCOMPARE(a.leaseExpiry, b.leaseExpiry);
    QCOMPARE(a.attempts, b.attempts);
    QCOMPARE(a.token, b.token);
}

} // namespace

class TstActions : public QObject {
    Q_OBJECT

private slots:
    void init();
    void cleanup();

    void casMatrix_data();
    void casMatrix();
    void operatorRetryFencesWorker();
    void chunking();
    void cancelBetweenChunks();
    void targetsMatchCount_data();
    void targetsMatchCount();
    void pruneCutoff();
    void libraryPruneOlderThan();
    void undo_data();
    void undo();
    void undoLegacyRetry();
    void undoPrune();
    void undoEnqueue();
    void notUndoable();
    void undoJobsLease();
    void jobsLease_data();
    void jobsLease();
    void auditLog();
    void messageJson_data();
    void messageJson();

private:
    /// A fresh 0.14 queue with one message in each of READY, LOCKED, DONE, FAILED.
    std::unique_ptr<Queue> fresh014(int ready = 1);
    std::string freshPath() const { return toStd(m_dir->filePath(QStringLiteral("q.sqlite3"))); }

    std::unique_ptr<QTemporaryDir> m_dir;
    FakeClock m_clock;
};

void TstActions::init() {
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_clock = FakeClock{};
}

void TstActions::cleanup() {
    m_dir.reset();
}

std::unique_ptr<Queue> TstActions::fresh014(int ready) {
    auto q = Queue::create(freshPath(), std::nullopt, optionsWith(m_clock.clock()));
    for (int i = 0; i < 3 + ready; ++i)
        q->put("m" + std::to_string(i));
    m_clock.advance(kSec);
    const Message d = q->pop().value();
    const Message f = q->pop().value();
    q->pop().value(); // stays LOCKED
    m_clock.advance(kSec);
    q->done(d.messageId, d.claimId);
    q->markFailed(f.messageId, f.claimId);
    m_clock.advance(kSec);
    return q;
}

void TstActions::casMatrix_data() {
    QTest::addColumn<QString>("format");
    QTest::addColumn<Action>("action");
    QTest::addColumn<State>("from");
    QTest::addColumn<int>("tokenDelta");
    QTest::addColumn<bool>("applies");
    QTest::addColumn<State>("to"); // Unknown: the row is deleted
    QTest::addColumn<QString>("reason");

    const QString stale = QStringLiteral("changed since shown");
    for (const char* fmt : {"legacy", "0.14"}) {
        const QString f = QString::fromLatin1(fmt);
        const auto row = [&](const char* what, Action a, State from, int delta, bool applies,
                             State to, const QString& reason) {
            QTest::addRow("%s: %s", fmt, what)
                << f << a << from << delta << applies << to << reason;
        };
        row("retry LOCKED", Action::Retry, State::Locked, 0, true, State::Ready, {});
        row("retry LOCKED stale", Action::Retry, State::Locked, -1, false, State::Locked, stale);
        row("retry FAILED", Action::Retry, State::Failed, 0, true, State::Ready, {});
        row("retry FAILED stale", Action::Retry, State::Failed, 1, false, State::Failed, stale);
        row("retry DONE", Action::Retry, State::Done, 0, false, State::Done, {});
        row("retry READY", Action::Retry, State::Ready, 0, false, State::Ready, {});
        row("mark failed READY", Action::MarkFailed, State::Ready, 0, true, State::Failed, {});
        row("mark failed READY stale", Action::MarkFailed, State::Ready, 1, false, State::Ready,
            stale);
        row("mark failed LOCKED", Action::MarkFailed, State::Locked, 0, true, State::Failed, {});
        row("mark failed LOCKED stale", Action::MarkFailed, State::Locked, 1, false, State::Locked,
            stale);
        row("mark failed DONE", Action::MarkFailed, State::Done, 0, false, State::Done, {});
        row("mark failed FAILED", Action::MarkFailed, State::Failed, 0, false, State::Failed, {});
        row("prune DONE", Action::Prune, State::Done, 0, true, State::Unknown, {});
        row("prune DONE stale", Action::Prune, State::Done, 1, false, State::Done, stale);
        row("prune FAILED", Action::Prune, State::Failed, 0, true, State::Unknown, {});
        row("prune READY", Action::Prune, State::Ready, 0, false, State::Ready, {});
        row("prune LOCKED", Action::Prune, State::Locked, 0, false, State::Locked, {});
    }
}

void TstActions::casMatrix() {
    QFETCH(QString, format);
    QFETCH(Action, action);
    QFETCH(State, from);
    QFETCH(int, tokenDelta);
    QFETCH(bool, applies);
    QFETCH(State, to);
    QFETCH(QString, reason);

    std::unique_ptr<Queue> q;
    if (format == QLatin1String("legacy")) {
        m_clock.set(kMixedEnd);
        q = Queue::open(copyFixture(*m_dir, QStringLiteral("litequeue-head-mixed.sqlite3")),
                        optionsWith(m_clock.clock()));
        QCOMPARE(q->info().format, lq::core::QueueFormat::byId("litequeue-legacy"));
    } else {
        q = fresh014();
    }
    const std::int64_t stored = q->storedCount();
    const Message before = q->list(stateFilter({from}), Sort{}, 0, 1).at(0);
    // The token a viewer saw: lock_time for legacy files, claim_id for 0.14.
    QCOMPARE(before.token,
             format == QLatin1String("legacy") ? before.lockTime.value_or(0) : before.claimId);
    QCOMPARE(refusalReason(action, before).empty(), applies || !reason.isEmpty());

    const TimeNs now = m_clock.now();
    const ActionResult r = q->apply(action, {Target{before.messageId, before.token + tokenDelta}});
    QCOMPARE(r.action, action);
    QCOMPARE(r.cancelled, false);
    if (applies) {
        QCOMPARE(r.applied.size(), std::size_t(1));
        QVERIFY(r.skipped.empty());
        sameMessage(r.applied[0].before, before);
        if (QTest::currentTestFailed())
            return;
        const auto after = q->get(before.messageId);
        if (to == State::Unknown) { // deleted
            QVERIFY(!after);
            QCOMPARE(q->storedCount(), stored - 1);
            return;
        }
        QVERIFY(after);
        QCOMPARE(after->state, to);
        QCOMPARE(r.applied[0].after.state, to);
        QCOMPARE(after->inTime, before.inTime);
        QCOMPARE(after->claimId, before.claimId);
        if (to == State::Ready)
            QVERIFY(!after->doneTime);
        if (to == State::Failed)
            QCOMPARE(after->doneTime, std::optional<TimeNs>(now));
        QCOMPARE(after->lockTime, before.lockTime);
    } else {
        QVERIFY(r.applied.empty());
        QCOMPARE(r.skipped.size(), std::size_t(1));
        QCOMPARE(r.skipped[0].messageId, before.messageId);
        QVERIFY(!r.skipped[0].reason.empty());
        if (!reason.isEmpty())
            QVERIFY2(contains(r.skipped[0].reason, toStd(reason)), r.skipped[0].reason.c_str());
        const auto after = q->get(before.messageId);
        QVERIFY(after);
        sameMessage(*after, before);
        QCOMPARE(q->storedCount(), stored);
    }
}

void TstActions::operatorRetryFencesWorker() {
    auto q = Queue::create(freshPath(), std::nullopt, optionsWith(m_clock.clock()));
    q->put("job");
    const Message w = q->pop().value(); // a worker holds claim 1
    const ActionResult r = q->apply(Action::Retry, {Target{w.messageId, w.claimId}});
    QCOMPARE(r.applied.size(), std::size_t(1));
    QVERIFY(!q->done(w.messageId, w.claimId)); // the stale worker cannot finish it
    const Message again = q->pop().value();
    QCOMPARE(again.messageId, w.messageId);
    QCOMPARE(again.claimId, 2);
    // And an operator who saw claim 1 cannot touch the new delivery.
    const ActionResult r2 = q->apply(Action::MarkFailed, {Target{w.messageId, 1}});
    QVERIFY(r2.applied.empty());
    QVERIFY(contains(r2.skipped.at(0).reason, "changed since shown"));
    QVERIFY(q->done(again.messageId, 2));
}

void TstActions::chunking() {
    auto q = Queue::create(freshPath(), std::nullopt, optionsWith(m_clock.clock()));
    std::vector<PutItem> items(100);
    for (std::size_t i = 0; i < items.size(); ++i)
        items[i].data = "m" + std::to_string(i);
    q->putMany(items);
    const auto targets = q->targetsFor(stateFilter({State::Ready}));
    QCOMPARE(targets.size(), std::size_t(100));

    std::vector<std::pair<std::size_t, std::size_t>> calls;
    ActionOptions o;
    o.chunkSize = 10;
    o.progress = [&](std::size_t done, std::size_t total) { calls.emplace_back(done, total); };
    const ActionResult r = q->apply(Action::MarkFailed, targets, o);
    QCOMPARE(calls.size(), std::size_t(10));
    for (std::size_t i = 0; i < calls.size(); ++i) {
        QCOMPARE(calls[i].first, (i + 1) * 10);
        QCOMPARE(calls[i].second, std::size_t(100));
    }
    QCOMPARE(r.applied.size(), std::size_t(100));
    QVERIFY(r.skipped.empty());
    QCOMPARE(r.chunksDone, 10);
    QVERIFY(!r.cancelled);
    QCOMPARE(q->failedCount(), 100);
}

void TstActions::cancelBetweenChunks() {
    auto q = Queue::create(freshPath(), std::nullopt, optionsWith(m_clock.clock()));
    std::vector<PutItem> items(100);
    for (std::size_t i = 0; i < items.size(); ++i)
        items[i].data = "m" + std::to_string(i);
    q->putMany(items);
    const auto targets = q->targetsFor(Filter{});

    std::atomic_bool cancel{false};
    int calls = 0;
    ActionOptions o;
    o.chunkSize = 10;
    o.cancel = &cancel;
    o.progress = [&](std::size_t done, std::size_t) {
        ++calls;
        if (done >= 30)
            cancel = true;
    };
    const ActionResult r = q->apply(Action::MarkFailed, targets, o);
    QVERIFY(r.cancelled);
    QCOMPARE(r.chunksDone, 3);
    QCOMPARE(calls, 3);
    QCOMPARE(r.applied.size(), std::size_t(30)); // whole chunks only
    QCOMPARE(q->failedCount(), 30);
    QCOMPARE(q->readyCount(), 70);
    // The applied rows are the first three chunks, in target order.
    for (std::size_t i = 0; i < r.applied.size(); ++i)
        QCOMPARE(r.applied[i].before.messageId, targets[i].messageId);
}

void TstActions::targetsMatchCount_data() {
    QTest::addColumn<int>("which");
    QTest::addColumn<int>("expected"); // -1: not known from the facts
    QTest::newRow("everything") << 0 << 400;
    QTest::newRow("READY") << 1 << 58;
    QTest::newRow("LOCKED") << 2 << 14;
    QTest::newRow("DONE + FAILED") << 3 << 328;
    QTest::newRow("stuck over 600 s") << 4 << 14;
    QTest::newRow("stuck over 3600 s") << 5 << 10;
    QTest::newRow("search '{'") << 6 << -1;
    QTest::newRow("older than 1 h") << 7 << -1;
    QTest::newRow("in_time window") << 8 << -1;
    QTest::newRow("done before cutoff") << 9 << -1;
    QTest::newRow("READY + search + older") << 10 << -1;
}

void TstActions::targetsMatchCount() {
    QFETCH(int, which);
    QFETCH(int, expected);
    m_clock.set(kMixedEnd);
    auto q = Queue::open(copyFixture(*m_dir, QStringLiteral("litequeue-head-mixed.sqlite3")),
                         optionsWith(m_clock.clock()));
    Filter f;
    switch (which) {
    case 1:
        f.states = {State::Ready};
        break;
    case 2:
        f.states = {State::Locked};
        break;
    case 3:
        f.states = {State::Done, State::Failed};
        break;
    case 4:
        f.stuckOnly = true;
        f.stuckAfterNs = 600 * kSec;
        break;
    case 5:
        f.stuckOnly = true;
        f.stuckAfterNs = 3600 * kSec;
        break;
    case 6:
        f.search = "{";
        break;
    case 7:
        f.olderThan = std::chrono::seconds(3600);
        break;
    case 8:
        f.inTimeFrom = kMixedEnd - 5000 * kSec;
        f.inTimeTo = kMixedEnd - 2000 * kSec;
        break;
    case 9:
        f.doneBefore = kMixedEnd - 3600 * kSec;
        break;
    case 10:
        f.states = {State::Ready};
        f.search = "a";
        f.olderThan = std::chrono::seconds(600);
        break;
    default:
        break;
    }
    const std::int64_t n = q->count(f);
    if (expected >= 0)
        QCOMPARE(n, expected);
    QVERIFY(n > 0);
    const auto targets = q->targetsFor(f);
    QCOMPARE(static_cast<std::int64_t>(targets.size()), n);
    const auto rows = q->list(f, Sort{}, 0, 100000);
    QCOMPARE(static_cast<std::int64_t>(rows.size()), n);
    QCOMPARE(static_cast<std::int64_t>(q->orderedRowids(f, Sort{}).size()), n);
    std::set<std::string> listed;
    for (const Message& m : rows)
        listed.insert(m.messageId + "/" + std::to_string(m.token));
    for (const Target& t : targets)
        QVERIFY2(listed.count(t.messageId + "/" + std::to_string(t.token)), t.messageId.c_str());
}

void TstActions::pruneCutoff() {
    m_clock.set(kMixedEnd);
    auto q = Queue::open(copyFixture(*m_dir, QStringLiteral("litequeue-head-mixed.sqlite3")),
                         optionsWith(m_clock.clock()));
    const Counts before = q->counts();
    Filter finished = stateFilter({State::Done, State::Failed});
    // The cutoff: the median done_time, fixed when the operator confirms.
    std::vector<TimeNs> doneTimes;
    for (const Message& m : q->list(finished, Sort{}, 0, 100000))
        doneTimes.push_back(m.doneTime.value());
    std::sort(doneTimes.begin(), doneTimes.end());
    const TimeNs cutoff = doneTimes[doneTimes.size() / 2];
    Filter old = finished;
    old.doneBefore = cutoff;
    const std::int64_t nOld = q->count(old);
    const std::int64_t nAll = q->count(finished);
    QCOMPARE(nOld,
             static_cast<std::int64_t>(
                 std::lower_bound(doneTimes.begin(), doneTimes.end(), cutoff) - doneTimes.begin()));

    const ActionResult r = q->apply(Action::Prune, q->targetsFor(old));
    QCOMPARE(static_cast<std::int64_t>(r.applied.size()), nOld);
    QVERIFY(r.skipped.empty());
    QCOMPARE(q->count(old), 0);
    QCOMPARE(q->count(finished), nAll - nOld);
    for (const Message& m : q->list(finished, Sort{}, 0, 100000))
        QVERIFY(*m.doneTime >= cutoff);
    const Counts after = q->counts();
    QCOMPARE(after.ready, before.ready);
    QCOMPARE(after.locked, before.locked);
    QCOMPARE(after.stored, before.stored - nOld);
}

void TstActions::libraryPruneOlderThan() {
    m_clock.set(kMixedEnd);
    auto q = Queue::open(copyFixture(*m_dir, QStringLiteral("litequeue-head-mixed.sqlite3")),
                         optionsWith(m_clock.clock()));
    Filter oldDone = stateFilter({State::Done});
    oldDone.doneBefore = kMixedEnd - 3600 * kSec;
    const std::int64_t expected = q->count(oldDone);
    const std::int64_t failed = q->failedCount();
    QVERIFY(expected > 0);
    QVERIFY(expected < q->doneCount());
    QCOMPARE(q->prune(false, std::chrono::seconds(3600)), expected);
    QCOMPARE(q->count(oldDone), 0);
    QCOMPARE(q->failedCount(), failed);
    const std::int64_t rest = q->doneCount() + q->failedCount();
    QCOMPARE(rest, 308 - expected + failed);
    QCOMPARE(q->prune(true), rest);
    QCOMPARE(q->doneCount() + q->failedCount(), 0);
}

void TstActions::undo_data() {
    QTest::addColumn<Action>("action");
    QTest::newRow("undo retry") << Action::Retry;
    QTest::newRow("undo mark failed") << Action::MarkFailed;
}

void TstActions::undo() {
    QFETCH(Action, action);
    auto q = Queue::create(freshPath(), std::nullopt, optionsWith(m_clock.clock()));
    for (int i = 0; i < 5; ++i)
        q->put("m" + std::to_string(i));
    m_clock.advance(kSec);
    if (action == Action::Retry) {
        for (int i = 0; i < 5; ++i)
            q->pop();
    }
    m_clock.advance(kSec);
    std::vector<Message> shown = allRows(*q);
    std::vector<Target> targets;
    for (const Message& m : shown)
        targets.push_back({m.messageId, m.token});
    const ActionResult r = q->apply(action, targets);
    QCOMPARE(r.applied.size(), std::size_t(5));

    // Two rows move on before the undo.
    m_clock.advance(kSec);
    std::set<std::string> movedOn;
    if (action == Action::Retry) {
        movedOn.insert(q->pop().value().messageId); // a worker claims them again
        movedOn.insert(q->pop().value().messageId);
    } else {
        for (int i = 0; i < 2; ++i) {
            const Message m = q->get(shown[static_cast<std::size_t>(i)].messageId).value();
            QCOMPARE(q->apply(Action::Retry, {Target{m.messageId, m.token}}).applied.size(),
                     std::size_t(1));
            movedOn.insert(m.messageId);
        }
    }
    m_clock.advance(kSec);
    const ActionResult u = q->undo(action, r.applied);
    QCOMPARE(u.applied.size(), std::size_t(3));
    QCOMPARE(u.skipped.size(), std::size_t(2));
    for (const SkippedRow& s : u.skipped) {
        QVERIFY2(movedOn.count(s.messageId), s.messageId.c_str());
        QVERIFY(!s.reason.empty());
    }
    for (const Message& b : shown) {
        const Message now = q->get(b.messageId).value();
        if (movedOn.count(b.messageId)) { // left as the later change made it
            QCOMPARE(now.state, action == Action::Retry ? State::Locked : State::Ready);
            if (action == Action::Retry)
                QCOMPARE(now.claimId, 2);
            continue;
        }
        // Restored to what the operator saw.
        QCOMPARE(now.state, b.state);
        QCOMPARE(now.claimId, b.claimId);
        QCOMPARE(now.lockTime, b.lockTime);
        QCOMPARE(now.doneTime, b.doneTime);
    }
    // A restored LOCKED row is the worker's again.
    if (action == Action::Retry) {
        for (const Message& b : shown)
            if (!movedOn.count(b.messageId))
                QVERIFY(q->done(b.messageId, b.claimId));
    }
}

void TstActions::undoLegacyRetry() {
    // Legacy token = lock_time: a worker's new pop moves a row on.
    m_clock.set(kMixedEnd);
    auto q = Queue::open(copyFixture(*m_dir, QStringLiteral("litequeue-head-mixed.sqlite3")),
                         optionsWith(m_clock.clock()));
    const auto shown = q->list(stateFilter({State::Locked}), Sort{}, 0, 100);
    QCOMPARE(shown.size(), std::size_t(14));
    std::vector<Target> targets;
    for (const Message& m : shown)
        targets.push_back({m.messageId, m.token});
    const ActionResult r = q->apply(Action::Retry, targets);
    QCOMPARE(r.applied.size(), std::size_t(14));
    m_clock.advance(kSec);
    // pop takes the smallest READY message_id: retried rows or older READY ones.
    std::set<std::string> shownIds;
    for (const Message& m : shown)
        shownIds.insert(m.messageId);
    std::set<std::string> movedOn;
    for (int i = 0; i < 3; ++i) {
        const Message p = q->pop().value();
        QCOMPARE(p.lockTime, std::optional<TimeNs>(m_clock.now()));
        QCOMPARE(p.token, m_clock.now());
        if (shownIds.count(p.messageId))
            movedOn.insert(p.messageId);
        m_clock.advance(1);
    }
    const ActionResult u = q->undo(Action::Retry, r.applied);
    QCOMPARE(u.applied.size(), shown.size() - movedOn.size());
    QCOMPARE(u.skipped.size(), movedOn.size());
    for (const Message& b : shown) {
        const Message now = q->get(b.messageId).value();
        if (movedOn.count(b.messageId)) {
            QVERIFY(now.lockTime != b.lockTime);
            continue;
        }
        QCOMPARE(now.state, State::Locked);
        QCOMPARE(now.lockTime, b.lockTime);
        QCOMPARE(now.token, b.token);
        QCOMPARE(now.doneTime, b.doneTime);
    }
    QCOMPARE(q->counts().locked, 14 - static_cast<std::int64_t>(movedOn.size()) + 3);
}

void TstActions::undoPrune() {
    auto q = fresh014(2);
    const Message keyed = q->put("with key", std::string("k1"));
    const Message kp = q->pop().value(); // the first READY row
    q->done(kp.messageId, kp.claimId);
    const auto shown = q->list(stateFilter({State::Done, State::Failed}), Sort{}, 0, 100);
    QCOMPARE(shown.size(), std::size_t(3));
    std::vector<Target> targets;
    for (const Message& m : shown)
        targets.push_back({m.messageId, m.token});
    const ActionResult r = q->apply(Action::Prune, targets);
    QCOMPARE(r.applied.size(), std::size_t(3));
    QCOMPARE(q->doneCount() + q->failedCount(), 0);
    const ActionResult u = q->undo(Action::Prune, r.applied);
    QCOMPARE(u.applied.size(), std::size_t(3));
    QVERIFY(u.skipped.empty());
    for (const Message& b : shown) {
        const Message now = q->get(b.messageId).value();
        QCOMPARE(now.state, b.state);
        QCOMPARE(now.data, b.data);
        QCOMPARE(now.inTime, b.inTime);
        QCOMPARE(now.lockTime, b.lockTime);
        QCOMPARE(now.doneTime, b.doneTime);
        QCOMPARE(now.claimId, b.claimId);
        QCOMPARE(now.idempotencyKey, b.idempotencyKey);
    }
    // The restored key is reserved again.
    QCOMPARE(q->put("with key", std::string("k1")).messageId, keyed.messageId);
}

void TstActions::undoEnqueue() {
    auto q = fresh014(0);
    bool inserted = false;
    const Message a = q->put("a", std::nullopt, &inserted);
    QVERIFY(inserted);
    const Message b = q->put("b");
    const Message replay = q->put("a2", std::string("k"), &inserted);
    QVERIFY(inserted);
    q->put("a2", std::string("k"), &inserted);
    QVERIFY(!inserted); // an idempotent replay inserts nothing
    // b gets claimed before the undo: it must survive.
    const Message claimed = q->pop().value();
    QCOMPARE(claimed.messageId, a.messageId);
    const ActionResult u = q->undo(Action::Enqueue, {{a, a}, {b, b}, {replay, replay}});
    QCOMPARE(u.applied.size(), std::size_t(2));
    QCOMPARE(u.skipped.size(), std::size_t(1));
    QCOMPARE(u.skipped.front().messageId, a.messageId);
    QVERIFY(u.skipped.front().reason.find("LOCKED") != std::string::npos);
    QVERIFY(q->get(a.messageId).has_value());
    QVERIFY(!q->get(b.messageId).has_value());
    QVERIFY(!q->get(replay.messageId).has_value());
}

void TstActions::notUndoable() {
    auto q = fresh014(1);
    QVERIFY_THROWS_EXCEPTION(lq::core::Error, q->undo(Action::Vacuum, {}));
    QVERIFY_THROWS_EXCEPTION(lq::core::Error, q->apply(Action::Enqueue, {}));
    AuditLog log(toStd(m_dir->filePath(QStringLiteral("audit"))));
    AuditEntry retry;
    retry.queuePath = freshPath();
    retry.action = Action::Retry;
    const auto m = q->put("x");
    retry.applied.push_back({m, m});
    log.append(retry);
    AuditEntry vac;
    vac.queuePath = freshPath();
    vac.action = Action::Vacuum;
    vac.note = "vacuum: 10 -> 5 bytes";
    log.append(vac);
    // The vacuum is recorded but skipped by Undo: the retry is the last undoable.
    QCOMPARE(log.entries(freshPath()).back().note, std::string("vacuum: 10 -> 5 bytes"));
    QVERIFY(log.lastUndoable(freshPath()).has_value());
    QVERIFY(log.lastUndoable(freshPath())->action == Action::Retry);
}

void TstActions::undoJobsLease() {
    m_clock.set(kJobsRef);
    auto q = Queue::open(copyFixture(*m_dir, QStringLiteral("seed-jobs-leases.sqlite3")),
                         optionsWith(m_clock.clock()));
    const auto shown = q->list(stateFilter({State::Leased, State::Expired}), Sort{}, 0, 100);
    QCOMPARE(shown.size(), std::size_t(6));
    std::vector<Target> targets;
    for (const Message& m : shown)
        targets.push_back({m.messageId, m.token});
    const ActionResult r = q->apply(Action::Release, targets);
    QCOMPARE(r.applied.size(), std::size_t(6));
    QCOMPARE(q->counts().ready, 2 + 6);
    const ActionResult u = q->undo(Action::Release, r.applied);
    QCOMPARE(u.applied.size(), std::size_t(6));
    for (const Message& b : shown) {
        const Message now = q->get(b.messageId).value();
        QCOMPARE(now.state, b.state);
        QCOMPARE(now.attempts, b.attempts);
        QVERIFY(now.leaseExpiry && std::llabs(*now.leaseExpiry - *b.leaseExpiry) <= 1000);
        QVERIFY(std::llabs(*now.scheduledAt - *b.scheduledAt) <= 1000);
    }
    const Counts c = q->counts();
    QCOMPARE(c.leased, 3);
    QCOMPARE(c.expired, 3);
    // Delete, then undo: the rows come back.
    const ActionResult d = q->apply(Action::Delete, targets);
    QCOMPARE(d.applied.size(), std::size_t(6));
    QCOMPARE(q->storedCount(), 10);
    QCOMPARE(q->undo(Action::Delete, d.applied).applied.size(), std::size_t(6));
    QCOMPARE(q->storedCount(), 16);
    QCOMPARE(q->counts().leased, 3);
}

void TstActions::jobsLease_data() {
    QTest::addColumn<Action>("action");
    QTest::addColumn<QString>("id");
    QTest::addColumn<State>("from");
    QTest::addColumn<int>("tokenDelta");
    QTest::addColumn<bool>("applies");
    const QString leased = QStringLiteral("33ec99973da94c9cb3da90f4103f7e62");
    const QString expired = QStringLiteral("b99273e8e40147ca849a4e1b87c4d4ce");
    const QString expired2 = QStringLiteral("77af4e9d5a5048f0a49b4e7cbcafe6e4");
    const QString ready = QStringLiteral("d4255a2633ff474db58449106bb27c13");
    const QString scheduled = QStringLiteral("49b5be9541cb48df9e078a8a7be8457b");
    QTest::newRow("release LEASED") << Action::Release << leased << State::Leased << 0 << true;
    QTest::newRow("release LEASED stale")
        << Action::Release << leased << State::Leased << -1 << false;
    QTest::newRow("release EXPIRED") << Action::Release << expired << State::Expired << 0 << true;
    QTest::newRow("release EXPIRED stale")
        << Action::Release << expired << State::Expired << 1 << false;
    QTest::newRow("reschedule READY") << Action::Reschedule << ready << State::Ready << 0 << true;
    QTest::newRow("reschedule SCHEDULED")
        << Action::Reschedule << scheduled << State::Scheduled << 0 << true;
    QTest::newRow("reschedule stale") << Action::Reschedule << ready << State::Ready << 1 << false;
    QTest::newRow("delete EXPIRED") << Action::Delete << expired2 << State::Expired << 0 << true;
    QTest::newRow("delete LEASED") << Action::Delete << leased << State::Leased << 0 << true;
    QTest::newRow("delete stale") << Action::Delete << expired2 << State::Expired << 1 << false;
}

void TstActions::jobsLease() {
    QFETCH(Action, action);
    QFETCH(QString, id);
    QFETCH(State, from);
    QFETCH(int, tokenDelta);
    QFETCH(bool, applies);

    m_clock.set(kJobsRef);
    auto q = Queue::open(copyFixture(*m_dir, QStringLiteral("seed-jobs-leases.sqlite3")),
                         optionsWith(m_clock.clock()));
    QCOMPARE(q->info().format, lq::core::QueueFormat::byId("jobs-lease"));
    const Message before = q->get(toStd(id)).value();
    QCOMPARE(before.state, from);
    QCOMPARE(before.token, before.attempts);

    ActionOptions o;
    o.delay = std::chrono::seconds(600);
    const ActionResult r =
        q->apply(action, {Target{before.messageId, before.token + tokenDelta}}, o);
    if (!applies) {
        QVERIFY(r.applied.empty());
        QCOMPARE(r.skipped.size(), std::size_t(1));
        QVERIFY2(contains(r.skipped[0].reason, "changed since shown"), r.skipped[0].reason.c_str());
        sameMessage(q->get(before.messageId).value(), before);
        QCOMPARE(q->storedCount(), 16);
        return;
    }
    QCOMPARE(r.applied.size(), std::size_t(1));
    QVERIFY(r.skipped.empty());
    const auto after = q->get(before.messageId);
    if (action == Action::Delete) {
        QVERIFY(!after);
        QCOMPARE(q->storedCount(), 15);
        return;
    }
    QVERIFY(after);
    QCOMPARE(after->attempts, before.attempts); // only a claim counts an attempt
    const TimeNs wantRun = action == Action::Release ? kJobsRef : kJobsRef + 600 * kSec;
    QVERIFY2(std::llabs(after->scheduledAt.value() - wantRun) <= 1000,
             std::to_string(after->scheduledAt.value() - wantRun).c_str());
    if (action == Action::Release) {
        QVERIFY(!after->leaseExpiry);
        QCOMPARE(after->state, State::Ready);
    } else {
        QCOMPARE(after->state, State::Scheduled);
        QCOMPARE(after->leaseExpiry, before.leaseExpiry);
    }
    // Raw file: REAL seconds.
    Db db(q->path(), true);
    const double raw = db.real("SELECT run_at FROM jobs WHERE id = '" + toStd(id) + "'");
    QVERIFY2(std::abs(raw - static_cast<double>(wantRun) / 1e9) < 1e-3,
             std::to_string(raw).c_str());
}

void TstActions::auditLog() {
    auto q = fresh014(3);
    const auto targets = q->targetsFor(stateFilter({State::Ready, State::Locked}));
    QCOMPARE(targets.size(), std::size_t(4));
    std::vector<Target> withStale = targets;
    withStale.back().token += 1;
    const ActionResult r = q->apply(Action::MarkFailed, withStale);
    QCOMPARE(r.applied.size(), std::size_t(3));
    QCOMPARE(r.skipped.size(), std::size_t(1));

    const QString dir = m_dir->filePath(QStringLiteral("audit"));
    AuditLog log(toStd(dir));
    QVERIFY(contains(log.logPathFor(q->path()), toStd(dir)));
    QVERIFY(log.entries(q->path()).empty());
    QVERIFY(!log.lastUndoable(q->path()));

    AuditEntry e;
    e.id = "record-1";
    e.when = m_clock.now();
    e.queuePath = q->path();
    e.action = r.action;
    e.user = "tester";
    e.tool = "tst_actions";
    e.applied = r.applied;
    e.skipped = static_cast<std::int64_t>(r.skipped.size());
    log.append(e);
    AuditEntry e2 = e;
    e2.id = "record-2";
    e2.when += kSec;
    e2.action = Action::Retry;
    e2.applied.resize(1);
    log.append(e2);

    // One JSON object per line, outside the queue file.
    QFile f(fromStd(log.logPathFor(q->path())));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = f.readAll().trimmed().split('\n');
    QCOMPARE(lines.size(), 2);
    for (const QByteArray& line : lines)
        QVERIFY(Json::parse(line.toStdString()).isObject());
    QCOMPARE(Db(q->path(), true).integer("SELECT count(*) FROM sqlite_master WHERE type = 'table'"),
             1);

    const auto entries = log.entries(q->path());
    QCOMPARE(entries.size(), std::size_t(2));
    const AuditEntry& g = entries[0];
    QCOMPARE(g.when, e.when);
    QCOMPARE(g.queuePath, e.queuePath);
    QCOMPARE(g.action, e.action);
    QCOMPARE(g.user, e.user);
    QCOMPARE(g.tool, e.tool);
    QCOMPARE(g.skipped, 1);
    QCOMPARE(g.undone, false);
    QCOMPARE(g.applied.size(), e.applied.size());
    for (std::size_t i = 0; i < g.applied.size(); ++i) {
        sameMessage(g.applied[i].before, e.applied[i].before);
        sameMessage(g.applied[i].after, e.applied[i].after);
    }
    QCOMPARE(entries[1].action, Action::Retry);
    const auto last = log.lastUndoable(q->path());
    QVERIFY(last);
    QCOMPARE(last->when, e2.when);

    // toJson/fromJson round trip.
    const AuditEntry rt = AuditLog::fromJson(Json::parse(AuditLog::toJson(e).dump()));
    QCOMPARE(rt.when, e.when);
    QCOMPARE(rt.applied.size(), e.applied.size());

    // An undo entry is never itself the last undoable action, and the
    // record it reverted is not either: the one before it is.
    AuditEntry u = e2;
    u.id = "record-3";
    u.when += kSec;
    u.undone = true;
    u.undoes = e2.id;
    log.append(u);
    const auto last2 = log.lastUndoable(q->path());
    QVERIFY(last2);
    QCOMPARE(last2->id, e.id);
    QCOMPARE(last2->when, e.when);
    QCOMPARE(log.entries(q->path())[1].undoneBy, u.id);
    QCOMPARE(log.entries(q->path()).size(), std::size_t(3));
    // Another queue has its own log.
    QVERIFY(log.logPathFor(q->path()) != log.logPathFor(q->path() + ".other"));
    QVERIFY(log.entries(q->path() + ".other").empty());
}

void TstActions::messageJson_data() {
    QTest::addColumn<QByteArray>("data");
    QTest::addColumn<bool>("blob");
    QTest::addColumn<bool>("full");
    QTest::newRow("plain") << QByteArray("hello") << false << true;
    QTest::newRow("empty") << QByteArray("") << false << false;
    QTest::newRow("utf-8") << QByteArray("h\xc3\xa9llo \xf0\x9f\x98\x80 \xe4\xb8\xad") << false
                           << true;
    QTest::newRow("invalid utf-8") << QByteArray("ab\xff\xfe"
                                                 "cd\xc3",
                                                 7)
                                   << false << true;
    QTest::newRow("NUL and controls") << QByteArray("a\0b\x01\n\t\"\\", 8) << false << false;
    QTest::newRow("blob") << QByteArray("\x00\x01\x02\xff", 4) << true << true;
}

void TstActions::messageJson() {
    QFETCH(QByteArray, data);
    QFETCH(bool, blob);
    QFETCH(bool, full);
    Message m;
    m.rowid = 42;
    m.messageId = "0195993f-7baf-71f2-9c36-abbb5704a4de";
    m.data = data.toStdString();
    m.dataIsBlob = blob;
    m.rawStatus = 3;
    m.state = State::Failed;
    m.inTime = 1741946700137482911;
    if (full) {
        m.lockTime = 1741946700137482912;
        m.doneTime = 1741946709137482913;
        m.idempotencyKey = "key-\xc3\xa9";
        m.claimId = 7;
        m.token = 7;
    }
    const Json j = messageToJson(m);
    const std::string text = j.dump();
    QVERIFY(isValidUtf8(text));
    const Message back = messageFromJson(Json::parse(text));
    QCOMPARE(back.data.size(), m.data.size());
    sameMessage(back, m);
}

QTEST_GUILESS_MAIN(TstActions)
#include "tst_actions.moc"
