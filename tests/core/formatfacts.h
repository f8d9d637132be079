// SPDX-License-Identifier: MIT
#pragma once
// The facts.json checks every queue-format test makes on its fixture:
// counts per canonical state, the format's extra states, per-queue counts,
// and the samples' states and queues. Shared by tst_goqite and tst_plainjob.
#include "core/formats/queueformat.h"
#include "core/queue.h"
#include "testutil.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <algorithm>

namespace lqtest {

/// facts.json's "now" for the format fixtures: 2026-11-30T12:00:00Z.
constexpr lq::core::TimeNs kFactsNow = 1'796'040'000LL * lq::core::kNsPerSecond;

inline QJsonObject factsOf(const QString& fixture) {
    QFile f(lq::test::dataDir() + QStringLiteral("/formats/facts.json"));
    if (!f.open(QIODevice::ReadOnly))
        throw std::runtime_error("cannot read formats/facts.json");
    return QJsonDocument::fromJson(f.readAll()).object().value(fixture).toObject();
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
}

inline std::int64_t want(const QJsonObject& o, const char* state) {
    return o.value(QLatin1String(state)).toInteger();
}

/// counts(), extra, stored and the state filters against the facts.
inline void checkCounts(lq::core::Queue& q, const QJsonObject& f) {
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
    const QJsonObject extra = f.value(QStringLiteral("extra")).toObject();
    QCOMPARE(c.extra.size(), std::size_t(extra.size()));
    for (auto it = extra.begin(); it != extra.end(); ++it)
        QCOMPARE(c.extra.at(toStd(it.key())), it.value().toInteger());
    for (State s : {State::Ready, State::Scheduled, State::Locked, State::Done, State::Failed}) {
        Filter fl;
        fl.states = {s};
        QCOMPARE(q.count(fl), s == State::Ready       ? c.ready
                              : s == State::Scheduled ? c.scheduled
                              : s == State::Locked    ? c.locked
                              : s == State::Done      ? c.done
                                                      : c.failed);
    }
    Filter stuck;
    stuck.stuckOnly = true;
    QCOMPARE(q.count(stuck), c.stuck);
    QCOMPARE(q.list({}, {}, 0, -1).size(), std::size_t(c.stored));
}

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
        for (const Message& m : q.list(fl, {}, 0, -1))
            QCOMPARE(m.queueName.value_or(""), name);
    }
}

/// Each sample's state and queue.
inline void checkSamples(lq::core::Queue& q, const QJsonObject& f) {
    const QJsonArray samples = f.value(QStringLiteral("samples")).toArray();
    for (const QJsonValue v : samples) {
        const QJsonObject s = v.toObject();
        const QJsonValue id = s.value(QStringLiteral("id"));
        const std::string sid =
            id.isString() ? toStd(id.toString()) : std::to_string(id.toInteger());
        const auto m = q.get(sid);
        QVERIFY2(m.has_value(), sid.c_str());
        QCOMPARE(QString::fromLatin1(lq::core::stateName(m->state)),
                 s.value(QStringLiteral("state")).toString());
        QCOMPARE(fromStd(m->queueName.value_or("")), s.value(QStringLiteral("queue")).toString());
    }
}

inline lq::core::Target targetOf(lq::core::Queue& q, const std::string& id) {
    const auto m = q.get(id);
    if (!m)
        throw std::runtime_error("no row " + id);
    return {m->messageId, m->token};
}

} // namespace lqtest
