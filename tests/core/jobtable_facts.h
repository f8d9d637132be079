// SPDX-License-Identifier: MIT
#pragma once

// The checks tst_oban and tst_river share: a fixture of a job-table format
// (FORMATS.md §4, §5) against its facts in tests/data/formats/facts.json.
#include "core/formats/driver.h"
#include "core/queue.h"
#include "testutil.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

namespace lqtest::jobtable {

using namespace lq::core;

constexpr TimeNs kNow = 1'796'040'000LL * kNsPerSecond; // facts.json "now": 2026-11-30T12:00:00Z

inline QJsonObject facts(const QString& file) {
    QFile f(lq::test::dataDir() + QStringLiteral("/formats/facts.json"));
    if (!f.open(QIODevice::ReadOnly))
        throw std::runtime_error("cannot read formats/facts.json");
    return QJsonDocument::fromJson(f.readAll()).object().value(file).toObject();
}

inline std::unique_ptr<Queue> openAtNow(const std::string& path) {
    OpenOptions o;
    o.clock = fixedClock(kNow);
    return Queue::open(path, o);
}

inline Message row(Queue& q, const std::string& id) {
    auto m = q.get(id);
    if (!m)
        throw std::runtime_error("no row " + id);
    return *m;
}

inline Target targetOf(Queue& q, const std::string& id) {
    const Message m = row(q, id);
    return {m.messageId, m.token};
}

/// Every column of one job, as the sqlite3 shell shows it (BLOBs in hex).
inline std::vector<std::string> rawJob(const std::string& path, const std::string& table,
                                       const std::string& id) {
    Db db(path, /*readOnly=*/true);
    std::string cols;
    for (const auto& c : db.rows("SELECT name, type FROM pragma_table_info('" + table + "')"))
        cols += (cols.empty() ? "" : ", ") + std::string("hex(") + c.at(0) + ") || typeof(" +
                c.at(0) + ")";
    const auto rows = db.rows("SELECT " + cols + " FROM " + table + " WHERE id = " + id);
    return rows.empty() ? std::vector<std::string>{} : rows.front();
}

/// The state a facts.json sample or per-queue key names: canonical, or extra.
inline std::string factState(const Message& m) {
    if (m.state == State::Unknown && !m.extraState.empty())
        return m.extraState;
    return stateName(m.state);
}

inline void checkCounts(Queue& q, const QJsonObject& f) {
    const QJsonObject want = f.value(QStringLiteral("counts")).toObject();
    const Counts c = q.counts();
    QCOMPARE(c.ready, want.value(QStringLiteral("READY")).toInteger());
    QCOMPARE(c.scheduled, want.value(QStringLiteral("SCHEDULED")).toInteger());
    QCOMPARE(c.locked, want.value(QStringLiteral("LOCKED")).toInteger());
    QCOMPARE(c.done, want.value(QStringLiteral("DONE")).toInteger());
    QCOMPARE(c.failed, want.value(QStringLiteral("FAILED")).toInteger());
    QCOMPARE(c.unknown, std::int64_t(0));
    QCOMPARE(
        c.stored,
        f.value(QStringLiteral("stored")).toObject().value(QStringLiteral("jobs")).toInteger());
    // Every extra of the facts, and the format's others at 0.
    const QJsonObject extra = f.value(QStringLiteral("extra")).toObject();
    for (const auto& [name, n] : c.extra)
        QCOMPARE(n, extra.value(fromStd(name)).toInteger(0));
    for (auto it = extra.begin(); it != extra.end(); ++it)
        QVERIFY2(c.extra.count(toStd(it.key())), qPrintable(it.key()));
    QCOMPARE(c.stuck, extra.value(QStringLiteral("locked_expired")).toInteger(0));
    // Every job once: canonical + the extras outside them.
    std::int64_t outside = 0;
    for (const auto& [name, n] : c.extra)
        outside += name == "locked_expired" ? 0 : n;
    QCOMPARE(c.ready + c.scheduled + c.locked + c.done + c.failed + outside, c.stored);
    // The filters count the same rows, and each listed row says so.
    for (State s : {State::Ready, State::Scheduled, State::Locked, State::Done, State::Failed}) {
        Filter fl;
        fl.states = {s};
        const auto rows = q.list(fl, {}, 0, -1);
        QCOMPARE(std::int64_t(rows.size()), s == State::Ready       ? c.ready
                                            : s == State::Scheduled ? c.scheduled
                                            : s == State::Locked    ? c.locked
                                            : s == State::Done      ? c.done
                                                                    : c.failed);
        for (const Message& m : rows)
            QCOMPARE(m.state, s);
    }
    Filter stuck;
    stuck.stuckOnly = true;
    QCOMPARE(q.count(stuck), c.stuck);
    QCOMPARE(q.listLocked(std::chrono::seconds(0)).size(), std::size_t(c.stuck));
    // The rows, classified one by one, agree with counts() too.
    std::map<std::string, std::int64_t> byState;
    for (const Message& m : q.list({}, {}, 0, -1)) {
        ++byState[factState(m)];
        if (m.extraState == "locked_expired")
            ++byState["locked_expired"];
    }
    for (auto it = want.begin(); it != want.end(); ++it)
        QCOMPARE(byState[toStd(it.key())], it.value().toInteger());
    for (auto it = extra.begin(); it != extra.end(); ++it)
        QCOMPARE(byState[toStd(it.key())], it.value().toInteger());
}

inline void checkPerQueue(Queue& q, const QJsonObject& f) {
    const QJsonObject perQueue = f.value(QStringLiteral("per_queue")).toObject();
    std::vector<std::string> want;
    for (const QString& k : perQueue.keys())
        want.push_back(toStd(k));
    std::sort(want.begin(), want.end());
    QCOMPARE(q.queueNames(), want);
    for (const auto& name : want) {
        const QJsonObject w = perQueue.value(fromStd(name)).toObject();
        Filter fl;
        fl.queue = name;
        std::map<std::string, std::int64_t> byState;
        for (const Message& m : q.list(fl, {}, 0, -1)) {
            QCOMPARE(m.queueName.value_or(""), name);
            ++byState[factState(m)];
        }
        std::int64_t total = 0;
        for (auto it = w.begin(); it != w.end(); ++it) {
            QCOMPARE(byState[toStd(it.key())], it.value().toInteger());
            total += it.value().toInteger();
        }
        const Counts c = q.counts(name);
        QCOMPARE(c.stored, total);
        QCOMPARE(c.ready, w.value(QStringLiteral("READY")).toInteger(0));
        QCOMPARE(c.locked, w.value(QStringLiteral("LOCKED")).toInteger(0));
        QCOMPARE(c.done, w.value(QStringLiteral("DONE")).toInteger(0));
    }
    Filter none;
    none.queue = "no_such_queue";
    QCOMPARE(q.count(none), std::int64_t(0));
}

/// Samples: state, queue, and the claim token's columns as stored.
inline void checkSamples(Queue& q, const QJsonObject& f) {
    for (const QJsonValue v : f.value(QStringLiteral("samples")).toArray()) {
        const QJsonObject s = v.toObject();
        const Message m = row(q, std::to_string(s.value(QStringLiteral("id")).toInteger()));
        QCOMPARE(fromStd(factState(m)), s.value(QStringLiteral("state")).toString());
        QCOMPARE(fromStd(m.queueName.value_or("")), s.value(QStringLiteral("queue")).toString());
        const QJsonObject tok = s.value(QStringLiteral("token")).toObject();
        QCOMPARE(m.attempts, tok.value(QStringLiteral("attempt")).toInteger());
        const QJsonValue at = tok.value(QStringLiteral("attempted_at"));
        if (at.isNull())
            QVERIFY(!m.lockTime);
        else
            QCOMPARE(m.lockTime, parseTextTime(toStd(at.toString())));
        // The token text carries the stored spellings (compare-and-swap on them).
        if (!at.isNull())
            QVERIFY(m.tokenText->find(toStd(at.toString())) != std::string::npos);
        const QJsonValue created = tok.value(QStringLiteral("created_at"));
        if (created.isString())
            QCOMPARE(m.inTime, parseTextTime(toStd(created.toString())));
    }
}

/// Opening and every read leave the file byte-identical.
inline void checkOpeningChangesNothing(const QString& fixture, const QJsonObject& f,
                                       const char* id) {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, fixture);
    const QByteArray before = sha256(path);
    {
        auto q = openAtNow(path);
        QCOMPARE(std::string(formatId(q->info().format)), std::string(id));
        QVERIFY(!q->readOnly());
        (void)q->counts();
        (void)q->queueNames();
        (void)q->list({}, {}, 0, -1);
        (void)q->stats();
        (void)q->targetsFor({});
        (void)q->orderedRowids({}, {SortKey::Status, true});
        for (SortKey k : {SortKey::InTime, SortKey::DoneTime, SortKey::Wait, SortKey::Age})
            (void)q->list({}, {k, false}, 0, -1);
    }
    QCOMPARE(sha256(path), before);
    QCOMPARE(before, f.value(QStringLiteral("sha256")).toString().toLatin1());
}

/// A stale token (the row moved on since shown) is refused, nothing written.
inline void checkStaleTokenRefused(Queue& q, const std::string& table, const std::string& id,
                                   Action a, const std::string& moveOn) {
    const Target t = targetOf(q, id);
    {
        Db db(q.path());
        db.exec("UPDATE " + table + " SET " + moveOn + " WHERE id = " + id);
    }
    const auto before = rawJob(q.path(), table, id);
    const ActionResult r = q.apply(a, {t});
    QVERIFY(r.applied.empty());
    QCOMPARE(r.skipped.size(), std::size_t(1));
    QCOMPARE(r.skipped.front().kind, SkipKind::Changed);
    QCOMPARE(rawJob(q.path(), table, id), before);
}

} // namespace lqtest::jobtable
