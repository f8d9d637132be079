// SPDX-License-Identifier: MIT
// The PostgreSQL engine's first slice (issue 41) against a real private
// PostgreSQL 15 server (tests/support/pgserver.h): each format's upstream
// DDL (tests/data/pg/*.sql) loaded into its own schema, the rows of the
// SQLite fixtures of Solid Queue, Oban and River copied into it, and the
// counts on PostgreSQL compared with facts.json — the whole database and
// each named queue. Recognition of all six libraries from the catalog, the
// "no queue here" error, passwords kept out of every message, a reading
// session that cannot write, and how the session shows in pg_stat_activity.
#include "core/backend.h"
#include "core/error.h"
#include "core/fleet.h"
#include "core/formats/queueformat.h"
#include "core/json.h"
#include "core/jsonb.h"
#include "core/pg/connection.h"
#include "core/pg/counts.h"
#include "core/pg/list.h"
#include "core/pg/pgqueue.h"
#include "core/timefmt.h"
#include "support/fixtures.h"
#include "support/pgcompare.h"
#include "support/pgcopy.h"
#include "support/pgserver.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <sqlite3.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <set>
#include <thread>

using namespace lq::core;
using lq::test::FormatCase;
using lq::test::pgFormatCases;
using lq::test::PgServer;
using lq::test::shown;

namespace {

std::string toStd(const QString& s) {
    return s.toStdString();
}

QString readAll(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        throw std::runtime_error("cannot read " + toStd(path));
    return QString::fromUtf8(f.readAll());
}

/// Every field of `c` in one line, to compare two scans with a readable
/// difference.
QString countsLine(const Counts& c) {
    QString s = QStringLiteral("ready %1 locked %2 done %3 failed %4 unknown %5 stuck %6 "
                               "scheduled %7 leased %8 expired %9 stored %10")
                    .arg(c.ready)
                    .arg(c.locked)
                    .arg(c.done)
                    .arg(c.failed)
                    .arg(c.unknown)
                    .arg(c.stuck)
                    .arg(c.scheduled)
                    .arg(c.leased)
                    .arg(c.expired)
                    .arg(c.stored);
    for (const auto& [k, v] : c.extra)
        s += QStringLiteral(" %1 %2").arg(QString::fromStdString(k)).arg(v);
    return s;
}

QStringList queuesLines(const std::vector<std::pair<std::string, Counts>>& queues) {
    QStringList out;
    for (const auto& [name, c] : queues)
        out << QString::fromStdString(name) + QStringLiteral(": ") + countsLine(c);
    return out;
}

/// Counts as facts.json states them: "READY".."FAILED" and the format's
/// own states, 0 where absent.
std::map<std::string, std::int64_t> asFacts(const Counts& c) {
    std::map<std::string, std::int64_t> m = {{"READY", c.ready},
                                             {"SCHEDULED", c.scheduled},
                                             {"LOCKED", c.locked},
                                             {"DONE", c.done},
                                             {"FAILED", c.failed}};
    for (const auto& [k, v] : c.extra)
        if (k != "locked_expired")
            m[k] = v;
    return m;
}

std::map<std::string, std::int64_t> factsMap(const QJsonObject& counts, const QJsonObject& extra,
                                             const Counts& shape) {
    std::map<std::string, std::int64_t> m;
    for (const char* k : {"READY", "SCHEDULED", "LOCKED", "DONE", "FAILED"})
        m[k] = counts.value(QLatin1String(k)).toInteger();
    for (const auto& [k, v] : shape.extra)
        if (k != "locked_expired")
            m[k] = extra.value(QString::fromStdString(k)).toInteger(); // absent: 0
    return m;
}

std::string show(const std::map<std::string, std::int64_t>& m) {
    std::string s;
    for (const auto& [k, v] : m)
        s += k + "=" + std::to_string(v) + " ";
    return s;
}

} // namespace

class TestPgEngine : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<PgServer> m_pg;
    QTemporaryDir m_tmp;
    QElapsedTimer m_timer;

    std::string url(const std::string& schema = {}) const {
        const std::string base = toStd(m_pg->url());
        return schema.empty() ? base : base + "?schema=" + schema;
    }
    /// Format case `fc`'s fixture opened read-only on SQLite (a copy) and
    /// on PostgreSQL, both at the fixture's instant.
    std::pair<std::shared_ptr<QueueBackend>, std::shared_ptr<QueueBackend>>
    both(const FormatCase& fc) {
        const QJsonObject facts = lq::test::formatFacts(QString::fromLatin1(fc.fixture));
        BackendOptions o;
        o.readOnly = true;
        o.now = parseTimeArg(toStd(facts.value(QStringLiteral("now")).toString()));
        const QString copy =
            lq::test::copyFixture(m_tmp, QStringLiteral("formats/") + QLatin1String(fc.fixture));
        return {openBackend(toStd(copy), o), openBackend(url(fc.schema), o)};
    }
    /// The Solid Queue case's both().
    std::pair<std::shared_ptr<QueueBackend>, std::shared_ptr<QueueBackend>> solidQueueBoth() {
        for (const auto& c : pgFormatCases())
            if (std::string(c.library) == "solid-queue")
                return both(c);
        throw std::runtime_error("no solid-queue case");
    }
    std::unique_ptr<PgQueue> open(const FormatCase& fc) {
        const QJsonObject facts = lq::test::formatFacts(QString::fromLatin1(fc.fixture));
        const auto now = parseTimeArg(toStd(facts.value(QStringLiteral("now")).toString()));
        PgOpenOptions o;
        o.clock = fixedClock(*now);
        return PgQueue::open(url(fc.schema), o);
    }

private slots:
    void initTestCase() {
        m_timer.start();
        m_pg = std::make_unique<PgServer>();
        if (!m_pg->ok())
            QSKIP(qPrintable(m_pg->error()));
        qInfo("server up in %lld ms", static_cast<long long>(m_timer.elapsed()));
        const QString dir = lq::test::dataDir() + QStringLiteral("/pg/");
        for (const auto& fc : pgFormatCases()) {
            const QString err = lq::test::loadPgFormat(*m_pg, fc, m_tmp);
            QVERIFY2(err.isEmpty(), qPrintable(err));
        }
        for (const auto& [schema, ddl] : {std::pair<const char*, const char*>{"gj", "good-job.sql"},
                                          {"", "pg-boss.sql"},
                                          {"", "graphile-worker.sql"}}) {
            const QString err =
                m_pg->execScript(readAll(dir + QLatin1String(ddl)), QLatin1String(schema));
            QVERIFY2(err.isEmpty(), qPrintable(err));
        }
        QVERIFY(m_pg->createDatabase(QStringLiteral("empty")));
        qInfo("schemas loaded in %lld ms", static_cast<long long>(m_timer.elapsed()));
    }

    void cleanupTestCase() {
        m_pg.reset();
        qInfo("whole suite with the server stopped: %lld ms",
              static_cast<long long>(m_timer.elapsed()));
    }

    void counts_data() {
        QTest::addColumn<int>("index");
        for (std::size_t i = 0; i < pgFormatCases().size(); ++i)
            QTest::newRow(pgFormatCases()[i].library) << static_cast<int>(i);
    }

    void counts() {
        QFETCH(int, index);
        const FormatCase& fc = pgFormatCases().at(static_cast<std::size_t>(index));
        const QJsonObject facts = lq::test::formatFacts(QString::fromLatin1(fc.fixture));
        auto q = open(fc);
        QCOMPARE(q->formatId(), std::string(fc.library));
        QVERIFY(q->countsSupported());
        QVERIFY(q->info().format != nullptr);
        QCOMPARE(q->found().schema, std::string(fc.schema));
        const Counts c = q->counts();
        const auto want = factsMap(facts.value(QStringLiteral("counts")).toObject(),
                                   facts.value(QStringLiteral("extra")).toObject(), c);
        QVERIFY2(asFacts(c) == want, (show(asFacts(c)) + " != " + show(want)).c_str());
        QCOMPARE(c.stored, facts.value(QStringLiteral("stored"))
                               .toObject()
                               .value(QStringLiteral("jobs"))
                               .toInteger());
        QCOMPARE(c.unknown, 0);
        QCOMPARE(c.stuck, facts.value(QStringLiteral("extra"))
                              .toObject()
                              .value(QStringLiteral("locked_expired"))
                              .toInteger());
        QCOMPARE(c.extra.at("locked_expired"), c.stuck);

        // Per named queue, and the queue names themselves.
        const QJsonObject perQueue = facts.value(QStringLiteral("per_queue")).toObject();
        std::vector<std::string> names;
        for (auto it = perQueue.begin(); it != perQueue.end(); ++it) {
            names.push_back(toStd(it.key()));
            const Counts qc = q->counts(kDefaultStuckAfterNs, toStd(it.key()));
            const auto wantQ = factsMap(it.value().toObject(), it.value().toObject(), qc);
            QVERIFY2(asFacts(qc) == wantQ,
                     (toStd(it.key()) + ": " + show(asFacts(qc)) + " != " + show(wantQ)).c_str());
        }
        std::sort(names.begin(), names.end());
        QCOMPARE(q->queueNames(), names);
        const Counts none = q->counts(kDefaultStuckAfterNs, "no-such-queue");
        QCOMPARE(none.stored, 0);
    }

    void listsLikeSqlite_data() { counts_data(); }

    void fleetLikeSqlite_data() { counts_data(); }

    /// The sidebar's and `lqctl fleet`'s scan (core::scanQueueFile) of the
    /// database and of the SQLite fixture its rows came from, at the same
    /// instant: the same counts, named queues, pauses and backlog age.
    void fleetLikeSqlite() {
        QFETCH(int, index);
        const FormatCase& fc = pgFormatCases().at(static_cast<std::size_t>(index));
        const QJsonObject facts = lq::test::formatFacts(QString::fromLatin1(fc.fixture));
        const TimeNs now = *parseTimeArg(toStd(facts.value(QStringLiteral("now")).toString()));
        const TimeNs stuck = 300 * kNsPerSecond;
        const QString copy =
            lq::test::copyFixture(m_tmp, QStringLiteral("formats/") + QLatin1String(fc.fixture));
        QVERIFY(scannedAlone(url(fc.schema)));
        const auto lite = scanQueueFile(toStd(copy), now, stuck);
        const auto pg = scanQueueFile(url(fc.schema), now, stuck);
        QCOMPARE(lite.size(), std::size_t(1));
        QCOMPARE(pg.size(), std::size_t(1));
        const FleetEntry& a = lite.front();
        const FleetEntry& b = pg.front();
        QVERIFY2(!b.skipped, b.reason.c_str());
        QCOMPARE(b.path, url(fc.schema));
        QCOMPARE(b.format, a.format);
        QCOMPARE(b.kind, a.kind);
        QCOMPARE(b.readOnlyReason, a.readOnlyReason); // writable, as the window opens it
        QCOMPARE(countsLine(b.counts), countsLine(a.counts));
        QCOMPARE(queuesLines(b.queues), queuesLines(a.queues));
        QCOMPARE(b.paused.size(), a.paused.size());
        QCOMPARE(b.oldestReadyInTime, a.oldestReadyInTime);
        QVERIFY(b.fileBytes > 0);
        QCOMPARE(b.walBytes, std::int64_t(0));

        // A schema without a queue: one skipped entry saying so.
        const auto none = scanQueueFile(url("public"), now, stuck);
        QCOMPARE(none.size(), std::size_t(1));
        QVERIFY(none.front().skipped);
        QVERIFY2(none.front().reason.find("no queue library") != std::string::npos,
                 none.front().reason.c_str());
    }

    /// Solid Queue's processes (the Processes tab, `lqctl processes`) on
    /// PostgreSQL and on the SQLite fixture, at the same instant: the same
    /// rows, liveness by process_alive_threshold, claims and warnings.
    void processesLikeSqlite() {
        const auto [lite, pg] = solidQueueBoth();
        const ProcessList a = lite->processes();
        const ProcessList b = pg->processes();
        QVERIFY2(b.notStored.empty(), b.notStored.c_str());
        QVERIFY(!a.processes.empty());
        QCOMPARE(b.aliveRule, a.aliveRule);
        QCOMPARE(b.warnings, a.warnings);
        QCOMPARE(b.orphanedClaims, a.orphanedClaims);
        QCOMPARE(b.processes.size(), a.processes.size());
        const auto line = [](const ProcessInfo& p) {
            return p.id + "|" + p.kind + "|" + p.name + "|" + p.host + "|" + std::to_string(p.pid) +
                   "|" + p.supervisorId.value_or("-") + "|" +
                   std::to_string(p.lastHeartbeat.value_or(0) / 1000) + "|" +
                   (p.alive ? "alive" : "dead") + "|" + std::to_string(p.claimed) + "|" +
                   std::accumulate(p.claimedIds.begin(), p.claimedIds.end(), std::string(),
                                   [](std::string x, const std::string& y) { return x + y + ","; });
        };
        std::size_t dead = 0;
        for (std::size_t i = 0; i < a.processes.size(); ++i) {
            QCOMPARE(line(b.processes[i]), line(a.processes[i]));
            QCOMPARE(b.processes[i].metadata, a.processes[i].metadata); // text, as stored
            dead += a.processes[i].alive ? 0 : 1;
        }
        qInfo("%zu processes, %zu dead", a.processes.size(), dead);
    }

    /// Solid Queue's recurring tasks (the Recurring tab, `lqctl
    /// recurring`) on PostgreSQL and on the SQLite fixture at the same
    /// instant: the same tasks, last, next and missed runs.
    void recurringLikeSqlite() {
        const auto [lite, pg] = solidQueueBoth();
        for (int tz : {0, 3600}) {
            const RecurringList a = lite->recurringTasks(tz);
            const RecurringList b = pg->recurringTasks(tz);
            QVERIFY2(b.notStored.empty(), b.notStored.c_str());
            QVERIFY(!a.tasks.empty());
            QCOMPARE(b.missedRule, a.missedRule);
            QCOMPARE(b.tasks.size(), a.tasks.size());
            const auto line = [](const RecurringTask& t) {
                const auto ms = [](std::optional<TimeNs> v) {
                    return v ? std::to_string(*v / 1000) : std::string("-");
                };
                return t.key + "|" + t.schedule + "|" + t.className + "|" + t.command + "|" +
                       t.queue + "|" + std::to_string(t.priority) + "|" +
                       (t.isStatic ? "static" : "dynamic") + "|" + t.description + "|" +
                       ms(t.lastRunNs) + "|" + ms(t.nextRunNs) + "|" + std::to_string(t.missed) +
                       "|" + t.why;
            };
            std::int64_t missed = 0;
            for (std::size_t i = 0; i < a.tasks.size(); ++i) {
                QCOMPARE(line(b.tasks[i]), line(a.tasks[i]));
                missed += a.tasks[i].missed;
            }
            qInfo("tz %d: %zu tasks, %lld runs missed", tz, a.tasks.size(),
                  static_cast<long long>(missed));
        }
    }

    /// The browser's reads through the one seam (core::openBackend) on
    /// PostgreSQL and on the SQLite fixture the rows came from, at the same
    /// instant: the same jobs, fields, states, orders, filters, dashboard,
    /// queue overview and error groups.
    void listsLikeSqlite() {
        QFETCH(int, index);
        const FormatCase& fc = pgFormatCases().at(static_cast<std::size_t>(index));
        const auto engines = both(fc);
        const std::shared_ptr<QueueBackend> lite = engines.first;
        const std::shared_ptr<QueueBackend> pg = engines.second;
        QVERIFY(pg->readOnly());
        QCOMPARE(pg->path(), url(fc.schema));
        QCOMPARE(pg->info().format, lite->info().format);

        // Every job, every field.
        const auto all = lite->orderedRowids(Filter{}, Sort{}, nullptr);
        QCOMPARE(pg->orderedRowids(Filter{}, Sort{}, nullptr), all);
        const auto a = lite->fetchRowids(all);
        const auto b = pg->fetchRowids(all);
        QCOMPARE(b.size(), a.size());
        for (std::size_t i = 0; i < a.size(); ++i)
            QCOMPARE(shown(b[i]), shown(a[i]));
        QCOMPARE(shown(*pg->get(a.back().messageId)), shown(a.back()));
        QVERIFY(!pg->get("999999999"));
        QVERIFY(!pg->get("not-an-id"));

        // Every sort key both ways, and the first page.
        for (SortKey k :
             {SortKey::Arrival, SortKey::InTime, SortKey::LockTime, SortKey::DoneTime,
              SortKey::Wait, SortKey::Processing, SortKey::Age, SortKey::Claim, SortKey::Status}) {
            for (bool desc : {false, true}) {
                const Sort s{k, desc};
                const auto want = lite->orderedRowids(Filter{}, s, nullptr);
                QVERIFY2(
                    pg->orderedRowids(Filter{}, s, nullptr) == want,
                    qPrintable(
                        QStringLiteral("sort key %1 desc %2").arg(static_cast<int>(k)).arg(desc)));
                const auto page = pg->firstPage(Filter{}, s, 5);
                QCOMPARE(page.size(), std::min<std::size_t>(5, want.size()));
                for (std::size_t i = 0; i < page.size(); ++i)
                    QCOMPARE(page[i].rowid, want[i]);
            }
        }

        // Each state, each extra state, stuck, each named queue, a search.
        std::vector<Filter> filters;
        for (State st : {State::Ready, State::Scheduled, State::Locked, State::Done, State::Failed,
                         State::Unknown}) {
            Filter f;
            f.states = {st};
            filters.push_back(f);
        }
        for (const auto& x : QueueFormat::of(lite->info()).extraStates()) {
            Filter f;
            f.extraStates = {x.name};
            filters.push_back(f);
        }
        Filter stuck;
        stuck.stuckOnly = true;
        filters.push_back(stuck);
        for (const auto& name : lite->queueNames()) {
            Filter f;
            f.queue = name;
            filters.push_back(f);
        }
        Filter search;
        search.search = a.front().jobName.value_or("x");
        filters.push_back(search);
        std::size_t nonEmpty = 0;
        for (const Filter& f : filters) {
            const auto want = lite->orderedRowids(f, Sort{}, nullptr);
            nonEmpty += want.empty() ? 0 : 1;
            QVERIFY2(pg->orderedRowids(f, Sort{}, nullptr) == want,
                     (f.queue + f.search + (f.states.empty() ? "" : stateName(f.states[0])) +
                      (f.extraStates.empty() ? "" : f.extraStates[0]))
                         .c_str());
        }
        QVERIFY(nonEmpty >= 5);

        // The dashboard, the queue overview and the error groups.
        DashboardQuery dq;
        const DashboardFigures dl = lite->dashboard(dq);
        const DashboardFigures dp = pg->dashboard(dq);
        QCOMPARE(asFacts(dp.counts), asFacts(dl.counts));
        QCOMPARE(dp.history, dl.history);
        QCOMPARE(dp.stats.wait.count, dl.stats.wait.count);
        QCOMPARE(dp.stats.wait.p50, dl.stats.wait.p50);
        QCOMPARE(dp.stats.processing.count, dl.stats.processing.count);
        QCOMPARE(dp.backlogSince, dl.backlogSince);
        const QueueOverview ol = lite->queueOverview(dq);
        const QueueOverview op = pg->queueOverview(dq);
        QCOMPARE(op.rows.size(), ol.rows.size());
        for (std::size_t i = 0; i < ol.rows.size(); ++i) {
            QCOMPARE(op.rows[i].queue, ol.rows[i].queue);
            QCOMPARE(asFacts(op.rows[i].counts), asFacts(ol.rows[i].counts));
            QCOMPARE(op.rows[i].waitCount, ol.rows[i].waitCount);
        }
        const auto gl = lite->errorGroups({});
        const auto gp = pg->errorGroups({});
        QCOMPARE(gp.size(), gl.size());
        for (std::size_t i = 0; i < gl.size(); ++i) {
            QCOMPARE(gp[i].error, gl[i].error);
            QCOMPARE(gp[i].count, gl[i].count);
            QCOMPARE(gp[i].messageIds, gl[i].messageIds);
        }

        // Opened read-only: a run refuses before anything is sent, and so
        // does a write not made on PostgreSQL yet.
        const Report run = pg->run(pg->planFilter(Action::Delete, Filter{}), nullptr, {});
        QCOMPARE(run.result.errorKind, std::optional<ErrorKind>(ErrorKind::ReadOnly));
        QCOMPARE(run.applied(), std::size_t(0));
        QCOMPARE(pg->count(Filter{}), static_cast<std::int64_t>(all.size()));
        const Report r = pg->setPaused("default", true);
        QVERIFY(r.failed());
        // Solid Queue's processes are read (processesLikeSqlite); the
        // other libraries' not yet.
        QCOMPARE(pg->processes().notStored.empty(), std::string(fc.library) == "solid-queue");
    }

    void whereLikeSqlite_data() { counts_data(); }

    /// Filter::where (core/jsonwhere.h) on both engines at the same instant:
    /// the same jobs for every operator on values taken from the jobs
    /// themselves (numbers, strings, true, false, null, a type that does
    /// not match, a path that is not there), and the same kind of error for
    /// what SQLite refuses. Quotes and semicolons in a key or a value are a
    /// key or a value: they match nothing and the tables stay.
    void whereLikeSqlite() {
        QFETCH(int, index);
        const FormatCase& fc = pgFormatCases().at(static_cast<std::size_t>(index));
        const auto engines = both(fc);
        const std::shared_ptr<QueueBackend> lite = engines.first;
        const std::shared_ptr<QueueBackend> pg = engines.second;
        const std::string library = fc.library;
        const std::string field = library == "solid-queue" ? "arguments" : "args";
        const std::string meta = library == "oban" ? "meta" : "metadata";

        // Conditions on each value the jobs hold, three levels down.
        std::vector<std::string> conds;
        std::set<std::string> seen;
        const auto add = [&](const std::string& c) {
            if (seen.insert(c).second)
                conds.push_back(c);
        };
        const auto quote = [](const std::string& s) {
            std::string q = "\"";
            for (char ch : s) {
                if (ch == '"' || ch == '\\')
                    q += '\\';
                q += ch;
            }
            return q + "\"";
        };
        std::function<void(const Json&, const std::string&, int)> walk;
        walk = [&](const Json& v, const std::string& path, int depth) {
            add(path);
            if (v.isObject() && depth < 3) {
                for (const auto& [k, x] : v.toObject())
                    walk(x,
                         path + (k.find_first_of(" .[]\"") == std::string::npos
                                     ? "." + k
                                     : "[" + quote(k) + "]"),
                         depth + 1);
            } else if (v.isArray() && depth < 3) {
                for (std::size_t i = 0; i < v.toArray().size() && i < 4; ++i)
                    walk(v.toArray()[i], path + "[" + std::to_string(i) + "]", depth + 1);
            } else if (v.isNumber()) {
                const std::string n = v.dump();
                for (const char* op : {" = ", " != ", " > ", " <= ", " >= "})
                    add(path + op + n);
                add(path + " = " + quote(n)); // text: no number matches
                add(path + " ~ " + n.substr(0, 1));
            } else if (v.isString()) {
                const std::string& s = v.toString();
                for (const char* op : {" = ", " != ", " < ", " >= "})
                    add(path + op + quote(s));
                if (s.size() > 2) {
                    std::string mid = s.substr(1, s.size() - 2);
                    std::transform(mid.begin(), mid.end(), mid.begin(), [](char ch) {
                        return ch >= 'a' && ch <= 'z' ? static_cast<char>(ch - 'a' + 'A') : ch;
                    });
                    add(path + " ~ " + mid);
                }
                add(path + " = 5");
                add(path + " != 5");
            } else if (v.isBool() || v.isNull()) {
                add(path + " = " + v.dump());
                add(path + " != " + v.dump());
                add(path + " != null");
            }
        };
        const auto all = lite->orderedRowids(Filter{}, Sort{}, nullptr);
        for (const Message& m : lite->fetchRowids(all)) {
            Json doc;
            try {
                doc = Json::parse(m.data);
            } catch (const std::exception&) {
                continue;
            }
            if (library == "solid-queue")
                doc = doc.isObject() && doc.contains("arguments") ? doc["arguments"] : Json();
            walk(doc, field, 0);
        }
        for (const std::string& c : std::vector<std::string>{
                 field, field + ".nope", field + "[0]", field + "[7]", field + " = null",
                 field + " != null", field + " ~ a", field + " ~ \"", field + " ~ %",
                 field + " ~ \"_aj_globalid\":\"gid", field + " ~ \"account_id\":", field + " > 0",
                 field + " != \"x\"", field + "[0] = 5", field + ".a.b.c = 1", meta,
                 meta + ".snoozed", meta + ".snoozed = 1", meta + " ~ {}",
                 // Quotes and semicolons: a value or a key, never SQL.
                 field + " = \"x'); DROP TABLE oban_jobs; --\"", field + "[\"a'b;c\"] = 1",
                 field + ".x = '; SELECT pg_sleep(5); --", field + " ~ '||(SELECT 1)||'",
                 field + "[\"\\\"]\"] = 1",
                 // Refused alike.
                 field + ".a' = 1", field + " < true", field + " >= null", field + ".",
                 field + "[x]", field + " =", "nosuchfield = 1", "$.a = 1", ""}) {
            if (!c.empty())
                add(c);
        }
        QVERIFY(conds.size() >= 40);
        const auto run = [](QueueBackend& b, const std::string& where) {
            Filter f;
            f.where = where;
            try {
                std::vector<std::int64_t> ids = b.orderedRowids(f, Sort{}, nullptr);
                return std::pair<std::vector<std::int64_t>, int>{std::move(ids), -1};
            } catch (const Error& e) {
                return std::pair<std::vector<std::int64_t>, int>{{}, static_cast<int>(e.kind())};
            }
        };
        std::size_t matching = 0, none = 0, refused = 0;
        for (const std::string& c : conds) {
            const auto want = run(*lite, c);
            const auto got = run(*pg, c);
            QVERIFY2(got == want, qPrintable(QString::fromStdString(
                                      c + ": " + std::to_string(got.first.size()) + " jobs / " +
                                      std::to_string(got.second) + " on PostgreSQL, " +
                                      std::to_string(want.first.size()) + " jobs / " +
                                      std::to_string(want.second) + " on SQLite")));
            if (want.second >= 0)
                ++refused;
            else if (want.first.empty())
                ++none;
            else if (want.first.size() < all.size())
                ++matching;
        }
        qInfo("%s: %zu conditions, %zu matching some jobs, %zu none, %zu refused", fc.library,
              conds.size(), matching, none, refused);
        QVERIFY(matching >= 10);
        QVERIFY(none >= 5);
        QVERIFY(refused >= 6);
        // A count and a page go through the same condition.
        Filter f;
        f.where = field + " ~ a";
        QCOMPARE(pg->count(f), lite->count(f));
        QCOMPARE(pg->count(Filter{}), static_cast<std::int64_t>(all.size()));
    }

    /// A Solid Queue job whose arguments are not JSON (a text column): it
    /// matches no condition on either engine, and the statement does not
    /// fail for the other jobs.
    void whereSkipsTextThatIsNotJson() {
        const FormatCase& fc = pgFormatCases().at(0);
        QCOMPARE(std::string(fc.library), std::string("solid-queue"));
        const QJsonObject facts = lq::test::formatFacts(QString::fromLatin1(fc.fixture));
        BackendOptions o;
        o.readOnly = true;
        o.now = parseTimeArg(toStd(facts.value(QStringLiteral("now")).toString()));
        const QString copy =
            lq::test::copyFixture(m_tmp, QStringLiteral("formats/") + QLatin1String(fc.fixture));
        const std::vector<std::pair<int, std::string>> broken = {
            {3, "{\"arguments\": [\"UserMailer\", "},
            {5, "{\"arguments\": [\"x\"]}}"},
            {7, "not json at all"},
            {8, "{\"arguments\": [01]}"},
            {9, "{\"arguments\": [\"a\tb\"]}"}};
        sqlite3* db = nullptr;
        QCOMPARE(sqlite3_open(QFile::encodeName(copy).constData(), &db), SQLITE_OK);
        for (const auto& [id, text] : broken) {
            sqlite3_stmt* st = nullptr;
            sqlite3_prepare_v2(db, "UPDATE solid_queue_jobs SET arguments = ?1 WHERE id = ?2", -1,
                               &st, nullptr);
            sqlite3_bind_text(st, 1, text.c_str(), -1, SQLITE_TRANSIENT);
            sqlite3_bind_int(st, 2, id);
            QCOMPARE(sqlite3_step(st), SQLITE_DONE);
            sqlite3_finalize(st);
        }
        sqlite3_close(db);
        auto admin = pg::Connection::open(toStd(m_pg->url()), {false, 60000, 5000, 60000, 10});
        const std::string table = std::string(fc.schema) + ".solid_queue_jobs";
        const pg::Result before = admin->exec("SELECT id, arguments FROM " + table +
                                              " WHERE id = ANY('{3,5,7,8,9}') ORDER BY id");
        QCOMPARE(before.rows(), 5);
        // Put back whatever happens below: the other tests read these rows.
        struct Restore {
            pg::Connection& c;
            const pg::Result& rows;
            std::string table;
            ~Restore() {
                for (int i = 0; i < rows.rows(); ++i)
                    c.exec("UPDATE " + table + " SET arguments = $1 WHERE id = $2::bigint",
                           {rows.text(i, 1), rows.text(i, 0)});
            }
        } restore{*admin, before, table};
        for (const auto& [id, text] : broken)
            admin->exec("UPDATE " + table + " SET arguments = $1 WHERE id = $2::bigint",
                        {text, std::to_string(id)});
        auto lite = openBackend(toStd(copy), o);
        auto pg = openBackend(url(fc.schema), o);
        for (const char* c :
             {"arguments", "arguments[0]", "arguments[0] = UserMailer", "arguments[0] != 5",
              "arguments ~ e", "arguments[0] < zzz", "arguments[9]"}) {
            Filter f;
            f.where = c;
            const auto want = lite->orderedRowids(f, Sort{}, nullptr);
            QVERIFY2(pg->orderedRowids(f, Sort{}, nullptr) == want, c);
            for (const auto& [id, text] : broken)
                QVERIFY(std::find(want.begin(), want.end(), id) == want.end());
        }
        Filter any;
        any.where = "arguments";
        QVERIFY(pg->count(any) > 10);
    }

    void bandsLikeSqlite_data() { counts_data(); }

    /// Filter::metric (a histogram bar): the same jobs in each band of each
    /// latency on both engines, alone and with a state or a condition.
    void bandsLikeSqlite() {
        QFETCH(int, index);
        const FormatCase& fc = pgFormatCases().at(static_cast<std::size_t>(index));
        const auto engines = both(fc);
        const std::shared_ptr<QueueBackend> lite = engines.first;
        const std::shared_ptr<QueueBackend> pg = engines.second;
        constexpr TimeNs ms = 1'000'000, s = 1000 * ms;
        const std::vector<TimeNs> edges = {0,
                                           ms,
                                           s,
                                           60 * s,
                                           3600 * s,
                                           86400 * s,
                                           1'000'000 * s,
                                           std::numeric_limits<TimeNs>::max()};
        std::size_t nonEmpty = 0, bands = 0;
        for (Filter::Metric m : {Filter::Metric::Wait, Filter::Metric::Processing,
                                 Filter::Metric::Total, Filter::Metric::TimeToFailure}) {
            for (std::size_t i = 0; i + 1 < edges.size(); ++i) {
                for (std::size_t j = i + 1; j < edges.size() && j <= i + 2; ++j) {
                    Filter f;
                    f.metric = m;
                    f.metricLo = edges[i];
                    f.metricHi = edges[j];
                    const auto want = lite->orderedRowids(f, Sort{}, nullptr);
                    ++bands;
                    nonEmpty += want.empty() ? 0 : 1;
                    const std::string what = "metric " + std::to_string(static_cast<int>(m)) +
                                             " [" + std::to_string(f.metricLo) + ", " +
                                             std::to_string(f.metricHi) + ")";
                    QVERIFY2(pg->orderedRowids(f, Sort{}, nullptr) == want, what.c_str());
                    QCOMPARE(pg->count(f), static_cast<std::int64_t>(want.size()));
                    f.states = {State::Done};
                    QVERIFY2(pg->orderedRowids(f, Sort{}, nullptr) ==
                                 lite->orderedRowids(f, Sort{}, nullptr),
                             (what + " DONE").c_str());
                }
            }
        }
        qInfo("%s: %zu bands, %zu with jobs", fc.library, bands, nonEmpty);
        QVERIFY(nonEmpty >= 3);
        // Any band, with a condition on the arguments.
        Filter f;
        f.metric = Filter::Metric::Wait;
        f.metricHi = std::numeric_limits<TimeNs>::max();
        f.where = std::string(fc.library) == "solid-queue" ? "arguments" : "args";
        QCOMPARE(pg->orderedRowids(f, Sort{}, nullptr), lite->orderedRowids(f, Sort{}, nullptr));
    }

    void statsOfAFilterLikeSqlite_data() { counts_data(); }

    /// `lqctl stats` and the dashboard of a filter other than a named queue:
    /// the same latencies as SQLite computes over the same jobs.
    void statsOfAFilterLikeSqlite() {
        QFETCH(int, index);
        const FormatCase& fc = pgFormatCases().at(static_cast<std::size_t>(index));
        const auto engines = both(fc);
        const std::shared_ptr<QueueBackend> lite = engines.first;
        const std::shared_ptr<QueueBackend> pg = engines.second;
        const std::string field = std::string(fc.library) == "solid-queue" ? "arguments" : "args";
        std::vector<Filter> filters(6);
        filters[0].states = {State::Done};
        filters[1].states = {State::Failed, State::Locked};
        filters[2].where = field + " ~ a";
        // Oban's and River's search reads the queue too, on both engines
        // ("e" found 26 River jobs on SQLite, 22 on PostgreSQL before).
        filters[3].search = "e";
        filters[4].metric = Filter::Metric::Wait;
        filters[4].metricHi = 3600LL * 1'000'000'000;
        filters[5].stuckOnly = true;
        for (std::size_t i = 0; i < filters.size(); ++i) {
            const QueueStats a = lite->stats(filters[i]);
            const QueueStats b = pg->stats(filters[i]);
            const std::string what = "filter " + std::to_string(i);
            for (const auto& [x, y] :
                 {std::pair{&b.wait, &a.wait}, std::pair{&b.processing, &a.processing},
                  std::pair{&b.total, &a.total}, std::pair{&b.timeToFailure, &a.timeToFailure}}) {
                QVERIFY2(x->count == y->count, what.c_str());
                QVERIFY2(x->p50 == y->p50 && x->p99 == y->p99 && x->max == y->max, what.c_str());
            }
            QVERIFY2(b.waitHist.counts == a.waitHist.counts, what.c_str());
            QVERIFY2(b.doneLastHour == a.doneLastHour, what.c_str());
            QVERIFY2(b.failedLastHour == a.failedLastHour, what.c_str());
            QVERIFY2(b.oldestReadyInTime == a.oldestReadyInTime, what.c_str());
            QVERIFY2(b.firstTime == a.firstTime && b.lastTime == a.lastTime, what.c_str());
        }
    }

    /// Graphile Worker, PostgreSQL only: rows in each of its states at a
    /// fixed instant, read back through the seam (core::openBackend).
    void graphileWorker() {
        const TimeNs now = *parseTimeArg("2026-12-01T12:00:00Z");
        // tests/data/pg/graphile-worker-rows.sql: one job in each state.
        const QString err = m_pg->execScript(
            readAll(lq::test::dataDir() + QStringLiteral("/pg/graphile-worker-rows.sql")));
        QVERIFY2(err.isEmpty(), qPrintable(err));

        BackendOptions o;
        o.now = now;
        auto q = openBackend(url("graphile_worker"), o);
        QCOMPARE(std::string(QueueFormat::of(q->info()).id()), std::string("graphile-worker"));
        QCOMPARE(q->formatName(), std::string("graphile-worker"));
        const Counts c = q->counts(kDefaultStuckAfterNs, {});
        QCOMPARE(c.stored, 6);
        QCOMPARE(c.ready, 2);
        QCOMPARE(c.scheduled, 1);
        QCOMPARE(c.locked, 2);
        QCOMPARE(c.stuck, 1);
        QCOMPARE(c.failed, 1);
        QCOMPARE(c.done + c.unknown, 0);
        QCOMPARE(q->queueNames(), std::vector<std::string>{"serial"});
        QCOMPARE(q->counts(kDefaultStuckAfterNs, "serial").ready, 1);

        const auto ids = [&](const Filter& f) { return q->orderedRowids(f, Sort{}, nullptr); };
        Filter failed;
        failed.states = {State::Failed};
        QCOMPARE(ids(failed), std::vector<std::int64_t>{5});
        Filter stuck;
        stuck.stuckOnly = true;
        QCOMPARE(ids(stuck), std::vector<std::int64_t>{4});
        Filter serial;
        serial.queue = "serial";
        QCOMPARE(ids(serial), std::vector<std::int64_t>{6});
        Filter byKey;
        byKey.search = "IMG-42";
        QCOMPARE(ids(byKey), std::vector<std::int64_t>{6});
        QCOMPARE(ids(Filter{}).size(), std::size_t(6));

        const Message locked = *q->get("3");
        QCOMPARE(locked.state, State::Locked);
        QCOMPARE(locked.jobName.value_or(""), std::string("resize_image"));
        QCOMPARE(locked.waitNs(), std::optional<TimeNs>(60 * kNsPerSecond));
        QCOMPARE(locked.leaseExpiry,
                 std::optional<TimeNs>(now - 60 * kNsPerSecond + 4 * 3600 * kNsPerSecond));
        QCOMPARE(q->get("4")->extraState, std::string("locked_expired"));
        QCOMPARE(q->get("6")->idempotencyKey.value_or(""), std::string("img-42"));
        QCOMPARE(q->get("5")->lastError.value_or(""),
                 std::string("Error: SMTP 550 mailbox unavailable"));
        const auto groups = q->errorGroups({});
        QCOMPARE(groups.size(), std::size_t(1));
        QCOMPARE(groups.front().count, 1);
        const DashboardFigures d = q->dashboard(DashboardQuery{});
        QCOMPARE(d.counts.locked, 2);
        QCOMPARE(d.stats.wait.count, 2);
    }

    /// GoodJob, PostgreSQL only: a job in each of its statuses at a fixed
    /// instant (tests/data/pg/good-job-rows.sql), read through the seam;
    /// a running job is held by its worker's advisory lock, which a second
    /// session takes here as GoodJob's worker does.
    void goodJob() {
        const TimeNs now = *parseTimeArg("2026-12-01T12:00:00Z");
        const QString err = m_pg->execScript(
            readAll(lq::test::dataDir() + QStringLiteral("/pg/good-job-rows.sql")));
        QVERIFY2(err.isEmpty(), qPrintable(err));
        const std::string a3 = "a3000000-0000-4000-8000-000000000003";
        auto worker = pg::Connection::open(url("gj"));
        worker->exec("SELECT pg_advisory_lock(('x' || substr(md5('good_jobs-' || $1), 1, "
                     "16))::bit(64)::bigint)",
                     {a3});
        // ... and its process's lock, as a running GoodJob process holds it.
        worker->exec("SELECT pg_advisory_lock(('x' || substr(md5('good_job_processes-' || $1), "
                     "1, 16))::bit(64)::bigint)",
                     {"c1000000-0000-4000-8000-000000000001"});

        BackendOptions o;
        o.now = now;
        auto q = openBackend(url("gj"), o);
        QCOMPARE(q->formatName(), std::string("good-job"));
        QCOMPARE(std::string(QueueFormat::of(q->info()).id()), std::string("good-job"));
        QVERIFY(!q->readOnly() || !q->info().readOnlyReason.empty());
        const Counts c = q->counts(kDefaultStuckAfterNs, {});
        QCOMPARE(c.stored, 7);
        QCOMPARE(c.ready, 1);
        QCOMPARE(c.scheduled, 2);
        QCOMPARE(c.locked, 2);
        QCOMPARE(c.stuck, 1);
        QCOMPARE(c.done, 1);
        QCOMPARE(c.failed, 1);
        QCOMPARE(c.unknown, 0);
        QCOMPARE(c.extra.at("retried"), 1);
        QCOMPARE(q->queueNames(), (std::vector<std::string>{"default", "mailers"}));
        QCOMPARE(q->counts(kDefaultStuckAfterNs, "mailers").scheduled, 1);

        // Ids are the UUIDs' first 60 bits; the message id is the UUID.
        const auto ids = [&](const Filter& f) { return q->orderedRowids(f, Sort{}, nullptr); };
        const auto uuids = [&](const Filter& f) {
            std::vector<std::string> out;
            for (const Message& m : q->fetchRowids(ids(f)))
                out.push_back(m.messageId.substr(0, 2));
            return out;
        };
        Filter stuck;
        stuck.stuckOnly = true;
        QCOMPARE(uuids(stuck), std::vector<std::string>{"a4"});
        Filter failed;
        failed.states = {State::Failed};
        QCOMPARE(uuids(failed), std::vector<std::string>{"a6"});
        Filter retried;
        retried.extraStates = {"retried"};
        QCOMPARE(uuids(retried), std::vector<std::string>{"a7"});
        Filter search;
        search.search = "A5000000";
        QCOMPARE(uuids(search), std::vector<std::string>{"a5"});
        // Arrival order is the enqueue time: a4 (07:00) first, a2 (11:59) last.
        QCOMPARE(uuids(Filter{}),
                 (std::vector<std::string>{"a4", "a5", "a6", "a7", "a1", "a3", "a2"}));
        QCOMPARE(q->firstPage(Filter{}, Sort{}, 1).front().messageId,
                 std::string("a4000000-0000-4000-8000-000000000004"));

        const Message running = *q->get(a3);
        QCOMPARE(running.rowid, *pg::uuidRowidOf(a3));
        QCOMPARE(running.rowid, std::int64_t(0xa30000000000400));
        QCOMPARE(running.state, State::Locked);
        QCOMPARE(running.extraState, std::string());
        QCOMPARE(running.statusText, std::string("running"));
        QCOMPARE(running.jobName.value_or(""), std::string("ResizeJob"));
        QCOMPARE(running.waitNs(), std::optional<TimeNs>(60 * kNsPerSecond));
        QCOMPARE(q->get("A3000000-0000-4000-8000-000000000003")->messageId, a3);
        QVERIFY(!q->get("a3000000-0000-4000-8000-00000000000f"));
        QVERIFY(!q->get("not-a-uuid"));
        const Message done = *q->get("a5000000-0000-4000-8000-000000000005");
        QCOMPARE(done.state, State::Done);
        QCOMPARE(done.processingNs(), std::optional<TimeNs>(2 * kNsPerSecond));
        QCOMPARE(q->get("a6000000-0000-4000-8000-000000000006")->lastError.value_or(""),
                 std::string("RuntimeError: boom"));
        const auto groups = q->errorGroups({});
        QCOMPARE(groups.size(), std::size_t(1));
        QCOMPARE(groups.front().count, 1);
        QCOMPARE(q->dashboard(DashboardQuery{}).counts.locked, 2);

        // Its processes: alive while the lock is held (pg_locks), the
        // other one long dead.
        const ProcessList procs = q->processes();
        QVERIFY2(procs.notStored.empty(), procs.notStored.c_str());
        QCOMPARE(procs.processes.size(), std::size_t(2));
        QCOMPARE(procs.processes[0].host, std::string("web-0"));
        QVERIFY(!procs.processes[0].alive);
        QCOMPARE(procs.processes[1].host, std::string("web-1"));
        QCOMPARE(procs.processes[1].pid, std::int64_t(4242));
        QVERIFY(procs.processes[1].alive);
        QVERIFY(procs.warnings.empty());

        // The worker gone: its advisory locks go with its session, the job
        // is stuck (the next worker takes it again) and the process dead.
        worker.reset();
        QTRY_COMPARE_WITH_TIMEOUT(q->get(a3)->extraState, std::string("locked_expired"), 3000);
        QVERIFY(!q->processes().processes[1].alive);
        QCOMPARE(q->processes().warnings.size(), std::size_t(1));

        // GoodJob's own actions are offered (tst_pgactions goodJob runs them).
        QCOMPARE(q->whyNot(Action::Retry), std::string());
        QVERIFY(!q->whyNot(Action::Release).empty());
    }

    /// GoodJob 4's pauses (GoodJob::Setting.pause): the queues of its
    /// "pauses" setting are paused queues; its job-class and label pauses
    /// name no queue.
    void goodJobPauses() {
        QVERIFY(m_pg->createDatabase(QStringLiteral("gjpause")));
        const QString err = m_pg->execScript(
            readAll(lq::test::dataDir() + QStringLiteral("/pg/good-job.sql")) +
                QStringLiteral(
                    "; INSERT INTO good_job_settings (created_at, updated_at, key, value) VALUES "
                    "(now(), now(), 'pauses', '{\"queues\": [\"mailers\", \"Low\"], "
                    "\"job_classes\": [\"ReportJob\"], \"labels\": []}')"),
            QStringLiteral("gj"), QStringLiteral("gjpause"));
        QVERIFY2(err.isEmpty(), qPrintable(err));
        BackendOptions o;
        o.readOnly = true;
        auto q = openBackend(toStd(m_pg->url(QStringLiteral("gjpause"))) + "?schema=gj", o);
        const std::vector<PausedQueue> paused = q->pausedQueues();
        QCOMPARE(paused.size(), std::size_t(2));
        QCOMPARE(paused[0].queue, std::string("Low")); // by bytes, as on SQLite
        QCOMPARE(paused[1].queue, std::string("mailers"));
        QVERIFY(!paused[0].since);
        // Resumed (GoodJob::Setting.unpause): none.
        QVERIFY(m_pg->execScript(QStringLiteral("UPDATE good_job_settings SET value = "
                                                "jsonb_set(value, '{queues}', '[]')"),
                                 QStringLiteral("gj"), QStringLiteral("gjpause"))
                    .isEmpty());
        QVERIFY(q->pausedQueues().empty());
    }

    /// GoodJob 4's lock columns (its skiplocked strategy takes no advisory
    /// lock): a running job is held while the process it names is active
    /// (GoodJob::Process.active: no lock type, updated within 5 minutes).
    void goodJob4() {
        QFile ddl(lq::test::dataDir() + QStringLiteral("/pg/good-job.sql"));
        QVERIFY(ddl.open(QIODevice::ReadOnly));
        // A database of its own: the other tests count the libraries of lqtest.
        QVERIFY(m_pg->createDatabase(QStringLiteral("gj4db")));
        const QString err = m_pg->execScript(
            QString::fromUtf8(ddl.readAll()) +
                QStringLiteral(
                    "; ALTER TABLE good_jobs ADD locked_by_id uuid, ADD locked_at timestamp(6), "
                    "ADD lock_type smallint; ALTER TABLE good_job_processes ADD lock_type "
                    "smallint; INSERT INTO good_job_processes (id, state, created_at, updated_at) "
                    "VALUES ('c4000000-0000-4000-8000-000000000001', '{\"hostname\": "
                    "\"web-4\", \"pid\": 44}', '2026-12-01 08:00', '2026-12-01 11:59'), "
                    "('c4000000-0000-4000-8000-000000000000', '{\"hostname\": \"web-3\", "
                    "\"pid\": 33}', '2026-11-30 08:00', '2026-11-30 09:00'); INSERT INTO "
                    "good_jobs (id, queue_name, job_class, scheduled_at, performed_at, "
                    "locked_by_id, lock_type, created_at, updated_at) VALUES "
                    "('d1000000-0000-4000-8000-000000000001', 'default', 'A', '2026-12-01 "
                    "11:58', '2026-12-01 11:58', 'c4000000-0000-4000-8000-000000000001', 1, "
                    "'2026-12-01 11:58', '2026-12-01 11:58'), "
                    "('d2000000-0000-4000-8000-000000000002', 'default', 'A', '2026-11-30 "
                    "08:58', '2026-11-30 08:58', 'c4000000-0000-4000-8000-000000000000', 1, "
                    "'2026-11-30 08:58', '2026-11-30 08:58'), "
                    "('d3000000-0000-4000-8000-000000000003', 'default', 'A', '2026-12-01 "
                    "11:00', '2026-12-01 11:00', NULL, NULL, '2026-12-01 11:00', '2026-12-01 "
                    "11:00')"),
            QStringLiteral("gj4"), QStringLiteral("gj4db"));
        QVERIFY2(err.isEmpty(), qPrintable(err));
        BackendOptions o;
        o.now = parseTimeArg("2026-12-01T12:00:00Z");
        auto q = openBackend(toStd(m_pg->url(QStringLiteral("gj4db"))) + "?schema=gj4", o);
        const Counts c = q->counts(kDefaultStuckAfterNs, {});
        QCOMPARE(c.locked, 3);
        QCOMPARE(c.stuck, 2);
        QCOMPARE(q->get("d1000000-0000-4000-8000-000000000001")->extraState, std::string());
        QCOMPARE(q->get("d2000000-0000-4000-8000-000000000002")->extraState,
                 std::string("locked_expired"));
        const ProcessList procs = q->processes();
        QCOMPARE(procs.processes.size(), std::size_t(2));
        QCOMPARE(procs.processes[0].host, std::string("web-3"));
        QVERIFY(!procs.processes[0].alive);
        QCOMPARE(procs.processes[0].claimed, std::int64_t(1));
        QCOMPARE(procs.processes[1].host, std::string("web-4"));
        QVERIFY(procs.processes[1].alive);
        QCOMPARE(procs.processes[1].claimed, std::int64_t(1));
    }

    /// pg-boss, PostgreSQL only: a job in each of its states at a fixed
    /// instant (tests/data/pg/pg-boss-rows.sql), read through the seam.
    void pgBoss() {
        const TimeNs now = *parseTimeArg("2026-12-01T12:00:00Z");
        const QString err =
            m_pg->execScript(readAll(lq::test::dataDir() + QStringLiteral("/pg/pg-boss-rows.sql")));
        QVERIFY2(err.isEmpty(), qPrintable(err));
        BackendOptions o;
        o.now = now;
        auto q = openBackend(url("pgboss"), o);
        QCOMPARE(q->formatName(), std::string("pg-boss"));
        const Counts c = q->counts(kDefaultStuckAfterNs, {});
        QCOMPARE(c.stored, 9);
        QCOMPARE(c.ready, 2);
        QCOMPARE(c.scheduled, 2);
        QCOMPARE(c.locked, 2);
        QCOMPARE(c.stuck, 1);
        QCOMPARE(c.done, 1);
        QCOMPARE(c.failed, 1);
        QCOMPARE(c.unknown, 0);
        QCOMPARE(c.extra.at("retry"), 1);
        QCOMPARE(c.extra.at("cancelled"), 1);
        QCOMPARE(q->queueNames(), (std::vector<std::string>{"email", "reports"}));
        QCOMPARE(q->counts(kDefaultStuckAfterNs, "reports").ready, 1);

        const auto first = [&](const Filter& f) {
            std::vector<std::string> out;
            for (const Message& m : q->list(f, Sort{}, 0, 100))
                out.push_back(m.messageId.substr(0, 2));
            return out;
        };
        Filter stuck;
        stuck.stuckOnly = true;
        QCOMPARE(first(stuck), std::vector<std::string>{"b4"});
        Filter cancelled;
        cancelled.extraStates = {"cancelled"};
        QCOMPARE(first(cancelled), std::vector<std::string>{"b8"});
        Filter byKey;
        byKey.search = "REPORT-2026";
        QCOMPARE(first(byKey), std::vector<std::string>{"b9"});
        QCOMPARE(q->count(Filter{}), std::int64_t(9));

        const Message active = *q->get("b3000000-0000-4000-8000-000000000003");
        QCOMPARE(active.state, State::Locked);
        QCOMPARE(active.queueName.value_or(""), std::string("email"));
        QCOMPARE(active.leaseExpiry, std::optional<TimeNs>(now + 14 * 60 * kNsPerSecond));
        QCOMPARE(q->get("b4000000-0000-4000-8000-000000000004")->extraState,
                 std::string("locked_expired"));
        QCOMPARE(q->get("b6000000-0000-4000-8000-000000000006")->lastError.value_or(""),
                 std::string("SMTP 550"));
        const Message retry = *q->get("b7000000-0000-4000-8000-000000000007");
        QCOMPARE(retry.state, State::Scheduled);
        QCOMPARE(retry.extraState, std::string("retry"));
        QCOMPARE(retry.attempts, std::int64_t(1));
        QCOMPARE(retry.lastError.value_or(""), std::string("connection reset"));
        QCOMPARE(q->get("b9000000-0000-4000-8000-000000000009")->idempotencyKey.value_or(""),
                 std::string("report-2026-11"));
        QCOMPARE(q->get("b5000000-0000-4000-8000-000000000005")->processingNs(),
                 std::optional<TimeNs>(5 * kNsPerSecond));
    }

    /// Graphile Worker's schema as its own npm package makes it (all 20
    /// migrations, 0.18.0) with jobs added and run by the library itself
    /// (tests/data/FIXTURES.md "pg/graphile-worker-npm.sql"): the counts,
    /// the named queue, the job key, the error and the lock of a killed
    /// worker as the facts state them.
    void graphileWorkerFromNpm() {
        QFile dump(lq::test::dataDir() + QStringLiteral("/pg/graphile-worker-npm.sql"));
        QVERIFY(dump.open(QIODevice::ReadOnly));
        QVERIFY(m_pg->createDatabase(QStringLiteral("gwnpm")));
        const QString err =
            m_pg->execScript(QString::fromUtf8(dump.readAll()), {}, QStringLiteral("gwnpm"));
        QVERIFY2(err.isEmpty(), qPrintable(err));
        BackendOptions o;
        o.readOnly = true;
        o.now = parseTimeArg("2026-12-05T21:45:00Z");
        auto q = openBackend(toStd(m_pg->url(QStringLiteral("gwnpm"))), o);
        QCOMPARE(q->formatName(), std::string("graphile-worker"));
        const Counts c = q->counts(kDefaultStuckAfterNs, {});
        QCOMPARE(c.ready, std::int64_t(3));
        QCOMPARE(c.scheduled, std::int64_t(1));
        QCOMPARE(c.locked, std::int64_t(1));
        QCOMPARE(c.failed, std::int64_t(2));
        QCOMPARE(c.stored, std::int64_t(7));
        QCOMPARE(q->counts(kDefaultStuckAfterNs, "emails").ready, std::int64_t(2));
        const auto job9 = q->get("9");
        QVERIFY(job9);
        QCOMPARE(job9->state, State::Scheduled);
        QCOMPARE(job9->idempotencyKey, std::optional<std::string>("report-2026-11"));
        const auto job4 = q->get("4");
        QVERIFY(job4);
        QCOMPARE(job4->state, State::Failed);
        QCOMPARE(job4->lastError,
                 std::optional<std::string>("boom: invoice 41 could not be rendered"));
        const auto job10 = q->get("10");
        QVERIFY(job10 && job10->lockTime && job10->leaseExpiry);
        QCOMPARE(job10->state, State::Locked);
        QCOMPARE(*job10->leaseExpiry - *job10->lockTime, 4 * 3600 * kNsPerSecond);

        // Live refresh: the library's own add_job() notifies jobs:insert,
        // and the window's listener hears it (core/pg/listen.h).
        std::atomic<int> heard{0};
        q->setChangeListener([&heard](bool) { ++heard; });
        const std::int64_t before = q->dataVersion();
        auto admin = pg::Connection::open(toStd(m_pg->url(QStringLiteral("gwnpm"))),
                                          {false, 60000, 5000, 60000, 10});
        QElapsedTimer t;
        t.start();
        int added = 0;
        while (heard.load() == 0 && t.elapsed() < 3000) {
            admin->exec("SELECT graphile_worker.add_job('send_email', '{\"to\": \"a@b.c\"}')");
            ++added;
            QTest::qWait(100);
        }
        QVERIFY2(heard.load() > 0, "add_job's notification was not heard within 3 s");
        qInfo("heard add_job's notification (%d job(s) added)", added);
        QVERIFY(q->dataVersion() != before);
    }

    /// pg-boss's schema as its own npm package makes it (12.27.0, schema
    /// version 37: `job` partitioned by queue, its functions and all its
    /// tables) with jobs sent and run by the library itself
    /// (tests/data/FIXTURES.md "pg/pg-boss-npm.sql"): the counts per state
    /// and queue, the stuck job of a killed worker, the errors, the retry
    /// and the singleton key as the facts state them.
    void pgBossNpm() {
        QFile dump(lq::test::dataDir() + QStringLiteral("/pg/pg-boss-npm.sql"));
        QVERIFY(dump.open(QIODevice::ReadOnly));
        // A database of its own: the other tests count the libraries of lqtest.
        QVERIFY(m_pg->createDatabase(QStringLiteral("pgbnpm")));
        const QString err =
            m_pg->execScript(QString::fromUtf8(dump.readAll()), {}, QStringLiteral("pgbnpm"));
        QVERIFY2(err.isEmpty(), qPrintable(err));
        const TimeNs now = *parseTimeArg("2026-12-06T15:05:00Z");
        BackendOptions o;
        o.readOnly = true;
        o.now = now;
        auto q = openBackend(toStd(m_pg->url(QStringLiteral("pgbnpm"))), o);
        QCOMPARE(q->formatName(), std::string("pg-boss"));
        QCOMPARE(std::string(QueueFormat::of(q->info()).id()), std::string("pg-boss"));
        const Counts c = q->counts(kDefaultStuckAfterNs, {});
        QCOMPARE(c.stored, std::int64_t(9));
        QCOMPARE(c.ready, std::int64_t(2));
        QCOMPARE(c.scheduled, std::int64_t(2));
        QCOMPARE(c.locked, std::int64_t(2));
        QCOMPARE(c.stuck, std::int64_t(1));
        QCOMPARE(c.done, std::int64_t(1));
        QCOMPARE(c.failed, std::int64_t(1));
        QCOMPARE(c.unknown, std::int64_t(0));
        QCOMPARE(c.extra.at("retry"), std::int64_t(1));
        QCOMPARE(c.extra.at("cancelled"), std::int64_t(1));
        QCOMPARE(q->queueNames(), (std::vector<std::string>{"email", "export", "reports"}));
        const Counts email = q->counts(kDefaultStuckAfterNs, "email");
        QCOMPARE(email.ready, std::int64_t(1));
        QCOMPARE(email.scheduled, std::int64_t(1));
        QCOMPARE(email.locked, std::int64_t(0));
        QCOMPARE(email.done, std::int64_t(1));
        QCOMPARE(email.failed, std::int64_t(1));
        QCOMPARE(email.stored, std::int64_t(4));
        QCOMPARE(email.extra.at("retry"), std::int64_t(1));
        const Counts reports = q->counts(kDefaultStuckAfterNs, "reports");
        QCOMPARE(reports.ready, std::int64_t(1));
        QCOMPARE(reports.scheduled, std::int64_t(1));
        QCOMPARE(reports.extra.at("cancelled"), std::int64_t(1));
        QCOMPARE(reports.stored, std::int64_t(3));
        const Counts exports = q->counts(kDefaultStuckAfterNs, "export");
        QCOMPARE(exports.locked, std::int64_t(2));
        QCOMPARE(exports.stuck, std::int64_t(1));
        QCOMPARE(exports.stored, std::int64_t(2));

        const auto first = [&](const Filter& f) {
            std::vector<std::string> out;
            for (const Message& m : q->list(f, Sort{}, 0, 100))
                out.push_back(m.messageId.substr(0, 2));
            return out;
        };
        Filter stuck;
        stuck.stuckOnly = true;
        QCOMPARE(first(stuck), std::vector<std::string>{"b8"});
        Filter cancelled;
        cancelled.extraStates = {"cancelled"};
        QCOMPARE(first(cancelled), std::vector<std::string>{"b7"});
        Filter failed;
        failed.states = {State::Failed};
        QCOMPARE(first(failed), std::vector<std::string>{"b2"});
        Filter byKey;
        byKey.search = "REPORT-2026";
        QCOMPARE(first(byKey), std::vector<std::string>{"b5"});
        QCOMPARE(q->count(Filter{}), std::int64_t(9));

        // Taken by a worker killed with kill -9: both active, b8 past
        // started_on + expire_seconds (10 s), b9 not (6 h).
        const Message b8 = *q->get("b8000000-0000-4000-8000-000000000008");
        QCOMPARE(b8.state, State::Locked);
        QCOMPARE(b8.extraState, std::string("locked_expired"));
        QVERIFY(b8.lockTime && b8.leaseExpiry);
        QCOMPARE(*b8.leaseExpiry - *b8.lockTime, 10 * kNsPerSecond);
        const Message b9 = *q->get("b9000000-0000-4000-8000-000000000009");
        QCOMPARE(b9.state, State::Locked);
        QCOMPARE(b9.extraState, std::string());
        QCOMPARE(b9.queueName.value_or(""), std::string("export"));
        QVERIFY(b9.lockTime && b9.leaseExpiry);
        QCOMPARE(*b9.leaseExpiry - *b9.lockTime, 6 * 3600 * kNsPerSecond);
        QVERIFY(*b9.leaseExpiry > now);

        // The failed job: thrown twice, retry_limit 1; its Error's message.
        const Message b2 = *q->get("b2000000-0000-4000-8000-000000000002");
        QCOMPARE(b2.state, State::Failed);
        QCOMPARE(b2.attempts, std::int64_t(1));
        QCOMPARE(b2.maxAttempts, std::optional<std::int64_t>(1));
        QCOMPARE(b2.lastError.value_or(""), std::string("SMTP 550 mailbox unavailable"));
        // Failed once, its retry an hour later: retry_count is raised only
        // when the job is fetched again, so still 0.
        const Message b3 = *q->get("b3000000-0000-4000-8000-000000000003");
        QCOMPARE(b3.state, State::Scheduled);
        QCOMPARE(b3.extraState, std::string("retry"));
        QCOMPARE(b3.attempts, std::int64_t(0));
        QCOMPARE(b3.lastError.value_or(""), std::string("connection reset"));
        QCOMPARE(q->get("b1000000-0000-4000-8000-000000000001")->state, State::Done);
        const Message b4 = *q->get("b4000000-0000-4000-8000-000000000004");
        QCOMPARE(b4.state, State::Ready);
        QCOMPARE(b4.priority, std::optional<std::int64_t>(5));
        const Message b5 = *q->get("b5000000-0000-4000-8000-000000000005");
        QCOMPARE(b5.state, State::Ready);
        QCOMPARE(b5.idempotencyKey.value_or(""), std::string("report-2026-11"));
        const Message b6 = *q->get("b6000000-0000-4000-8000-000000000006");
        QCOMPARE(b6.state, State::Scheduled);
        QCOMPARE(b6.extraState, std::string());
        QCOMPARE(q->get("b7000000-0000-4000-8000-000000000007")->extraState,
                 std::string("cancelled"));
        const auto groups = q->errorGroups({});
        QCOMPARE(groups.size(), std::size_t(1));
        QCOMPARE(groups.front().count, 1);
    }

    /// Counts from the server's statistics where a table is huge (issue 41:
    /// "an estimate shown as an estimate until the exact one arrives"):
    /// Oban's state column, Solid Queue's execution tables and pg-boss's
    /// partitioned job table (the schema its npm package makes), each of
    /// 120,000 jobs after ANALYZE, within 1 % of the table's rows of the
    /// exact counts, state by state, for the whole database and one named
    /// queue.
    /// A small table has no estimate: its exact counts are quick.
    void estimatesHugeTables() {
        static constexpr int kRows = 120'000;
        static_assert(kRows > pg::kEstimateFromRows);
        QVERIFY(m_pg->createDatabase(QStringLiteral("estdb")));
        const QString dir = lq::test::dataDir() + QStringLiteral("/pg/");
        const QString db = QStringLiteral("estdb");
        QString err =
            m_pg->execScript(QStringLiteral("CREATE SCHEMA oban; CREATE SCHEMA sq; CREATE "
                                            "SCHEMA small"),
                             {}, db);
        QVERIFY2(err.isEmpty(), qPrintable(err));
        // Oban: 90 % completed, 5 % available, 2 % discarded, 2 % scheduled
        // a day ahead, 1 % executing; every seventh job in queue "mail".
        const QString oban =
            QStringLiteral(
                "INSERT INTO oban_jobs (state, queue, worker, args, scheduled_at) SELECT (CASE "
                "WHEN i % 100 < 90 THEN 'completed' WHEN i % 100 < 95 THEN 'available' WHEN i % "
                "100 < 97 THEN 'discarded' WHEN i % 100 < 99 THEN 'scheduled' ELSE 'executing' "
                "END)::oban_job_state, CASE WHEN i % 7 = 0 THEN 'mail' ELSE 'default' END, 'W', "
                "'{}', timezone('UTC', now()) + CASE WHEN i % 100 IN (97, 98) THEN interval '1 "
                "day' ELSE interval '-1 hour' END FROM generate_series(1, %1) i; ANALYZE "
                "oban_jobs")
                .arg(kRows);
        err = m_pg->execScript(readAll(dir + QStringLiteral("oban.sql")) + u';' + oban,
                               QStringLiteral("oban"), db);
        QVERIFY2(err.isEmpty(), qPrintable(err));
        err = m_pg->execScript(readAll(dir + QStringLiteral("oban.sql")) +
                                   QStringLiteral(";INSERT INTO oban_jobs (worker, args) SELECT "
                                                  "'W', '{}' FROM generate_series(1, 50); ANALYZE"),
                               QStringLiteral("small"), db);
        QVERIFY2(err.isEmpty(), qPrintable(err));
        err = m_pg->execScript(readAll(dir + QStringLiteral("solid-queue.sql")) + u';' +
                                   lq::test::solidQueueGrowSql(kRows),
                               QStringLiteral("sq"), db);
        QVERIFY2(err.isEmpty(), qPrintable(err));
        // pg-boss: its own schema, the jobs in its default partition.
        err = m_pg->execScript(
            readAll(dir + QStringLiteral("pg-boss-npm.sql")) +
                QStringLiteral(";INSERT INTO pgboss.job (name, state, data) SELECT CASE "
                               "WHEN i % 7 = 0 THEN 'email' ELSE 'reports' END, (CASE "
                               "WHEN i % 100 < 80 THEN 'completed' WHEN i % 100 < 90 "
                               "THEN 'created' WHEN i % 100 < 95 THEN 'failed' WHEN i % "
                               "100 < 98 THEN 'active' WHEN i % 100 < 99 THEN 'retry' "
                               "ELSE 'cancelled' END)::pgboss.job_state, '{}' FROM "
                               "generate_series(1, %1) i; ANALYZE pgboss.job")
                    .arg(kRows),
            {}, db);
        QVERIFY2(err.isEmpty(), qPrintable(err));

        BackendOptions o;
        o.readOnly = true;
        // ANALYZE's sample is 30,000 rows of the table: a share of it is
        // good to about 0.2 % of the table's rows (one standard deviation),
        // so 1 % of the table is the margin, for a named queue as well.
        const auto near = [](const Counts& e, const Counts& x) -> QString {
            const std::int64_t slack = kRows / 100;
            const std::map<std::string, std::pair<std::int64_t, std::int64_t>> pairs{
                {"stored", {e.stored, x.stored}},   {"ready", {e.ready, x.ready}},
                {"locked", {e.locked, x.locked}},   {"done", {e.done, x.done}},
                {"failed", {e.failed, x.failed}},   {"scheduled", {e.scheduled, x.scheduled}},
                {"unknown", {e.unknown, x.unknown}}};
            QString out;
            for (const auto& [name, v] : pairs)
                if (std::abs(v.first - v.second) > slack)
                    out += QStringLiteral("%1 estimated %2, exactly %3; ")
                               .arg(QString::fromStdString(name))
                               .arg(v.first)
                               .arg(v.second);
            for (const auto& [name, n] : x.extra) {
                const auto it = e.extra.find(name);
                if (name != "locked_expired" &&
                    std::abs((it == e.extra.end() ? 0 : it->second) - n) > slack)
                    out += QStringLiteral("%1 off; ").arg(QString::fromStdString(name));
            }
            return out;
        };
        for (const auto& [schema, queue] : {std::pair<const char*, const char*>{"oban", "mail"},
                                            {"sq", "mailers"},
                                            {"pgboss", "email"}}) {
            auto q = openBackend(toStd(m_pg->url(db)) + "?schema=" + schema, o);
            for (const std::string& named : {std::string(), std::string(queue)}) {
                const std::optional<Counts> e = q->estimatedCounts(named);
                QVERIFY2(e, schema);
                QVERIFY(e->estimated);
                QCOMPARE(e->stuck, std::int64_t(0));
                const Counts x = q->counts(kDefaultStuckAfterNs, named);
                QVERIFY(!x.estimated);
                QVERIFY2(x.stored > (named.empty() ? kRows - 1 : kRows / 8), schema);
                const QString off = near(*e, x);
                QVERIFY2(off.isEmpty(), qPrintable(QLatin1String(schema) + u' ' +
                                                   QString::fromStdString(named) + u' ' + off));
            }
        }
        auto small = openBackend(toStd(m_pg->url(db)) + "?schema=small", o);
        QVERIFY(!small->estimatedCounts({}));
        QCOMPARE(small->counts(kDefaultStuckAfterNs, {}).stored, std::int64_t(50));
    }

    void recognisesAllSix() {
        const std::map<std::string, std::string> bySchema = {
            {"sq", "solid-queue"}, {"oban", "oban"},      {"river", "river"},
            {"gj", "good-job"},    {"pgboss", "pg-boss"}, {"graphile_worker", "graphile-worker"}};
        for (const auto& [schema, library] : bySchema) {
            auto q = PgQueue::open(url(schema));
            QCOMPARE(q->formatId(), library);
            QCOMPARE(q->found().schema, schema);
            QVERIFY(q->countsSupported());
            QVERIFY(q->info().format != nullptr);
        }
        // Without ?schema=: every library is found, the first opened, the
        // others named in the warnings.
        auto q = PgQueue::open(url());
        std::set<std::string> all;
        for (const auto& f : q->catalog().found)
            all.insert(f.library);
        QCOMPARE(all.size(), bySchema.size());
        QCOMPARE(q->info().warnings.size(), bySchema.size() - 1);
        // Row actions are written for every library (Graphile Worker only
        // where its admin functions exist, not in this tables-only schema,
        // which reads only and says why).
        for (const auto& [schema, library] : bySchema) {
            auto one = PgQueue::open(url(schema));
            QCOMPARE(one->info().readOnlyReason.empty(), library != "graphile-worker");
        }
    }

    void noQueueHere() {
        for (const std::string& u : {toStd(m_pg->url(QStringLiteral("empty"))), url("public")}) {
            try {
                PgQueue::open(u);
                QFAIL("opened a database without queues");
            } catch (const Error& e) {
                QCOMPARE(e.kind(), ErrorKind::NotAQueue);
                const std::string m = e.what();
                QVERIFY2(m.find("no queue library's tables here") != std::string::npos, e.what());
                QVERIFY2(m.find("public") != std::string::npos, e.what()); // the schemas looked at
            }
        }
        try {
            PgQueue::open(url("nosuchschema"));
            QFAIL("opened a schema that does not exist");
        } catch (const Error& e) {
            QCOMPARE(e.kind(), ErrorKind::NotAQueue);
        }
    }

    void redaction() {
        QCOMPARE(pg::redactedUrl("postgresql://u:secret@h/db"), std::string("postgresql://u@h/db"));
        QCOMPARE(pg::redactedUrl("postgres://u:s%40cret@h:5432,h2:5433/db?sslmode=require"),
                 std::string("postgres://u@h:5432,h2:5433/db?sslmode=require"));
        QCOMPARE(pg::redactedUrl("postgresql://u@h/db?password=secret&sslmode=require&schema=x"),
                 std::string("postgresql://u@h/db?sslmode=require&schema=x"));
        QCOMPARE(pg::redactedUrl("postgresql://h/db"), std::string("postgresql://h/db"));
        QCOMPARE(pg::redactedUrl("host=h password=secret dbname=db"),
                 std::string("host=h dbname=db"));
        QCOMPARE(pg::redactedUrl("host=h password = 'se cr\\'et' dbname=db"),
                 std::string("host=h dbname=db"));
        const pg::Target t = pg::parseTarget("postgresql://u:pw@h/db?schema=jobs&sslmode=disable");
        QCOMPARE(t.schema, std::string("jobs"));
        QCOMPARE(t.conninfo, std::string("postgresql://u:pw@h/db?sslmode=disable"));
        QCOMPARE(t.display, std::string("postgresql://u@h/db?schema=jobs&sslmode=disable"));
        QCOMPARE(pg::parseTarget("host=h schema=s dbname=d").conninfo,
                 std::string("host=h dbname=d"));

        // A failure names the database without its password.
        const std::string withPassword =
            "postgresql://postgres:sekrit@127.0.0.1:" + std::to_string(m_pg->port()) + "/nosuchdb";
        try {
            PgQueue::open(withPassword);
            QFAIL("connected to a database that does not exist");
        } catch (const Error& e) {
            QCOMPARE(e.kind(), ErrorKind::Io);
            const std::string m = e.what();
            QVERIFY2(m.find("sekrit") == std::string::npos, e.what());
            QVERIFY2(m.find("postgresql://postgres@127.0.0.1:") == 0, e.what());
            QVERIFY2(m.find("nosuchdb") != std::string::npos, e.what());
        }
        try {
            PgQueue::open("host=127.0.0.1 port=" + std::to_string(m_pg->port()) +
                          " user=postgres password=sekrit dbname=nosuchdb");
            QFAIL("connected to a database that does not exist");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("sekrit") == std::string::npos, e.what());
        }
    }

    void readOnlySession() {
        auto c = pg::Connection::open(url());
        QVERIFY(c->readOnly());
        for (const std::string sql :
             {"CREATE TABLE lq_should_not_exist (i int)",
              "INSERT INTO sq.solid_queue_pauses (queue_name, created_at) VALUES ('x', now())",
              "UPDATE oban.oban_jobs SET state = 'available'"}) {
            try {
                c->exec(sql);
                QFAIL(("a reading session wrote: " + sql).c_str());
            } catch (const Error& e) {
                QCOMPARE(e.kind(), ErrorKind::ReadOnly);
            }
        }
        // The session's limits, as set at connect.
        QCOMPARE(c->exec("SHOW default_transaction_read_only").text(0, 0), std::string("on"));
        QCOMPARE(c->exec("SHOW lock_timeout").text(0, 0), std::string("1s"));
        QCOMPARE(c->exec("SHOW statement_timeout").text(0, 0), std::string("15s"));
        QCOMPARE(c->exec("SHOW idle_in_transaction_session_timeout").text(0, 0),
                 std::string("10s"));
        QCOMPARE(c->exec("SELECT count(*) FROM oban.oban_jobs WHERE id > $1", {"0"}).int64(0, 0),
                 23);
    }

    /// A reading session survives the server dropping it (a restart, an
    /// administrator's pg_terminate_backend): the next read reconnects.
    void reconnectsAfterADrop() {
        auto q = open(pgFormatCases().at(1));
        const Counts before = q->counts();
        auto admin = pg::Connection::open(url(), {false, 60000, 5000, 60000, 10});
        const pg::Result killed = admin->exec(
            "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE application_name = 'lqadmin' AND pid <> pg_backend_pid()");
        QVERIFY(killed.int64(0, 0) >= 1);
        const Counts after = q->counts();
        QCOMPARE(after.stored, before.stored);
        QCOMPARE(q->queueNames().size(), std::size_t(3));
    }

    /// The sidebar's and the exporter's watch of a database
    /// (core::WatchedDatabase): one session for every scan, kept open and
    /// idle; a scan reads the queue only when the change marker moved.
    /// A quick read (the change marker, the rows on screen) does not wait
    /// for a long one on the reading session: it goes to a second session
    /// (PgQueue::quickRead). The long read here is a count that waits for
    /// a table another session locks.
    void quickReadsDoNotWait() {
        auto q = open(pgFormatCases().front()); // Solid Queue
        (void)q->changeMarker();
        auto admin = pg::Connection::open(url(), {false, 60000, 5000, 60000, 10});
        admin->exec("BEGIN");
        admin->exec("LOCK TABLE sq.solid_queue_jobs IN ACCESS EXCLUSIVE MODE");
        std::atomic<bool> started{false};
        std::thread longRead([&] {
            started = true;
            try {
                (void)q->counts(); // waits for the lock: lock_timeout 1 s
            } catch (const Error&) {
            }
        });
        while (!started.load())
            QTest::qWait(1);
        QTest::qWait(150); // the count is now waiting on the server
        QElapsedTimer t;
        t.start();
        (void)q->changeMarker();
        const qint64 ms = t.elapsed();
        admin->exec("ROLLBACK");
        longRead.join();
        qInfo("the change marker answered in %lld ms while a count waited", ms);
        QVERIFY2(ms < 500, "the change marker waited for the long read");
    }

    void watchedDatabaseKeepsOneSession() {
        const FormatCase& fc = pgFormatCases().front();
        auto admin = pg::Connection::open(url(), {false, 60000, 5000, 60000, 10});
        const std::string t0 = admin->exec("SELECT now()::text").text(0, 0);
        WatchedDatabase db(url(fc.schema), false, "tst_pgengine");
        const TimeNs stuck = 300 * kNsPerSecond;
        const TimeNs minute = 60 * kNsPerSecond;
        const auto first = scanDatabase(db, stuck, 0, minute);
        QVERIFY(first);
        QCOMPARE(first->size(), std::size_t(1));
        QVERIFY2(!first->front().skipped, first->front().reason.c_str());
        for (int i = 0; i < 5; ++i)
            QVERIFY(!scanDatabase(db, stuck, 0, minute)); // unchanged: nothing read
        const auto sessions = [&] {
            return admin
                ->exec("SELECT count(*) FROM pg_stat_activity WHERE application_name = "
                       "'lqadmin' AND backend_start > $1::timestamptz",
                       {t0})
                .int64(0, 0);
        };
        QCOMPARE(sessions(), std::int64_t(1)); // one, kept open across the scans
        // Another session's write moves the marker (an update that
        // changes nothing still counts): the next due scan reads.
        const FleetEntry before = first->front();
        const std::string table = std::string(fc.schema) + "." + fc.tables.front();
        // Its own session, closed after: a server process publishes its
        // counters when it ends, or once idle (up to 10 s after a flush
        // less than a second before, as PostgreSQL 15 defers it).
        QCOMPARE(pg::Connection::open(url(), {false, 60000, 5000, 60000, 10})
                     ->exec("UPDATE " + table + " SET id = id WHERE id = (SELECT max(id) FROM " +
                            table + ") RETURNING id")
                     .rows(),
                 1);
        std::optional<std::vector<FleetEntry>> again;
        QElapsedTimer waited;
        waited.start();
        while (!again && waited.elapsed() < 5000) {
            QTest::qWait(100);
            again = scanDatabase(db, stuck, 0, minute);
        }
        QVERIFY2(again, "the write was not seen within 5 s");
        qInfo("a committed write was seen %lld ms after it",
              static_cast<long long>(waited.elapsed()));
        QCOMPARE(again->front().counts.stored, before.counts.stored);
        QCOMPARE(sessions(), std::int64_t(1));
    }

    /// Live refresh by LISTEN (core/pg/listen.h): a notification on the
    /// library's insert channel, as River's and Oban's inserts send it,
    /// reaches the window's change listener and moves dataVersion() at
    /// once, before the tables' write counters are published; Solid Queue
    /// notifies nothing and gets no listener.
    void listensForInserts_data() {
        QTest::addColumn<QString>("schema");
        QTest::addColumn<QString>("channel"); // "" : none
        QTest::addRow("river") << QStringLiteral("river") << QStringLiteral("river.river_insert");
        QTest::addRow("oban") << QStringLiteral("oban") << QStringLiteral("oban.oban_insert");
        // pg-boss's channel, computed here with Python's hashlib:
        // 'pgboss_' + sha224(b'pgboss').hexdigest()[:24].
        QTest::addRow("pg-boss") << QStringLiteral("pgboss")
                                 << QStringLiteral("pgboss_454650302e472074f72063fd");
        QTest::addRow("good-job") << QStringLiteral("gj") << QStringLiteral("good_job");
        QTest::addRow("solid-queue") << QStringLiteral("sq") << QString();
    }

    void listensForInserts() {
        QFETCH(QString, schema);
        QFETCH(QString, channel);
        BackendOptions o;
        o.readOnly = true;
        auto b = openBackend(url(toStd(schema)), o);
        std::atomic<int> heard{0};
        b->setChangeListener([&heard](bool) { ++heard; });
        const std::int64_t before = b->dataVersion();
        auto admin = pg::Connection::open(url(), {false, 60000, 5000, 60000, 10});
        const std::string ch = channel.isEmpty() ? toStd(schema) + ".river_insert" : toStd(channel);
        // Until the listener's own session is in place, a notification may
        // go unheard: send one every 100 ms for up to 3 s.
        QElapsedTimer t;
        t.start();
        const int limit = channel.isEmpty() ? 500 : 3000;
        while (heard.load() == 0 && t.elapsed() < limit) {
            admin->exec("SELECT pg_notify($1, $2)", {ch, "{\"queue\":\"default\"}"});
            QTest::qWait(100);
        }
        if (channel.isEmpty()) {
            QCOMPARE(heard.load(), 0);
            return;
        }
        QVERIFY2(heard.load() > 0, "no notification heard within 3 s");
        qInfo("heard after %lld ms (its session connecting included)",
              static_cast<long long>(t.elapsed()));
        QVERIFY(b->dataVersion() != before);
        // A second one, with the session in place: heard within a poll tick.
        const int now = heard.load();
        t.restart();
        admin->exec("SELECT pg_notify($1, $2)", {ch, "{\"queue\":\"default\"}"});
        while (heard.load() == now && t.elapsed() < 2000)
            QTest::qWait(5);
        QVERIFY(heard.load() > now);
        qInfo("a notification reached the listener %lld ms after it was sent",
              static_cast<long long>(t.elapsed()));
        // Closing the database stops its thread at once (the window may
        // close it on the UI thread).
        QElapsedTimer closing;
        closing.start();
        b.reset();
        qInfo("closed in %lld ms", static_cast<long long>(closing.elapsed()));
        QVERIFY(closing.elapsed() < 50);
    }

    void seenInPgStatActivity() {
        auto q = open(pgFormatCases().front());
        (void)q->counts();
        auto admin = pg::Connection::open(url(), {false, 60000, 5000, 60000, 10});
        // Our session: named lqadmin, and idle, not idle in transaction,
        // after a count (no transaction is held between calls).
        const pg::Result r = admin->exec(
            "SELECT state FROM pg_stat_activity WHERE application_name = 'lqadmin' AND pid <> "
            "pg_backend_pid()");
        QVERIFY(r.rows() >= 1);
        for (int i = 0; i < r.rows(); ++i)
            QCOMPARE(r.text(i, 0), std::string("idle"));
    }
};

QTEST_GUILESS_MAIN(TestPgEngine)
#include "tst_pgengine.moc"
