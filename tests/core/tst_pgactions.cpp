// SPDX-License-Identifier: MIT
// Row actions on PostgreSQL (issue 41, core/pg/actions.h) against a real
// private PostgreSQL 15 server: the Solid Queue, Oban and River fixtures
// copied into it, each action run through the one seam (core::openBackend) on the
// server and on a copy of the SQLite fixture at the same instant, and the
// results compared job by job; undo writes back every stored column
// exactly (row_to_json before and after); a token that moved, a row a
// worker's transaction holds and a deleted job are skipped with their
// reasons, the held row without waiting; the audit record names the
// database without its password.
#include "core/backend.h"
#include "core/error.h"
#include "core/formats/queueformat.h"
#include "core/pg/connection.h"
#include "core/timefmt.h"
#include "support/fixtures.h"
#include "support/pgcompare.h"
#include "support/pgcopy.h"
#include "support/pgserver.h"

#include <QDir>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <libpq-fe.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>

using namespace lq::core;
using lq::test::FormatCase;
using lq::test::PgServer;
using lq::test::shown;

namespace {

std::string toStd(const QString& s) {
    return s.toStdString();
}

const FormatCase& formatCase(const std::string& library) {
    for (const auto& fc : lq::test::pgFormatCases())
        if (fc.library == library)
            return fc;
    throw std::runtime_error("no case " + library);
}

std::map<std::string, std::string> shownById(QueueBackend& b) {
    std::map<std::string, std::string> out;
    for (const Message& m : b.fetchRowids(b.orderedRowids(Filter{}, Sort{}, nullptr)))
        out[m.messageId] = shown(m);
    return out;
}

std::vector<Target> targetsOf(QueueBackend& b) {
    std::vector<Target> t;
    for (const Message& m : b.fetchRowids(b.orderedRowids(Filter{}, Sort{}, nullptr)))
        t.push_back({m.messageId, m.token});
    return t;
}

std::map<std::string, std::pair<SkipKind, std::string>> skips(const Report& r) {
    std::map<std::string, std::pair<SkipKind, std::string>> out;
    for (const SkippedRow& s : r.result.skipped)
        out[s.messageId] = {s.kind, s.reason};
    return out;
}

/// A session LISTENing on `channel`, as a library's workers listen.
class Listener {
public:
    Listener(const std::string& url, const std::string& channel)
        : m_c(PQconnectdb(url.c_str())) {
        PQclear(PQexec(m_c, ("LISTEN \"" + channel + "\"").c_str()));
    }
    ~Listener() { PQfinish(m_c); }
    Listener(const Listener&) = delete;
    Listener& operator=(const Listener&) = delete;
    /// The payloads received within `ms`.
    std::vector<std::string> take(int ms) {
        std::vector<std::string> out;
        QElapsedTimer t;
        t.start();
        while (t.elapsed() < ms) {
            PQconsumeInput(m_c);
            while (PGnotify* n = PQnotifies(m_c)) {
                out.emplace_back(n->extra);
                PQfreemem(n);
            }
            QTest::qWait(20);
        }
        return out;
    }

private:
    PGconn* m_c;
};

} // namespace

class TestPgActions : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<PgServer> m_pg;
    QTemporaryDir m_tmp;

    std::string url(const std::string& schema, bool password = false) const {
        std::string u = toStd(m_pg->url());
        if (password)
            u.replace(u.find("postgres@"), 9, "postgres:sekrit@");
        return u + "?schema=" + schema;
    }
    TimeNs nowOf(const FormatCase& fc) const {
        const QJsonObject facts = lq::test::formatFacts(QString::fromLatin1(fc.fixture));
        return *parseTimeArg(toStd(facts.value(QStringLiteral("now")).toString()));
    }
    std::shared_ptr<QueueBackend> openPg(const FormatCase& fc, bool password = false) {
        BackendOptions o;
        o.now = nowOf(fc);
        o.tool = "tst_pgactions";
        return openBackend(url(fc.schema, password), o);
    }
    /// Every stored row of the library's tables (Solid Queue: the jobs and
    /// every execution table), as PostgreSQL spells it.
    std::vector<std::string> rows(const FormatCase& fc) {
        auto c = pg::Connection::open(toStd(m_pg->url()));
        std::vector<std::string> out;
        for (const std::string& table : fc.tables) {
            const pg::Result r =
                c->exec("SELECT row_to_json(t)::text FROM " + std::string(fc.schema) + "." + table +
                        " t ORDER BY row_to_json(t)::text");
            for (int i = 0; i < r.rows(); ++i)
                out.push_back(table + ": " + r.text(i, 0));
        }
        return out;
    }
    /// Opens `u`, read at the instant of tests/data/pg/*-rows.sql, into `b`
    /// and runs `a` on every job into `r`: the action offered, Release not.
    static void runOnRows(const std::string& u, Action a, std::shared_ptr<QueueBackend>& b,
                          Report& r) {
        BackendOptions o;
        o.now = parseTimeArg("2026-12-01T12:00:00Z");
        o.tool = "tst_pgactions";
        b = openBackend(u, o);
        QVERIFY2(!b->readOnly(), b->info().readOnlyReason.c_str());
        QVERIFY(b->whyNot(a).empty());
        QVERIFY(!b->whyNot(Action::Release).empty());
        r = b->run(b->planTargets(a, targetsOf(*b)), nullptr, {});
        QVERIFY2(!r.failed(), r.result.error.c_str());
    }
    /// Undoes the last undoable action on `b`, which must give back `applied` rows.
    static void undoLast(QueueBackend& b, std::size_t applied) {
        const auto rec = b.lastUndoable();
        QVERIFY(rec);
        const Report un = b.undo(*rec, nullptr, {});
        QVERIFY2(!un.failed(), un.result.error.c_str());
        QCOMPARE(un.applied(), applied);
    }
    /// `after` holds the very rows of `before`, in order.
    static void sameRows(const std::vector<std::string>& after,
                         const std::vector<std::string>& before) {
        QCOMPARE(after.size(), before.size());
        for (std::size_t i = 0; i < after.size(); ++i)
            QCOMPARE(QString::fromStdString(after[i]), QString::fromStdString(before[i]));
    }
    /// The applied jobs by the first two characters of their ids, sorted.
    static QString appliedPrefixes(const Report& r) {
        QStringList ids;
        for (const AppliedRow& row : r.result.applied)
            ids << QString::fromStdString(row.before.messageId.substr(0, 2));
        ids.sort();
        return ids.join(QLatin1Char(' '));
    }
    /// Every row of `table` on `u`, as row_to_json spells it, by id.
    static std::vector<std::string> storedRows(const std::string& u, const std::string& table) {
        auto c = pg::Connection::open(u);
        const pg::Result r =
            c->exec("SELECT row_to_json(t)::text FROM " + table + " t ORDER BY id");
        std::vector<std::string> out;
        for (int i = 0; i < r.rows(); ++i)
            out.push_back(r.text(i, 0));
        return out;
    }
    std::unique_ptr<pg::Connection> session() {
        return pg::Connection::open(toStd(m_pg->url()), {false, 60000, 5000, 60000, 10});
    }

    void runLikeSqlite(const FormatCase& fc, const std::function<Plan(QueueBackend&)>& plan) {
        BackendOptions o;
        o.now = nowOf(fc);
        const QTemporaryDir own; // this run's SQLite copy, changed by the action
        const QString copy =
            lq::test::copyFixture(own, QStringLiteral("formats/") + QLatin1String(fc.fixture));
        auto lite = openBackend(toStd(copy), o);
        auto pgb = openPg(fc);
        QVERIFY(!pgb->readOnly());
        const std::vector<std::string> stored = rows(fc);
        QCOMPARE(shownById(*pgb), shownById(*lite));

        Plan pl;
        Plan pp;
        try {
            pl = plan(*lite);
            pp = plan(*pgb);
        } catch (const Error& e) {
            QFAIL(e.detail().c_str());
        }
        QCOMPARE(pp.targets.size(), pl.targets.size());
        QCOMPARE(pp.filterJson, pl.filterJson);
        const Report rl = lite->run(pl, nullptr, {});
        const Report rp = pgb->run(pp, nullptr, {});
        QVERIFY2(!rp.failed(), rp.result.error.c_str());
        qInfo("%s: applied %zu, skipped %zu", actionName(pp.action), rp.applied(), rp.skipped());
        QVERIFY(rp.applied() > 0);
        QCOMPARE(rp.applied(), rl.applied());
        const auto sl = skips(rl);
        const auto sp = skips(rp);
        QCOMPARE(sp.size(), sl.size());
        for (const auto& [id, why] : sl) {
            QVERIFY2(sp.count(id), id.c_str());
            QCOMPARE(sp.at(id).first, why.first);
            QCOMPARE(sp.at(id).second, why.second); // the format's own refusal, word for word
        }
        QCOMPARE(shownById(*pgb), shownById(*lite));
        QVERIFY(rows(fc) != stored);

        // Undo: the record is under the URL, every row back as stored.
        const auto rec = pgb->lastUndoable();
        QVERIFY(rec);
        QCOMPARE(rec->id, rp.recordId);
        QCOMPARE(rec->queuePath, url(fc.schema));
        QCOMPARE(rec->tool, std::string("tst_pgactions"));
        const Report u = pgb->undo(*rec, nullptr, {});
        QVERIFY2(!u.failed(), u.result.error.c_str());
        QCOMPARE(u.applied(), rp.applied());
        QCOMPARE(rows(fc), stored);
        QVERIFY(!pgb->lastUndoable());
    }

private slots:
    void initTestCase() {
        m_pg = std::make_unique<PgServer>();
        if (!m_pg->ok())
            QSKIP(qPrintable(m_pg->error()));
        qputenv("LQ_AUDIT_DIR", QFile::encodeName(m_tmp.filePath(QStringLiteral("audit"))));
    }

    /// Each test starts from the fixtures' rows.
    void init() {
        for (const char* lib : {"oban", "river", "solid-queue"}) {
            const FormatCase& fc = formatCase(lib);
            QVERIFY(m_pg->execScript(QStringLiteral("DROP SCHEMA IF EXISTS %1 CASCADE")
                                         .arg(QLatin1String(fc.schema)))
                        .isEmpty());
            const QString err = lq::test::loadPgFormat(*m_pg, fc, m_tmp);
            QVERIFY2(err.isEmpty(), qPrintable(err));
        }
    }

    void cleanupTestCase() { m_pg.reset(); }

    void likeSqlite_data() {
        QTest::addColumn<QString>("library");
        QTest::addColumn<int>("action");
        for (const char* lib : {"oban", "river", "solid-queue"})
            for (Action a : {Action::Retry, Action::Release, Action::Delete})
                QTest::addRow("%s %s", lib, actionName(a))
                    << QString::fromLatin1(lib) << static_cast<int>(a);
    }

    /// The action on every job of the fixture, on PostgreSQL and on SQLite
    /// at the same instant: the same jobs applied, the same skipped for the
    /// same reasons, every job the same afterwards; then undo brings back
    /// every stored column of every row.
    void likeSqlite() {
        QFETCH(QString, library);
        QFETCH(int, action);
        const auto a = static_cast<Action>(action);
        runLikeSqlite(formatCase(toStd(library)),
                      [a](QueueBackend& b) { return b.planTargets(a, targetsOf(b)); });
    }

    void pruneLikeSqlite_data() {
        QTest::addColumn<QString>("library");
        QTest::addColumn<bool>("includeFailed");
        QTest::addColumn<int>("olderThan"); // seconds; 0: the library's own rules
        // River's JobCleaner keeps its fixture's jobs (a day and more), so
        // River prunes with --older-than.
        for (const auto& [lib, olderThan] :
             {std::pair{"oban", 0}, std::pair{"river", 60}, std::pair{"solid-queue", 0}})
            for (bool failed : {false, true})
                QTest::addRow("%s%s%s", lib, failed ? " --include-failed" : "",
                              olderThan ? " --older-than" : "")
                    << QString::fromLatin1(lib) << failed << olderThan;
    }

    /// Prune by the library's own pruner rules (one rule for both engines,
    /// core::planPruneWith): the same jobs deleted as on SQLite, and undo
    /// writes every one back.
    void pruneLikeSqlite() {
        QFETCH(QString, library);
        QFETCH(bool, includeFailed);
        QFETCH(int, olderThan);
        std::optional<std::chrono::nanoseconds> age;
        if (olderThan)
            age = std::chrono::seconds(olderThan);
        runLikeSqlite(formatCase(toStd(library)), [includeFailed, age](QueueBackend& b) {
            return b.planPrune(includeFailed, age, {});
        });
    }

    void pauseLikeSqlite_data() {
        QTest::addColumn<QString>("library");
        QTest::addColumn<QString>("table"); // where the library keeps its pauses
        QTest::addRow("solid-queue")
            << QStringLiteral("solid-queue") << QStringLiteral("solid_queue_pauses");
        QTest::addRow("river") << QStringLiteral("river") << QStringLiteral("river_queue");
    }

    /// Every named queue paused if it runs and resumed if paused, on
    /// PostgreSQL and on SQLite at the same instant: the same queues
    /// changed, the same skipped for the same reasons, the same queues
    /// paused after; undo writes the library's pause rows back exactly.
    void pauseLikeSqlite() {
        QFETCH(QString, library);
        QFETCH(QString, table);
        const FormatCase& fc = formatCase(toStd(library));
        BackendOptions o;
        o.now = nowOf(fc);
        const QTemporaryDir own;
        const QString copy =
            lq::test::copyFixture(own, QStringLiteral("formats/") + QLatin1String(fc.fixture));
        auto lite = openBackend(toStd(copy), o);
        auto pgb = openPg(fc);
        QVERIFY2(pgb->whyNot(Action::Pause).empty(), pgb->whyNot(Action::Pause).c_str());
        const auto paused = [](QueueBackend& b) {
            std::vector<std::string> out;
            for (const PausedQueue& p : b.pausedQueues())
                out.push_back(p.queue);
            return out;
        };
        const auto pauseRows = [&] {
            auto c = pg::Connection::open(toStd(m_pg->url()));
            const pg::Result r =
                c->exec("SELECT row_to_json(t)::text FROM " + std::string(fc.schema) + "." +
                        toStd(table) + " t ORDER BY 1");
            std::vector<std::string> out;
            out.reserve(std::size_t(r.rows()));
            for (int i = 0; i < r.rows(); ++i)
                out.push_back(r.text(i, 0));
            return out;
        };
        const std::vector<std::string> pausedBefore = paused(*lite);
        QCOMPARE(paused(*pgb), pausedBefore);
        const std::vector<std::string> stored = pauseRows();
        const std::vector<std::string> names = lite->queueNames();
        QCOMPARE(pgb->queueNames(), names);
        Listener producers(toStd(m_pg->url()), std::string(fc.schema) + ".river_control");
        std::vector<std::string> sent; // what River's client would have notified
        std::size_t applied = 0;
        for (const std::string& q : names) {
            const bool pause =
                std::find(pausedBefore.begin(), pausedBefore.end(), q) == pausedBefore.end();
            const Report rl = lite->setPaused(q, pause);
            const Report rp = pgb->setPaused(q, pause);
            QVERIFY2(!rp.failed(), rp.result.error.c_str());
            QCOMPARE(rp.applied(), rl.applied());
            QCOMPARE(skips(rp), skips(rl));
            applied += rp.applied();
            if (rp.applied())
                sent.push_back(std::string("{\"action\":\"") + (pause ? "pause" : "resume") +
                               "\",\"queue\":\"" + q + "\"}");
        }
        // River's producers hear of it at once, as from River's own client;
        // Solid Queue's workers poll solid_queue_pauses and get nothing.
        const std::vector<std::string> heard = producers.take(500);
        QCOMPARE(heard, library == QLatin1String("river") ? sent : std::vector<std::string>{});
        qInfo("%zu queues, %zu paused or resumed", names.size(), applied);
        QVERIFY(applied > 0);
        QCOMPARE(paused(*pgb), paused(*lite));
        QVERIFY(paused(*pgb) != pausedBefore);
        // Once more: already as asked, skipped with the same words.
        for (const std::string& q : paused(*lite)) {
            const Report rl = lite->setPaused(q, true);
            const Report rp = pgb->setPaused(q, true);
            QCOMPARE(rp.applied(), std::size_t(0));
            QCOMPARE(skips(rp), skips(rl));
        }
        // Undo, newest first: every pause row back as it was.
        for (std::size_t i = 0; i < applied; ++i) {
            const auto rec = pgb->lastUndoable();
            QVERIFY(rec);
            const Report u = pgb->undo(*rec, nullptr, {});
            QVERIFY2(!u.failed(), u.result.error.c_str());
            QCOMPARE(u.applied(), std::size_t(1));
        }
        QVERIFY(!pgb->lastUndoable());
        QCOMPARE(pauseRows(), stored);
        QCOMPARE(paused(*pgb), pausedBefore);
        // Undo notifies too: one per queue set back.
        QCOMPARE(producers.take(500).size(), library == QLatin1String("river") ? applied : 0);
    }

    /// Run now of every recurring task, on PostgreSQL and on SQLite at the
    /// same instant (one rule, solidqueue::runRecurring): the same tasks
    /// run or refused with the same words, the same job enqueued (but its
    /// random Active Job id), a second run at that instant refused as
    /// already recorded; undo deletes each job, every row as it was.
    void runRecurringLikeSqlite() {
        const FormatCase& fc = formatCase("solid-queue");
        BackendOptions o;
        o.now = nowOf(fc);
        const QTemporaryDir own;
        const QString copy =
            lq::test::copyFixture(own, QStringLiteral("formats/") + QLatin1String(fc.fixture));
        auto lite = openBackend(toStd(copy), o);
        auto pgb = openPg(fc);
        QVERIFY2(pgb->whyNot(Action::RunRecurring).empty(),
                 pgb->whyNot(Action::RunRecurring).c_str());
        const std::vector<std::string> stored = rows(fc);
        const RecurringList tasks = lite->recurringTasks(0);
        QVERIFY(!tasks.tasks.empty());
        const auto job = [](const Message& m) {
            return m.queueName.value_or("") + "|" + m.jobName.value_or("") + "|" +
                   std::to_string(m.priority.value_or(-1)) + "|" + stateName(m.state) + "|" +
                   m.statusText + "|" + std::to_string(m.scheduledAt.value_or(0));
        };
        std::size_t runs = 0;
        for (const RecurringTask& t : tasks.tasks) {
            const Report rl = lite->runRecurring(t.key);
            const Report rp = pgb->runRecurring(t.key);
            QVERIFY2(!rp.failed(), rp.result.error.c_str());
            QCOMPARE(rp.applied(), rl.applied());
            QCOMPARE(skips(rp), skips(rl));
            for (std::size_t i = 0; i < rp.applied(); ++i)
                QCOMPARE(job(rp.result.applied[i].after), job(rl.result.applied[i].after));
            runs += rp.applied();
            const Report again = pgb->runRecurring(t.key);
            QCOMPARE(again.applied(), std::size_t(0));
            QCOMPARE(skips(again), skips(lite->runRecurring(t.key)));
        }
        qInfo("%zu tasks, %zu run", tasks.tasks.size(), runs);
        QVERIFY(runs > 0);
        QVERIFY(rows(fc) != stored);
        for (std::size_t i = 0; i < runs; ++i) {
            const auto rec = pgb->lastUndoable();
            QVERIFY(rec);
            QCOMPARE(rec->action, Action::RunRecurring);
            const Report u = pgb->undo(*rec, nullptr, {});
            QVERIFY2(!u.failed(), u.result.error.c_str());
            QCOMPARE(u.applied(), std::size_t(1));
        }
        QCOMPARE(rows(fc), stored);
    }

    /// A token that moved, a job deleted, a row a worker's transaction holds:
    /// each skipped with its reason, the held one without waiting for it.
    void guards() {
        const FormatCase& fc = formatCase("oban");
        auto pgb = openPg(fc);
        Filter completed;
        completed.states = {State::Done};
        const auto ids = pgb->orderedRowids(completed, Sort{}, nullptr);
        QVERIFY(ids.size() >= 3);
        const Plan plan = pgb->planFilter(Action::Retry, completed);
        QCOMPARE(plan.count(), ids.size());
        auto worker = session();
        // A worker moved one on, another job was deleted, a third is held.
        worker->exec("UPDATE oban.oban_jobs SET attempt = attempt + 1 WHERE id = $1",
                     {std::to_string(ids[0])});
        worker->exec("DELETE FROM oban.oban_jobs WHERE id = $1", {std::to_string(ids[1])});
        worker->exec("BEGIN");
        worker->exec("SELECT id FROM oban.oban_jobs WHERE id = $1 FOR UPDATE",
                     {std::to_string(ids[2])});
        QElapsedTimer t;
        t.start();
        const Report r = pgb->run(plan, nullptr, {});
        const qint64 ms = t.elapsed();
        worker->exec("ROLLBACK");
        QVERIFY2(!r.failed(), r.result.error.c_str());
        QVERIFY2(ms < 900, qPrintable(QStringLiteral("took %1 ms beside a held row").arg(ms)));
        const auto s = skips(r);
        QCOMPARE(s.at(std::to_string(ids[0])).first, SkipKind::Changed);
        QVERIFY(s.at(std::to_string(ids[0])).second.find("changed since shown") == 0);
        QCOMPARE(s.at(std::to_string(ids[1])).first, SkipKind::Gone);
        QCOMPARE(s.at(std::to_string(ids[2])).first, SkipKind::Changed);
        QVERIFY(s.at(std::to_string(ids[2])).second.find("in use") == 0);
        QCOMPARE(r.applied(), ids.size() - 3);
        QCOMPARE(pgb->get(std::to_string(ids[2]))->statusText, std::string("completed"));

        // Once the worker let go, the same row is taken.
        const Report again = pgb->run(
            pgb->planTargets(Action::Retry,
                             {{std::to_string(ids[2]), pgb->get(std::to_string(ids[2]))->token}}),
            nullptr, {});
        QCOMPARE(again.applied(), std::size_t(1));
        QCOMPARE(pgb->get(std::to_string(ids[2]))->statusText, std::string("available"));
    }

    /// Undo leaves alone a job a worker has taken since the action.
    void undoAfterWorker() {
        const FormatCase& fc = formatCase("river");
        auto pgb = openPg(fc);
        Filter completed;
        completed.states = {State::Done};
        const Report r = pgb->run(pgb->planFilter(Action::Retry, completed), nullptr, {});
        QVERIFY(r.applied() >= 2);
        const std::string taken = r.result.applied.front().after.messageId;
        session()->exec("UPDATE river.river_job SET state = 'running', attempt = attempt + 1, "
                        "attempted_at = now() WHERE id = $1",
                        {taken});
        const Report u = pgb->undo(*pgb->lastUndoable(), nullptr, {});
        QCOMPARE(u.applied(), r.applied() - 1);
        const auto s = skips(u);
        QCOMPARE(s.at(taken).first, SkipKind::Changed);
        QVERIFY(s.at(taken).second.find("moved on since the action: now LOCKED") == 0);
        QCOMPARE(pgb->get(taken)->statusText, std::string("running"));
    }

    /// The record names the database without its password, and no audit
    /// file holds it.
    void auditWithoutPassword() {
        const FormatCase& fc = formatCase("oban");
        auto pgb = openPg(fc, true);
        Filter completed;
        completed.states = {State::Done};
        const Report r = pgb->run(pgb->planFilter(Action::Delete, completed), nullptr, {});
        QVERIFY(r.applied() > 0);
        const auto rec = pgb->lastUndoable();
        QVERIFY(rec);
        QCOMPARE(rec->queuePath, url(fc.schema));
        QDirIterator it(m_tmp.filePath(QStringLiteral("audit")), QDir::Files);
        int files = 0;
        while (it.hasNext()) {
            QFile f(it.next());
            QVERIFY(f.open(QIODevice::ReadOnly));
            QVERIFY(!f.readAll().contains("sekrit"));
            ++files;
        }
        QVERIFY(files > 0);
    }

    /// What is not written on PostgreSQL yet says so and sends nothing.
    /// A user who may only read the jobs gets a read-only queue saying so,
    /// not actions the database would refuse; granted the writes, the same
    /// user may act.
    void withoutWriteRights() {
        const FormatCase& fc = formatCase("oban");
        QVERIFY(m_pg->execScript(QStringLiteral(
                                     "DROP ROLE IF EXISTS lq_reader; CREATE ROLE lq_reader LOGIN; "
                                     "GRANT USAGE ON SCHEMA oban TO lq_reader; GRANT SELECT ON "
                                     "ALL TABLES IN SCHEMA oban TO lq_reader; GRANT UPDATE ON "
                                     "oban.oban_jobs TO lq_reader"))
                    .isEmpty());
        std::string u = url(fc.schema);
        u.replace(u.find("postgres@"), 9, "lq_reader@");
        BackendOptions o;
        o.now = nowOf(fc);
        auto b = openBackend(u, o);
        QVERIFY(b->readOnly());
        const std::string why = b->info().readOnlyReason;
        QVERIFY2(why.find("user lq_reader may not update, delete and insert rows of "
                          "oban.oban_jobs") != std::string::npos,
                 why.c_str());
        const Report r = b->run(b->planTargets(Action::Retry, targetsOf(*b)), nullptr, {});
        QCOMPARE(r.result.errorKind, std::optional<ErrorKind>(ErrorKind::ReadOnly));
        QCOMPARE(r.applied(), std::size_t(0));

        QVERIFY(m_pg->execScript(QStringLiteral("GRANT DELETE, INSERT ON oban.oban_jobs TO "
                                                "lq_reader"))
                    .isEmpty());
        QVERIFY(!openBackend(u, o)->readOnly());
        QVERIFY(m_pg->execScript(QStringLiteral("DROP OWNED BY lq_reader; DROP ROLE lq_reader"))
                    .isEmpty());
    }

    /// Graphile Worker as its npm package made it (tests/data/FIXTURES.md
    /// "pg/graphile-worker-npm.sql"): each action through the library's own
    /// admin function, on every job, with its rule's skips; a job a worker
    /// locked is left alone; undo gives back every row as stored (a deleted
    /// job inserted again under its id, its generated column left to the
    /// server).
    void graphileWorker_data() {
        QTest::addColumn<int>("action");
        QTest::addColumn<QString>("applied");
        QTest::newRow("retry") << static_cast<int>(Action::Retry) << QStringLiteral("4 5");
        QTest::newRow("mark failed")
            << static_cast<int>(Action::MarkFailed) << QStringLiteral("6 7 8 9");
        QTest::newRow("delete") << static_cast<int>(Action::Delete)
                                << QStringLiteral("4 5 6 7 8 9");
    }

    void graphileWorker() {
        QFETCH(int, action);
        QFETCH(QString, applied);
        const auto a = static_cast<Action>(action);
        QFile dump(lq::test::dataDir() + QStringLiteral("/pg/graphile-worker-npm.sql"));
        QVERIFY(dump.open(QIODevice::ReadOnly));
        QVERIFY(m_pg->execScript(QStringLiteral("DROP DATABASE IF EXISTS gwact")).isEmpty());
        QVERIFY(m_pg->createDatabase(QStringLiteral("gwact")));
        QVERIFY(m_pg->execScript(QString::fromUtf8(dump.readAll()), {}, QStringLiteral("gwact"))
                    .isEmpty());
        const std::string u = toStd(m_pg->url(QStringLiteral("gwact")));
        const auto stored = [&] { return storedRows(u, "graphile_worker._private_jobs"); };
        const std::vector<std::string> before = stored();
        BackendOptions o;
        o.now = parseTimeArg("2026-12-05T21:45:00Z");
        o.tool = "tst_pgactions";
        auto b = openBackend(u, o);
        QVERIFY2(!b->readOnly(), b->info().readOnlyReason.c_str());
        QVERIFY(b->whyNot(a).empty());
        QVERIFY(!b->whyNot(Action::Release).empty());

        const Report r = b->run(b->planTargets(a, targetsOf(*b)), nullptr, {});
        QVERIFY2(!r.failed(), r.result.error.c_str());
        QStringList ids;
        for (const AppliedRow& row : r.result.applied)
            ids << QString::fromStdString(row.before.messageId);
        ids.sort();
        QCOMPARE(ids.join(QLatin1Char(' ')), applied);
        const auto s = skips(r);
        QVERIFY2(s.at("10").second.find("a worker locked it less than 4 hours ago") !=
                     std::string::npos,
                 s.at("10").second.c_str());
        if (a == Action::Retry) {
            const auto job = b->get("4");
            QCOMPARE(job->state, State::Ready);
            QCOMPARE(job->attempts, std::int64_t(0));
            QCOMPARE(job->lastError, std::optional<std::string>("boom: invoice 41 could not be "
                                                                "rendered"));
            QVERIFY(s.at("6").second.find("retry applies to permanently failed jobs") !=
                    std::string::npos);
        }
        if (a == Action::MarkFailed) {
            QCOMPARE(b->get("7")->state, State::Failed);
            QCOMPARE(b->get("7")->lastError,
                     std::optional<std::string>("Manually marked as failed"));
            QCOMPARE(s.at("4").second, std::string("is already permanently failed"));
        }
        if (a == Action::Delete)
            QVERIFY(!b->get("7"));
        QVERIFY(stored() != before);

        undoLast(*b, r.applied());
        sameRows(stored(), before);
    }

    /// pg-boss (tests/data/pg/pg-boss-rows.sql, one job in each state):
    /// retry and delete through its own statements on every job, jobs keyed
    /// by UUID; a job another session holds is skipped "in use"; undo gives
    /// back every row as stored.
    void pgBoss_data() {
        QTest::addColumn<int>("action");
        QTest::addColumn<QString>("applied");
        QTest::newRow("retry") << static_cast<int>(Action::Retry) << QStringLiteral("b6");
        QTest::newRow("delete") << static_cast<int>(Action::Delete)
                                << QStringLiteral("b1 b2 b3 b4 b5 b6 b7 b9");
    }

    void pgBoss() {
        QFETCH(int, action);
        QFETCH(QString, applied);
        const auto a = static_cast<Action>(action);
        QVERIFY(m_pg->execScript(QStringLiteral("DROP SCHEMA IF EXISTS pgboss CASCADE")).isEmpty());
        for (const char* script : {"pg-boss.sql", "pg-boss-rows.sql"}) {
            QFile f(lq::test::dataDir() + QStringLiteral("/pg/") + QLatin1String(script));
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QString err = m_pg->execScript(QString::fromUtf8(f.readAll()));
            QVERIFY2(err.isEmpty(), qPrintable(err));
        }
        const auto stored = [&] { return storedRows(toStd(m_pg->url()), "pgboss.job"); };
        const std::vector<std::string> before = stored();
        // A worker's transaction holds the cancelled job b8.
        auto worker = session();
        worker->exec("BEGIN");
        worker->exec("SELECT id FROM pgboss.job WHERE id = "
                     "'b8000000-0000-4000-8000-000000000008' FOR UPDATE");

        std::shared_ptr<QueueBackend> b;
        Report r;
        runOnRows(url("pgboss"), a, b, r);
        if (QTest::currentTestFailed())
            return;
        QCOMPARE(appliedPrefixes(r), applied);
        const auto s = skips(r);
        QCOMPARE(s.at("b8000000-0000-4000-8000-000000000008").second,
                 std::string("in use: a worker's transaction holds the row right now (not "
                             "waited for)"));
        if (a == Action::Retry) {
            const auto job = b->get("b6000000-0000-4000-8000-000000000006");
            QCOMPARE(job->state, State::Ready);
            QCOMPARE(job->extraState, std::string("retry"));
            QCOMPARE(job->maxAttempts, std::optional<std::int64_t>(3)); // one more try
            QVERIFY2(
                s.at("b1000000-0000-4000-8000-000000000001")
                        .second.find("pg-boss retries a failed job and resumes a cancelled one") !=
                    std::string::npos,
                s.at("b1000000-0000-4000-8000-000000000001").second.c_str());
        }
        if (a == Action::Delete)
            QVERIFY(!b->get("b3000000-0000-4000-8000-000000000003"));
        QVERIFY(stored() != before);

        // The worker gone, the cancelled job is resumed (Retry) or deleted.
        worker->exec("ROLLBACK");
        const Report second =
            b->run(b->planTargets(a, {{"B8000000-0000-4000-8000-000000000008",
                                       b->get("b8000000-0000-4000-8000-000000000008")->token}}),
                   nullptr, {});
        QCOMPARE(second.applied(), std::size_t(1));
        if (a == Action::Retry) {
            const auto job = b->get("b8000000-0000-4000-8000-000000000008");
            QCOMPARE(job->statusText, std::string("created"));
            QCOMPARE(job->state, State::Ready);
        }

        undoLast(*b, second.applied());
        undoLast(*b, r.applied());
        sameRows(stored(), before);
    }

    /// GoodJob (tests/data/pg/good-job-rows.sql, one job in each status):
    /// retry, discard and destroy by GoodJob's own rules on every job; the
    /// job whose advisory lock a worker holds is skipped (its stuck twin,
    /// whose worker is gone, is not); destroy takes the job's executions
    /// with it; undo gives back every row of both tables as stored.
    void goodJob_data() {
        QTest::addColumn<int>("action");
        QTest::addColumn<QString>("applied");
        QTest::newRow("retry") << static_cast<int>(Action::Retry) << QStringLiteral("a6");
        QTest::newRow("discard") << static_cast<int>(Action::MarkFailed)
                                 << QStringLiteral("a1 a2 a4 a7");
        QTest::newRow("destroy") << static_cast<int>(Action::Delete) << QStringLiteral("a5 a6");
    }

    void goodJob() {
        QFETCH(int, action);
        QFETCH(QString, applied);
        const auto a = static_cast<Action>(action);
        QVERIFY(m_pg->execScript(QStringLiteral("DROP SCHEMA IF EXISTS gj CASCADE")).isEmpty());
        for (const auto& [script, schema] :
             {std::pair{"good-job.sql", "gj"}, std::pair{"good-job-rows.sql", ""}}) {
            QFile f(lq::test::dataDir() + QStringLiteral("/pg/") + QLatin1String(script));
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QString err =
                m_pg->execScript(QString::fromUtf8(f.readAll()), QLatin1String(schema));
            QVERIFY2(err.isEmpty(), qPrintable(err));
        }
        const std::string u = toStd(m_pg->url());
        const auto stored = [&] {
            auto rows = storedRows(u, "gj.good_jobs");
            for (auto& e : storedRows(u, "gj.good_job_executions"))
                rows.push_back(std::move(e));
            return rows;
        };
        const std::vector<std::string> before = stored();
        // A3's worker holds its advisory lock, as GoodJob's worker does.
        const std::string a3 = "a3000000-0000-4000-8000-000000000003";
        auto worker = session();
        worker->exec("SELECT pg_advisory_lock(('x' || substr(md5('good_jobs-' || $1), 1, "
                     "16))::bit(64)::bigint)",
                     {a3});

        std::shared_ptr<QueueBackend> b;
        Report r;
        runOnRows(url("gj"), a, b, r);
        if (QTest::currentTestFailed())
            return;
        QCOMPARE(appliedPrefixes(r), applied);
        const auto s = skips(r);
        const auto id = [](char n) {
            return std::string("a") + n + "000000-0000-4000-8000-00000000000" + n;
        };
        if (a == Action::Retry) {
            const auto job = b->get(id('6'));
            QCOMPARE(job->state, State::Ready);
            QCOMPARE(job->statusText, std::string("queued"));
            QCOMPARE(job->lastError.value_or(""), std::string("RuntimeError: boom"));
            QVERIFY(job->data.find("\"executions\": 1") != std::string::npos);
            QVERIFY2(s.at(id('1')).second.find("GoodJob retries a discarded job") !=
                         std::string::npos,
                     s.at(id('1')).second.c_str());
        }
        if (a == Action::MarkFailed) {
            QCOMPARE(s.at(a3).second,
                     std::string("in use: a worker holds the job's advisory lock right now (not "
                                 "waited for)"));
            const auto job = b->get(id('4'));
            QCOMPARE(job->state, State::Failed);
            QCOMPARE(job->lastError.value_or(""),
                     std::string("GoodJob::Job::DiscardJobError: Discarded by an operator with "
                                 "LiteQueue Admin"));
            QVERIFY(s.at(id('5')).second.find("GoodJob discards an unfinished job") !=
                    std::string::npos);
        }
        if (a == Action::Delete) {
            QVERIFY(!b->get(id('6')));
            QCOMPARE(storedRows(u, "gj.good_job_executions").size(), std::size_t(0));
            QVERIFY(s.at(a3).second.find("GoodJob destroys a finished job") != std::string::npos);
        }
        QVERIFY(stored() != before);

        undoLast(*b, r.applied());
        sameRows(stored(), before);
    }

    void refusals() {
        // What the queue offers, as both front ends ask it: the row actions
        // the format offers; not the writes the engine does not make yet.
        auto oban = openPg(formatCase("oban"));
        for (Action a : {Action::Retry, Action::Release, Action::Delete, Action::Prune})
            QVERIFY2(oban->whyNot(a).empty(), actionName(a));
        for (Action a : {Action::RetryExpired, Action::Pause, Action::Enqueue, Action::Vacuum,
                         Action::Upgrade, Action::RunRecurring}) // Oban stores none
            QVERIFY2(!oban->whyNot(a).empty(), actionName(a));
        // Oban's own rules, word for word as on SQLite.
        const FormatInfo& info = oban->info();
        QCOMPARE(oban->whyNot(Action::MarkFailed),
                 QueueFormat::of(info).whyNot(Action::MarkFailed, info));
        QCOMPARE(oban->whyNot(Action::RetryExpired),
                 QueueFormat::of(info).whyNot(Action::RetryExpired, info));
        QVERIFY_THROWS_EXCEPTION(Error, oban->planRetryExpired(std::chrono::minutes(5), {}));
        QVERIFY(oban->enqueue("{}", std::nullopt, nullptr).failed());
        QVERIFY(oban->vacuum(nullptr).failed());
    }
};

QTEST_GUILESS_MAIN(TestPgActions)
#include "tst_pgactions.moc"
