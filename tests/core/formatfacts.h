// SPDX-License-Identifier: MIT
#pragma once
// The facts.json checks every queue-format test makes on its fixture
// (tests/data/formats/facts.json): opening changes nothing, counts per
// canonical state and the format's extra states, per-queue counts, the
// samples' states and queues, and the shapes of an action that is refused
// or applied, audited and undone. One set of rules for every format: a
// format's own facts (tokens, raw columns) stay in its tst_<format>.cpp.
#include "core/formats/queueformat.h"
#include "core/operator.h"
#include "core/queue.h"
#include "core/statemodel.h"
#include "testutil.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <functional>
#include <map>
#include <set>

namespace lqtest {

/// facts.json's "now" for the format fixtures: 2026-11-30T12:00:00Z.
constexpr lq::core::TimeNs kFactsNow = 1'796'040'000LL * lq::core::kNsPerSecond;

/// The facts of one fixture, by file name ("goqite.sqlite3") or by its path
/// under tests/data ("formats/goqite.sqlite3").
inline QJsonObject factsOf(const QString& fixture) {
    return lq::test::formatFacts(fixture);
}

inline std::unique_ptr<lq::core::Queue> openAtFactsNow(const std::string& path) {
    lq::core::OpenOptions o;
    o.clock = lq::core::fixedClock(kFactsNow);
    return lq::core::Queue::open(path, o);
}

/// Every read there is (opening and reading must never change the file).
inline void readEverything(lq::core::Queue& q) {
    using namespace lq::core;
    (void)q.counts();
    (void)q.queueNames();
    (void)q.list({}, {}, 0, -1);
    (void)q.stats();
    (void)q.targetsFor({});
    (void)q.orderedRowids({}, {SortKey::Status, true});
    for (SortKey k : {SortKey::InTime, SortKey::DoneTime, SortKey::Wait, SortKey::Age})
        (void)q.list({}, {k, false}, 0, -1);
}

inline lq::core::Message row(lq::core::Queue& q, const std::string& id) {
    auto m = q.get(id);
    if (!m)
        throw std::runtime_error("no row " + id);
    return *m;
}

inline lq::core::Target targetOf(lq::core::Queue& q, const std::string& id) {
    const lq::core::Message m = row(q, id);
    return {m.messageId, m.token};
}

inline std::int64_t want(const QJsonObject& o, const char* state) {
    return o.value(QLatin1String(state)).toInteger();
}

/// The state a facts.json sample or per-queue key names: canonical, or extra.
inline std::string factState(const lq::core::Message& m) {
    if (m.state == lq::core::State::Unknown && !m.extraState.empty())
        return m.extraState;
    return lq::core::stateName(m.state);
}

/// Rows classified one by one, as facts.json keys them: each row under its
/// canonical state (when it has one) and under its extra state (when it
/// has one). `overlapping` gets the extra states that rows in a canonical
/// state carry (locked_expired, pending_retry): those count a job twice.
inline std::map<std::string, std::int64_t> classify(const std::vector<lq::core::Message>& rows,
                                                    std::set<std::string>* overlapping = nullptr) {
    std::map<std::string, std::int64_t> byState;
    for (const lq::core::Message& m : rows) {
        if (m.state != lq::core::State::Unknown)
            ++byState[lq::core::stateName(m.state)];
        if (!m.extraState.empty()) {
            ++byState[m.extraState];
            if (overlapping && m.state != lq::core::State::Unknown)
                overlapping->insert(m.extraState);
        }
    }
    return byState;
}

/// Opening a copy of the fixture and every read leave it byte-identical (and
/// identical to facts.json's sha256); the format is `format`, the file is
/// writable, and `also` checks what the format adds (its table, ...).
inline void checkOpeningChangesNothing(const QString& fixture, const char* format,
                                       const std::function<void(lq::core::Queue&)>& also = {}) {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, fixture);
    const QByteArray before = sha256(path);
    {
        auto q = openAtFactsNow(path);
        QCOMPARE(std::string(lq::core::formatId(q->info().format)), std::string(format));
        QVERIFY2(!q->readOnly(), q->info().readOnlyReason.c_str());
        if (also)
            also(*q);
        readEverything(*q);
    }
    QCOMPARE(sha256(path), before);
    QCOMPARE(before, factsOf(fixture).value(QStringLiteral("sha256")).toString().toLatin1());
}

/// Whether facts.json lists every extra state of the format, or leaves out
/// those at 0 (Oban's and River's facts do).
enum class FactsExtras { All, ZerosLeftOut };

/// counts(), its extras, stored, stuck and the state filters against the
/// facts; every job counted once; the rows, classified one by one, agree.
inline void checkCounts(lq::core::Queue& q, const QJsonObject& f,
                        FactsExtras listed = FactsExtras::All) {
    using namespace lq::core;
    const QJsonObject w = f.value(QStringLiteral("counts")).toObject();
    const Counts c = q.counts();
    QCOMPARE(c.ready, want(w, "READY"));
    QCOMPARE(c.scheduled, want(w, "SCHEDULED"));
    QCOMPARE(c.locked, want(w, "LOCKED"));
    QCOMPARE(c.done, want(w, "DONE"));
    QCOMPARE(c.failed, want(w, "FAILED"));
    QCOMPARE(c.unknown, std::int64_t(0));
    QCOMPARE(
        c.stored,
        f.value(QStringLiteral("stored")).toObject().value(QStringLiteral("jobs")).toInteger());
    // Every extra of the facts, and the format's others at 0.
    // A state the library has its own word for (goqite's dead_letter is its
    // FAILED) is counted as that state (core/statemodel.h).
    const QJsonObject extra = f.value(QStringLiteral("extra")).toObject();
    const QueueFormat& format = QueueFormat::of(q.info());
    for (const auto& [name, n] : c.extra)
        QCOMPARE(n, extra.value(fromStd(name)).toInteger(0));
    std::size_t words = 0;
    for (auto it = extra.begin(); it != extra.end(); ++it) {
        if (const auto s = stateOfName(format, toStd(it.key()))) {
            QCOMPARE(stateModel(format, c).count(toStd(it.key())), it.value().toInteger());
            ++words;
            continue;
        }
        QVERIFY2(c.extra.count(toStd(it.key())), qPrintable(it.key()));
    }
    if (listed == FactsExtras::All)
        QCOMPARE(c.extra.size(), std::size_t(extra.size()) - words);
    QCOMPARE(c.stuck, extra.value(QStringLiteral("locked_expired")).toInteger(0));
    for (State s : {State::Ready, State::Scheduled, State::Locked, State::Done, State::Failed}) {
        Filter fl;
        fl.states = {s};
        const std::int64_t n = s == State::Ready       ? c.ready
                               : s == State::Scheduled ? c.scheduled
                               : s == State::Locked    ? c.locked
                               : s == State::Done      ? c.done
                                                       : c.failed;
        QCOMPARE(q.count(fl), n);
        const auto rows = q.list(fl, {}, 0, -1);
        QCOMPARE(std::int64_t(rows.size()), n);
        for (const Message& m : rows)
            QCOMPARE(m.state, s);
    }
    Filter stuck;
    stuck.stuckOnly = true;
    QCOMPARE(q.count(stuck), c.stuck);
    QCOMPARE(q.listLocked(std::chrono::seconds(0)).size(), std::size_t(c.stuck));
    const auto all = q.list({}, {}, 0, -1);
    QCOMPARE(std::int64_t(all.size()), c.stored);
    std::set<std::string> overlapping;
    std::map<std::string, std::int64_t> byState = classify(all, &overlapping);
    for (auto it = w.begin(); it != w.end(); ++it)
        QCOMPARE(byState[toStd(it.key())], it.value().toInteger());
    for (auto it = extra.begin(); it != extra.end(); ++it)
        QCOMPARE(byState[toStd(it.key())], it.value().toInteger());
    // Every job once: canonical + the extras outside them.
    std::int64_t outside = 0;
    for (const auto& [name, n] : c.extra)
        outside += name == "locked_expired" || overlapping.count(name) ? 0 : n;
    QCOMPARE(c.ready + c.scheduled + c.locked + c.done + c.failed + outside, c.stored);
}

/// queueNames() and each queue's counts, filter and rows against the facts.
inline void checkPerQueue(lq::core::Queue& q, const QJsonObject& f) {
    using namespace lq::core;
    const QJsonObject perQueue = f.value(QStringLiteral("per_queue")).toObject();
    std::vector<std::string> names;
    for (const QString& k : perQueue.keys())
        names.push_back(toStd(k));
    std::sort(names.begin(), names.end());
    QCOMPARE(q.queueNames(), names);
    for (const auto& name : names) {
        const QJsonObject w = perQueue.value(fromStd(name)).toObject();
        const Counts c = q.counts(name);
        QCOMPARE(c.ready, want(w, "READY"));
        QCOMPARE(c.scheduled, want(w, "SCHEDULED"));
        QCOMPARE(c.locked, want(w, "LOCKED"));
        QCOMPARE(c.done, want(w, "DONE"));
        QCOMPARE(c.failed, want(w, "FAILED"));
        Filter fl;
        fl.queue = name;
        QCOMPARE(q.count(fl), c.stored);
        const auto rows = q.list(fl, {}, 0, -1);
        QCOMPARE(std::int64_t(rows.size()), c.stored);
        for (const Message& m : rows)
            QCOMPARE(m.queueName.value_or(""), name);
        std::set<std::string> overlapping;
        std::map<std::string, std::int64_t> byState = classify(rows, &overlapping);
        std::int64_t total = 0;
        for (auto it = w.begin(); it != w.end(); ++it) {
            const std::string key = toStd(it.key());
            QCOMPARE(byState[key], it.value().toInteger());
            if (c.extra.count(key))
                QCOMPARE(c.extra.at(key), it.value().toInteger());
            total += key == "locked_expired" || overlapping.count(key) ? 0 : it.value().toInteger();
        }
        QCOMPARE(c.stored, total);
    }
    Filter none;
    none.queue = "no_such_queue";
    QCOMPARE(q.count(none), std::int64_t(0));
}

/// Each sample's state and queue (a format's tokens are its own test's).
inline void checkSamples(lq::core::Queue& q, const QJsonObject& f) {
    const QJsonArray samples = f.value(QStringLiteral("samples")).toArray();
    QVERIFY(!samples.isEmpty());
    for (const QJsonValue v : samples) {
        const QJsonObject s = v.toObject();
        const QJsonValue id = s.value(QStringLiteral("id"));
        const std::string sid =
            id.isString() ? toStd(id.toString()) : std::to_string(id.toInteger());
        const auto m = q.get(sid);
        QVERIFY2(m.has_value(), sid.c_str());
        QCOMPARE(fromStd(factState(*m)), s.value(QStringLiteral("state")).toString());
        QCOMPARE(fromStd(m->queueName.value_or("")), s.value(QStringLiteral("queue")).toString());
    }
}

/// A file of `format` (FormatInfo with nothing read): what capabilities()
/// tests ask the format about.
inline lq::core::FormatInfo infoOf(const char* id) {
    lq::core::FormatInfo info;
    info.format = lq::core::QueueFormat::byId(id);
    return info;
}

/// `id` names the format, and it offers every row action it lists.
inline void checkNamedAndOffersRowActions(const char* id) {
    using namespace lq::core;
    const QueueFormat* f = QueueFormat::byId(id);
    QVERIFY2(f, id);
    QCOMPARE(std::string(f->id()), std::string(id));
    for (Action a : f->rowActions())
        QVERIFY2(f->offers(a, infoOf(id)), actionName(a));
}

/// A copy of the fixture damaged by `sql` is refused as Unsupported, the
/// message naming `missing` and the file, and the file is left as it was.
inline void checkDamagedSaysWhatIsMissing(const QString& fixture,
                                          const std::vector<std::string>& sql,
                                          const std::string& missing) {
    using namespace lq::core;
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, fixture);
    {
        Db db(path);
        for (const auto& s : sql)
            db.exec(s);
    }
    const QByteArray before = sha256(path);
    LQ_EXPECT_ERROR(Queue::open(path), ErrorKind::Unsupported, missing);
    LQ_EXPECT_ERROR(Queue::open(path), ErrorKind::Unsupported, path);
    QCOMPARE(sha256(path), before);
}

/// The fixture with a litequeue-legacy table added holds two formats:
/// opening it is refused naming the file and both, and changes nothing.
inline void checkTwoFormatsInOneFileNamed(const QString& fixture, const char* format) {
    using namespace lq::core;
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, fixture);
    {
        Db db(path);
        db.exec("CREATE TABLE \"Queue\" (data TEXT NOT NULL, message_id TEXT NOT NULL, status "
                "INTEGER NOT NULL, in_time INTEGER NOT NULL, lock_time INTEGER, done_time "
                "INTEGER)");
    }
    const QByteArray before = sha256(path);
    const auto e = catchError([&] { (void)Queue::open(path); });
    QVERIFY(e.has_value());
    QVERIFY2(contains(e->what(), path), e->what());
    QVERIFY2(contains(e->what(), format), e->what());
    QVERIFY2(contains(e->what(), "litequeue-legacy"), e->what());
    QCOMPARE(sha256(path), before);
}

/// `a` on `ids` applies to none of them: each is skipped as `kind`.
inline void checkRefused(lq::core::Queue& q, lq::core::Action a,
                         const std::vector<std::string>& ids, lq::core::SkipKind kind) {
    std::vector<lq::core::Target> targets;
    targets.reserve(ids.size());
    for (const auto& id : ids)
        targets.push_back(targetOf(q, id));
    const lq::core::ActionResult r = q.apply(a, targets);
    QVERIFY(r.applied.empty());
    QCOMPARE(r.skipped.size(), ids.size());
    for (const auto& s : r.skipped)
        QCOMPARE(s.kind, kind);
}

/// The figures counts() gives, as one line for QCOMPARE: the canonical
/// states, stuck, stored and the format's own states `extras`.
inline std::string describeCounts(const lq::core::Counts& c,
                                  const std::vector<std::string>& extras) {
    std::string s = "ready " + std::to_string(c.ready) + ", scheduled " +
                    std::to_string(c.scheduled) + ", locked " + std::to_string(c.locked) +
                    ", stuck " + std::to_string(c.stuck) + ", done " + std::to_string(c.done) +
                    ", failed " + std::to_string(c.failed) + ", unknown " +
                    std::to_string(c.unknown) + ", stored " + std::to_string(c.stored);
    for (const auto& name : extras) {
        const auto it = c.extra.find(name);
        s += ", " + name + " " + (it == c.extra.end() ? "-" : std::to_string(it->second));
    }
    return s;
}

/// Every field of `c`, each extra state it holds included.
inline std::string describeEveryCount(const lq::core::Counts& c) {
    std::string s = describeCounts(c, {}) + ", leased " + std::to_string(c.leased) + ", expired " +
                    std::to_string(c.expired);
    for (const auto& [name, n] : c.extra)
        s += ", " + name + " " + std::to_string(n);
    return s;
}

/// The same figures state by state through Queue::count(): each state's
/// condition on the rows of the format's source, one row per job as a
/// listing reads them, narrowed to `queue` when given. Whatever way a
/// format's counts() takes, it must give these.
inline lq::core::Counts countsByCondition(lq::core::Queue& q,
                                          const std::vector<std::string>& extras,
                                          const std::string& queue = {}) {
    using namespace lq::core;
    const auto n = [&](std::vector<State> states, std::vector<std::string> extra, bool stuck) {
        Filter f;
        f.states = std::move(states);
        f.extraStates = std::move(extra);
        f.stuckOnly = stuck;
        f.queue = queue;
        return q.count(f);
    };
    Counts c;
    c.ready = n({State::Ready}, {}, false);
    c.scheduled = n({State::Scheduled}, {}, false);
    c.locked = n({State::Locked}, {}, false);
    c.stuck = n({}, {}, true);
    c.done = n({State::Done}, {}, false);
    c.failed = n({State::Failed}, {}, false);
    c.unknown = n({State::Unknown}, {}, false);
    c.stored = n({}, {}, false);
    for (const auto& name : extras)
        c.extra[name] = n({}, {name}, false);
    return c;
}

/// The rows of a timing scan, each as text, sorted (the scan's order is
/// the format's).
inline std::vector<std::string> describeTiming(const lq::core::TimingColumns& c) {
    using lq::core::TimingColumns;
    const auto at = [](const auto& col, std::size_t i) {
        return i < col.size() ? std::to_string(col[i]) : std::string("-");
    };
    std::vector<std::string> out;
    for (std::size_t i = 0; i < c.size(); ++i)
        out.push_back(at(c.state, i) + " " + at(c.inTime, i) + " " + at(c.lockTime, i) + " " +
                      at(c.doneTime, i) + " " + at(c.dueTime, i) + " " + at(c.ownStuck, i) + " " +
                      at(c.attempts, i) + " " +
                      (i < c.queue.size() && c.queue[i] != TimingColumns::kNoQueue
                           ? c.queueNames[c.queue[i]]
                           : std::string("-")));
    std::sort(out.begin(), out.end());
    return out;
}

/// The timing scan of every row (Queue::timing, as the dashboard and
/// `lqctl stats` read it, whatever way the format reads an unfiltered scan)
/// equals the same scan with a filter every row passes, each state and the
/// format's `extras` (the scan's arms with a condition), and has a row per
/// stored job.
inline void checkTimingOfEveryRow(lq::core::Queue& q, const std::vector<std::string>& extras) {
    using namespace lq::core;
    Filter every;
    every.states = {State::Ready, State::Scheduled, State::Locked,
                    State::Done,  State::Failed,    State::Unknown};
    every.extraStates = extras;
    const std::vector<std::string> expected = describeTiming(q.timing(every, true));
    QCOMPARE(static_cast<std::int64_t>(expected.size()), q.counts().stored);
    QCOMPARE(describeTiming(q.timing(Filter{}, true)), expected);
    // Again: where the format prints its ranges, those that cannot change
    // with the time come from the queue's cache, and still say the same.
    QCOMPARE(describeTiming(q.timing(Filter{}, true)), expected);
}

/// counts() of `q` equals countsByCondition(), for the whole file and for
/// each queue (a narrowed count), and the queues' counts add up to the
/// whole file's. On a rollback-journal copy read in chunks of `chunkRows`
/// (Queue::counts adds a range to every chunk's count) the same again.
inline void checkCountsByCondition(const std::string& path, const std::vector<std::string>& extras,
                                   std::int64_t chunkRows = 4) {
    using namespace lq::core;
    std::string whole;
    std::map<std::string, std::string> perQueue;
    {
        auto q = openAtFactsNow(path);
        whole = describeCounts(q->counts(), extras);
        QCOMPARE(whole, describeCounts(countsByCondition(*q, extras), extras));
        Counts sum;
        for (const auto& name : q->queueNames()) {
            const Counts c = q->counts(name);
            perQueue[name] = describeCounts(c, extras);
            QCOMPARE(perQueue[name], describeCounts(countsByCondition(*q, extras, name), extras));
            sum += c;
        }
        QCOMPARE(describeCounts(sum, extras), whole);
    }
    // Every queue in one pass (the fleet's, the exporter's), whole and in
    // chunks: the figures of the count narrowed to each queue.
    const auto checkGrouped = [&](Queue& q) {
        const Queue::CountsWithQueues cq = q.countsWithQueues();
        QCOMPARE(describeCounts(cq.total, extras), whole);
        std::size_t seen = 0;
        for (const auto& [name, c] : cq.queues) {
            QCOMPARE(describeCounts(c, extras), perQueue[name]);
            seen += perQueue.count(name);
        }
        QCOMPARE(seen, perQueue.size());
        // The same figures, every field, from the one timing scan the
        // exporter and `stats --prometheus` read where its rows carry every
        // state the format counts (countsOfScan()).
        const CountsAndStats cs = q.countsAndStats();
        QCOMPARE(describeEveryCount(cs.counts.total), describeEveryCount(cq.total));
        QCOMPARE(cs.counts.queues.size(), cq.queues.size());
        for (std::size_t i = 0; i < cq.queues.size(); ++i) {
            QCOMPARE(cs.counts.queues[i].first, cq.queues[i].first);
            QCOMPARE(describeEveryCount(cs.counts.queues[i].second),
                     describeEveryCount(cq.queues[i].second));
        }
        const QueueStats st = q.stats();
        QCOMPARE(cs.stats.wait.count, st.wait.count);
        QCOMPARE(cs.stats.total.p50, st.total.p50);
        QCOMPARE(cs.stats.doneLastHour, st.doneLastHour);
    };
    checkGrouped(*openAtFactsNow(path));
    checkTimingOfEveryRow(*openAtFactsNow(path), extras);
    const std::string copy = path + "-chunked.sqlite3";
    {
        Db src(path);
        src.exec("VACUUM INTO '" + copy + "'");
    }
    {
        Db db(copy);
        db.exec("PRAGMA journal_mode = DELETE");
    }
    OpenOptions o;
    o.clock = fixedClock(kFactsNow);
    o.readOnly = true;
    o.scanChunkRows = chunkRows;
    auto chunked = Queue::open(copy, o);
    QCOMPARE(describeCounts(chunked->counts(), extras), whole);
    checkGrouped(*chunked);
    checkTimingOfEveryRow(*chunked, extras);
}

/// The operator retries the fixture's `failed` FAILED jobs by filter, with
/// an audit log in `dir`, and undoes them from the record as written to
/// disk (the tokens and statuses survive the round trip).
inline void checkOperatorRetriesFailedAndUndoes(lq::core::Queue& q, const QTemporaryDir& dir,
                                                const std::string& tool, std::size_t failed) {
    using namespace lq::core;
    Operator op(q, tool, AuditLog(toStd(dir.filePath(QStringLiteral("audit")))));
    Filter fl;
    fl.states = {State::Failed};
    const Plan plan = op.planFilter(Action::Retry, fl);
    QCOMPARE(plan.count(), failed);
    QCOMPARE(op.run(plan).applied(), failed);
    QCOMPARE(q.counts().failed, std::int64_t(0));
    const auto record = op.lastUndoable();
    QVERIFY(record.has_value());
    QCOMPARE(op.undo(*record).applied(), failed);
    QCOMPARE(q.counts().failed, std::int64_t(failed));
}

/// A whole scan (orderedRowids, count) reads a format's scanArms() where
/// list() reads its source(): for every sort key, both ways, under each
/// filter, the same rows in the same order.
inline void checkScansAgreeWithTheSource(lq::core::Queue& q,
                                         const std::vector<lq::core::Filter>& filters) {
    using namespace lq::core;
    for (const SortKey k :
         {SortKey::Arrival, SortKey::InTime, SortKey::LockTime, SortKey::DoneTime, SortKey::Wait,
          SortKey::Processing, SortKey::Age, SortKey::Claim, SortKey::Status})
        for (const bool desc : {false, true})
            for (std::size_t i = 0; i < filters.size(); ++i) {
                const Sort s{k, desc};
                std::vector<std::int64_t> source;
                for (const Message& m : q.list(filters[i], s, 1, -1)) // not the first-page path
                    source.push_back(m.rowid);
                auto scan = q.orderedRowids(filters[i], s);
                QCOMPARE(q.count(filters[i]), static_cast<std::int64_t>(scan.size()));
                if (!scan.empty())
                    scan.erase(scan.begin());
                QVERIFY2(
                    scan == source,
                    qPrintable(
                        QStringLiteral("sort %1 desc %2 filter %3").arg(int(k)).arg(desc).arg(i)));
            }
}

} // namespace lqtest
