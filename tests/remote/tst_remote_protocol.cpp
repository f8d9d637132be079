// SPDX-License-Identifier: MIT
// The remote protocol without ssh: `lqctl serve --stdio` over a pipe, driven
// by the core client. Bad requests get a clear error and the session lives
// on; two clients on one message: one wins, the other gets the stale-claim
// report; a version mismatch names both versions.
#include <core/audit.h>
#include <core/clock.h>
#include <core/dashboard.h>
#include <core/error.h>
#include <core/fleet.h>
#include <core/formats/queueformat.h>
#include <core/operator.h>
#include <core/queue.h>
#include <core/queueoverview.h>
#include <core/remote/client.h>
#include <core/remote/codec.h>
#include <core/remote/folder.h>
#include <core/remote/server.h>

#include <support/fixtures.h>

#include <QTemporaryDir>
#include <QTest>

#include <signal.h>

#include <filesystem>
#include <tuple>

using namespace lq::core;
using namespace lq::core::remote;

namespace {

std::vector<std::string> serverArgv() {
    return {LQCTL_PATH, "serve", "--stdio"};
}

std::unique_ptr<Session> startServer(int version = 0) {
    return Session::spawn(serverArgv(), "pipe", version);
}

/// The session still answers.
bool alive(Session& s) {
    Json p = Json::object();
    p.set("protocol", kProtocolVersion);
    return s.call("hello", std::move(p))["protocol"].toInt() == kProtocolVersion;
}

OpenOptions readOnlyOptions() {
    OpenOptions o;
    o.readOnly = true;
    return o;
}

} // namespace

class TstRemoteProtocol : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::string m_path;
    std::vector<std::string> m_locked; ///< ids popped (LOCKED) by the fixture

    static std::unique_ptr<RemoteQueue> openRemoteAt(const std::string& path, bool write) {
        RemoteOpenOptions o;
        o.readOnly = !write;
        return RemoteQueue::open(startServer(), path, o);
    }

    std::unique_ptr<RemoteQueue> openRemote(bool write) {
        RemoteOpenOptions o;
        o.readOnly = !write;
        return RemoteQueue::open(startServer(), m_path, o);
    }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_path = m_dir.filePath(QStringLiteral("q.db")).toStdString();
        auto q = Queue::create(m_path);
        for (int i = 0; i < 50; ++i)
            q->put("{\"n\":" + std::to_string(i) + "}");
        for (int i = 0; i < 5; ++i)
            m_locked.push_back(q->pop()->messageId);
        const auto done = q->pop();
        QVERIFY(q->done(done->messageId, done->claimId));
    }

    void readsMatchLocal() {
        auto r = openRemote(false);
        auto l = Queue::open(m_path, readOnlyOptions());
        QCOMPARE(r->path(), std::filesystem::absolute(m_path).lexically_normal().string());
        QCOMPARE(r->info().table, l->info().table);
        const auto rc = r->counts();
        const auto lc = l->counts();
        QCOMPARE(rc.ready, lc.ready);
        QCOMPARE(rc.locked, lc.locked);
        QCOMPARE(rc.done, lc.done);
        QCOMPARE(rc.stored, lc.stored);
        Filter f;
        f.states = {State::Ready};
        Sort s;
        s.descending = true;
        const auto rp = r->list(f, s, 10, 7);
        const auto lp = l->list(f, s, 10, 7);
        QCOMPARE(rp.size(), lp.size());
        for (std::size_t i = 0; i < rp.size(); ++i) {
            QCOMPARE(rp[i].messageId, lp[i].messageId);
            QCOMPARE(rp[i].data, lp[i].data);
            QCOMPARE(rp[i].token, lp[i].token);
        }
        QCOMPARE(r->orderedRowids(f, s), l->orderedRowids(f, s));
        QCOMPARE(r->count(f), l->count(f));
        // A JSON condition is applied on the host, not dropped: this server
        // says it takes `where` (hello's filter_where).
        QVERIFY(r->session().filtersWhere());
        Filter w = f;
        w.where = "data.n >= 40";
        const auto wr = r->orderedRowids(w, s);
        QCOMPARE(wr, l->orderedRowids(w, s));
        QVERIFY(!wr.empty() && wr.size() < l->orderedRowids(f, s).size());
        QCOMPARE(r->count(w), l->count(w));
        const auto rm = r->get(m_locked.front());
        QVERIFY(rm);
        QCOMPARE(rm->state, State::Locked);
        QVERIFY(!r->get("no-such-id"));
        const auto rs = r->stats();
        const auto ls = l->stats();
        QCOMPARE(rs.wait.count, ls.wait.count);
        QCOMPARE(rs.wait.p50, ls.wait.p50);
        QCOMPARE(rs.oldestReadyInTime, ls.oldestReadyInTime);
        QCOMPARE(rs.waitHist.counts, ls.waitHist.counts);
    }

    /// The library settings the file does not store travel in `open`: the
    /// server counts as a local open with the same settings does.
    void settingsTravelInOpen_data() {
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<QString>("queue");
        QTest::addColumn<QString>("key");
        QTest::addColumn<qint64>("value");
        QTest::newRow("goqite max_receive") << QStringLiteral("formats/goqite.sqlite3") << QString()
                                            << QStringLiteral("max_receive") << qint64(2);
        QTest::newRow("goqite max_receive of one queue")
            << QStringLiteral("formats/goqite.sqlite3") << QStringLiteral("thumbnails")
            << QStringLiteral("max_receive") << qint64(2);
        QTest::newRow("backlite release_after")
            << QStringLiteral("formats/backlite.sqlite3") << QString()
            << QStringLiteral("release_after") << qint64(60);
        QTest::newRow("laravel retry_after")
            << QStringLiteral("formats/laravel-database.sqlite3") << QString()
            << QStringLiteral("retry_after") << qint64(10);
        QTest::newRow("delayed-job max_run_time")
            << QStringLiteral("formats/delayed-job.sqlite3") << QString()
            << QStringLiteral("max_run_time") << qint64(600);
        QTest::newRow("symfony-messenger redeliver_timeout")
            << QStringLiteral("formats/symfony-messenger.sqlite3") << QString()
            << QStringLiteral("redeliver_timeout") << qint64(600);
        QTest::newRow("symfony-messenger redeliver_timeout of one queue")
            << QStringLiteral("formats/symfony-messenger.sqlite3") << QStringLiteral("high")
            << QStringLiteral("redeliver_timeout") << qint64(600);
    }
    void settingsTravelInOpen() {
        QFETCH(QString, fixture);
        QFETCH(QString, queue);
        QFETCH(QString, key);
        QFETCH(qint64, value);
        QTemporaryDir dir;
        const std::string path = lq::test::copyFixture(dir, fixture).toStdString();
        constexpr TimeNs kNow = 1'796'040'000LL * kNsPerSecond; // the fixtures' now
        FormatSettings settings;
        QVERIFY(settings.set(key.toStdString(), value, queue.toStdString()));

        const auto local = [&](const FormatSettings& s) {
            OpenOptions o = readOnlyOptions();
            o.clock = fixedClock(kNow);
            o.settings = s;
            return Queue::open(path, o);
        };
        const auto remote = [&](const FormatSettings& s) {
            RemoteOpenOptions o;
            o.now = kNow;
            o.settings = s;
            return RemoteQueue::open(startServer(), path, o);
        };
        // What `lqctl stats` prints: the counts and the statistics.
        const auto stats = [&](auto& q) {
            const Counts c = q.counts(queue.toStdString());
            Filter f;
            f.queue = queue.toStdString();
            const QueueStats s = q.stats(f);
            return std::tuple(c.ready, c.scheduled, c.locked, c.failed, c.stuck, c.expired, c.extra,
                              s.wait.count, s.oldestReadyInTime, s.oldestLockedLockTime,
                              s.doneLastHour, s.failedLastHour);
        };
        auto l = local(settings);
        auto r = remote(settings);
        QCOMPARE(r->info().settings, settings);
        QVERIFY(stats(*r) == stats(*l));
        // The setting matters on this fixture: without it both sides count
        // the library default, and differently from with it.
        auto rDefault = remote({});
        QVERIFY(rDefault->info().settings.empty());
        QVERIFY(stats(*rDefault) == stats(*local({})));
        QVERIFY(stats(*rDefault) != stats(*r));
    }

    /// The dashboard's figures computed on the host (`dashboard`) are the
    /// ones computed from the same file here: counts, statistics,
    /// histograms, series, schedule and attempts, with and without a range.
    void dashboardMatchesLocal_data() {
        QTest::addColumn<QString>("fixture");
        QTest::newRow("goqite") << QStringLiteral("formats/goqite.sqlite3");
        QTest::newRow("river (no history: schedule, attempts)")
            << QStringLiteral("formats/river-v7.sqlite3");
        QTest::newRow("solid queue") << QStringLiteral("formats/solid-queue.sqlite3");
        QTest::newRow("laravel") << QStringLiteral("formats/laravel-database.sqlite3");
        QTest::newRow("delayed-job") << QStringLiteral("formats/delayed-job.sqlite3");
        QTest::newRow("symfony-messenger") << QStringLiteral("formats/symfony-messenger.sqlite3");
        QTest::newRow("django-tasks-db") << QStringLiteral("formats/django-tasks-db.sqlite3");
        QTest::newRow("hangfire-sqlite") << QStringLiteral("formats/hangfire-sqlite.sqlite3");
    }
    void dashboardMatchesLocal() {
        QFETCH(QString, fixture);
        QTemporaryDir dir;
        const std::string path = lq::test::copyFixture(dir, fixture).toStdString();
        constexpr TimeNs kNow = 1'796'040'000LL * kNsPerSecond; // the fixtures' now
        OpenOptions lo = readOnlyOptions();
        lo.clock = fixedClock(kNow);
        auto l = Queue::open(path, lo);
        RemoteOpenOptions ro;
        ro.now = kNow;
        auto r = RemoteQueue::open(startServer(), path, ro);

        DashboardQuery whole;
        whole.stuckNs = 60 * kNsPerSecond;
        DashboardQuery lastDay = whole;
        lastDay.from = kNow - 24 * 3600 * kNsPerSecond;
        DashboardQuery closed = whole;
        closed.from = kNow - 30 * 24 * 3600 * kNsPerSecond;
        closed.to = kNow - 3600 * kNsPerSecond;
        for (const DashboardQuery& q : {whole, lastDay, closed}) {
            const DashboardFigures local = dashboardFigures(*l, q);
            const DashboardFigures remote = r->dashboard(q);
            QCOMPARE(toJson(remote).dump(), toJson(local).dump());
            QCOMPARE(remote.now, kNow);
            QCOMPARE(remote.totalRows, l->counts().stored);
            QVERIFY(!remote.series.empty());
            // The per-queue overview (`queue_overview`) too, row for row.
            const QueueOverview ov = queueOverview(*l, q);
            QCOMPARE(queueOverviewJson(r->queueOverview(q)).dump(), queueOverviewJson(ov).dump());
            QVERIFY(!ov.rows.empty());
        }
        // Not a trivially empty answer: the fixture has timings.
        const DashboardFigures d = r->dashboard(whole);
        QVERIFY(d.stats.firstTime.has_value());
        QCOMPARE(d.history, d.attempts.empty());
    }

    /// `fleet`: the host scans a folder as a local scan does; the entries
    /// come back named by the client's prefix. A folder that is not there is
    /// a clear error and the session lives on.
    void fleetMatchesLocal() {
        QTemporaryDir dir;
        for (const char* f :
             {"formats/goqite.sqlite3", "formats/river-v7.sqlite3", "formats/solid-queue.sqlite3",
              "litequeue-head-mixed.sqlite3", "not-a-queue.sqlite3", "litequeue-oldmulti.sqlite3"})
            QVERIFY(!lq::test::copyFixture(dir, QString::fromLatin1(f)).isEmpty());
        const std::string d = dir.path().toStdString();
        constexpr TimeNs kNow = 1'796'040'000LL * kNsPerSecond;
        const TimeNs stuck = 600 * kNsPerSecond;
        const auto local = scanFleet(d, kNow, stuck, 200);
        auto folder = RemoteFolder::open(startServer(), d, "ssh://host");
        const auto remote = folder->scan(kNow, stuck);
        QCOMPARE(remote.size(), local.size());
        QVERIFY(local.size() >= 6); // a file with several tables gives several entries
        int skipped = 0;
        for (std::size_t i = 0; i < local.size(); ++i) {
            const FleetEntry& l = local[i];
            const FleetEntry& r = remote[i];
            QCOMPARE(r.path, "ssh://host" + l.path);
            QCOMPARE(r.table, l.table);
            QCOMPARE(r.skipped, l.skipped);
            QCOMPARE(r.reason, l.reason);
            QCOMPARE(r.format, l.format);
            QCOMPARE(r.kind, l.kind);
            QCOMPARE(toJson(r.counts).dump(), toJson(l.counts).dump());
            QCOMPARE(r.oldestReadyInTime, l.oldestReadyInTime);
            QCOMPARE(r.fileBytes, l.fileBytes);
            QCOMPARE(r.queues.size(), l.queues.size());
            skipped += l.skipped ? 1 : 0;
        }
        QCOMPARE(skipped, 1); // not-a-queue.sqlite3, with its reason

        auto gone = RemoteFolder::open(startServer(), d + "/no-such-folder", "ssh://host");
        try {
            gone->scan(kNow, stuck);
            QFAIL("a folder that is not there was scanned");
        } catch (const Error& e) {
            QCOMPARE(e.kind(), ErrorKind::Io);
            QVERIFY2(e.detail().find("not a folder") != std::string::npos, e.what());
        }
        QVERIFY(alive(gone->session()));
    }

    /// Enqueue, vacuum and upgrade over the protocol: the host writes in one
    /// transaction, this machine's audit log records them naming the URL,
    /// and the file ends as the same commands leave it locally.
    void claimFreeWrites() {
        QTemporaryDir dir;
        QTemporaryDir audit;
        const std::string path =
            lq::test::copyFixture(dir, QStringLiteral("litequeue-head-maxsize.sqlite3"))
                .toStdString();
        QTemporaryDir twinDir; // the same commands, run locally
        const std::string twin =
            lq::test::copyFixture(twinDir, QStringLiteral("litequeue-head-maxsize.sqlite3"))
                .toStdString();
        RemoteOpenOptions ro;
        ro.readOnly = false;
        auto r = RemoteQueue::open(startServer(), path, ro);
        RemoteOperator op(*r, "test", AuditLog(audit.path().toStdString()));

        // Upgrade (0.13 -> 0.14), as `lqctl upgrade` does it locally.
        const std::string from = formatId(r->info().format);
        const Report up = op.upgrade();
        QVERIFY2(up.auditError.empty(), up.auditError.c_str());
        QVERIFY(formatId(r->info().format) != from);
        {
            auto t = Queue::open(twin);
            const Report localUp =
                Operator(*t, "test", AuditLog(audit.path().toStdString())).upgrade();
            QVERIFY(localUp.auditError.empty());
            auto l = Queue::open(path, readOnlyOptions());
            QCOMPARE(formatId(l->info().format), formatId(t->info().format));
            QCOMPARE(formatId(r->info().format), formatId(t->info().format));
            QCOMPARE(toJson(r->counts()).dump(), toJson(t->counts()).dump());
        }
        const auto upRec = op.record(up.recordId);
        QVERIFY(upRec);
        QCOMPARE(upRec->queuePath, r->url());
        QVERIFY(upRec->note.find(from) != std::string::npos);

        // The upgraded file is full (maxsize 25): the host's refusal, as local.
        try {
            op.enqueue("{}", std::nullopt);
            QFAIL("a full queue took a message");
        } catch (const Error& e) {
            QCOMPARE(e.kind(), ErrorKind::QueueFull);
        }

        // Enqueue: on record before it commits; undo takes it back.
        const std::string fresh = dir.filePath(QStringLiteral("fresh.db")).toStdString();
        (void)Queue::create(fresh);
        auto rf = RemoteQueue::open(startServer(), fresh, ro);
        RemoteOperator opFresh(*rf, "test", AuditLog(audit.path().toStdString()));
        Message stored;
        const Report put = opFresh.enqueue("{\"remote\":1}", std::string("k-remote"), &stored);
        QCOMPARE(put.applied(), std::size_t(1));
        {
            auto l = Queue::open(fresh, readOnlyOptions());
            const auto m = l->get(stored.messageId);
            QVERIFY(m);
            QCOMPARE(m->data, std::string("{\"remote\":1}"));
            QCOMPARE(m->state, State::Ready);
        }
        const auto putRec = opFresh.record(put.recordId);
        QVERIFY(putRec);
        QCOMPARE(putRec->queuePath, rf->url());
        QCOMPARE(putRec->applied.size(), std::size_t(1));
        // The same key and data again: nothing added, nothing recorded.
        const Report again = opFresh.enqueue("{\"remote\":1}", std::string("k-remote"));
        QCOMPARE(again.applied(), std::size_t(0));
        QCOMPARE(Queue::open(fresh, readOnlyOptions())->counts().stored, 1);
        // An unrecorded enqueue does not commit.
        RemoteOperator noLog(*rf, "test", AuditLog("/proc/no-audit-here"));
        QVERIFY_THROWS_EXCEPTION(Error, noLog.enqueue("{\"lost\":1}", std::nullopt));
        QCOMPARE(Queue::open(fresh, readOnlyOptions())->counts().stored, 1);
        const Report undone = opFresh.undo(*opFresh.lastUndoable());
        QCOMPARE(undone.applied(), std::size_t(1));
        QVERIFY(!Queue::open(fresh, readOnlyOptions())->get(stored.messageId));
        // Vacuum: the sizes of the host's file, recorded with them.
        std::pair<std::int64_t, std::int64_t> sizes{0, 0};
        const Report vac = opFresh.vacuum(&sizes);
        QVERIFY(sizes.first > 0 && sizes.second > 0);
        QCOMPARE(sizes.second, static_cast<std::int64_t>(std::filesystem::file_size(fresh)));
        QVERIFY(opFresh.record(vac.recordId));

        // A read-only session refuses each, naming the problem; nothing changes.
        auto ro2 = openRemoteAt(path, false);
        RemoteOperator opRo(*ro2, "test", AuditLog(audit.path().toStdString()));
        try {
            opRo.enqueue("x", std::nullopt);
            QFAIL("a read-only session enqueued");
        } catch (const Error& e) {
            QCOMPARE(e.kind(), ErrorKind::ReadOnly);
        }
        QVERIFY(alive(ro2->session()));
    }

    /// A bad settings value is refused with a message naming it; the
    /// session lives on.
    void badSettingsRefused() {
        auto s = startServer();
        Json p = Json::object();
        p.set("path", m_path);
        Json settings = Json::object();
        settings.set("max_receive", 0);
        p.set("settings", std::move(settings));
        try {
            s->call("open", std::move(p));
            QFAIL("open with max_receive 0 succeeded");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("max_receive") != std::string::npos, e.what());
        }
        QVERIFY(alive(*s));
        // A setting this side does not know (a newer peer's) is named, not
        // ignored.
        Json p2 = Json::object();
        p2.set("path", m_path);
        Json unknown = Json::object();
        unknown.set("visibility_timeout", 30);
        p2.set("settings", std::move(unknown));
        try {
            s->call("open", std::move(p2));
            QFAIL("open with an unknown setting succeeded");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("visibility_timeout") != std::string::npos,
                     e.what());
        }
        QVERIFY(alive(*s));
    }

    /// Settings travel as keyed data: every key and per-queue value of
    /// every format's settings survives the codec.
    void settingsRoundTrip() {
        FormatSettings all;
        for (const QueueFormat* f : QueueFormat::recognisers())
            for (const auto& st : f->settings()) {
                QVERIFY(all.set(st.key, st.libraryDefault + 7));
                if (st.perQueue)
                    QVERIFY(all.set(st.key, st.libraryDefault + 9, "thumbnails"));
            }
        QVERIFY(all.entries().size() >= 4);
        QCOMPARE(lq::core::remote::settingsFromJson(lq::core::remote::toJson(all)), all);
    }

    void malformedJsonKeepsTheSession() {
        auto s = startServer();
        const Json r = s->rawExchange("{this is not json");
        QCOMPARE(r["error"]["kind"].toString(), std::string("invalid argument"));
        QVERIFY(r["error"]["message"].toString().find("malformed request") != std::string::npos);
        const Json r2 = s->rawExchange("[1,2,3]");
        QVERIFY(r2.contains("error"));
        QVERIFY(alive(*s)); // alive
    }

    void unknownMethod() {
        auto s = startServer();
        try {
            s->call("drop_table");
            QFAIL("an unknown method was accepted");
        } catch (const Error& e) {
            QCOMPARE(e.kind(), ErrorKind::InvalidArgument);
            QVERIFY2(std::string(e.detail()).find("unknown method \"drop_table\"") !=
                         std::string::npos,
                     e.what());
        }
        QVERIFY(alive(*s));
    }

    void hugeRequestIsRefusedAndDiscarded() {
        auto s = startServer();
        std::string huge = "{\"id\":9,\"method\":\"get\",\"params\":{\"message_id\":\"";
        huge.append(3 * kMaxRequestBytes, 'x');
        huge += "\"}}";
        const Json r = s->rawExchange(huge);
        QVERIFY(r["id"].isNull());
        QVERIFY2(r["error"]["message"].toString().find("request too long") != std::string::npos,
                 r.dump().c_str());
        QVERIFY(alive(*s));
    }

    void requestAfterTheFileWasDeleted() {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("gone.db")).toStdString();
        Queue::create(path)->put("x");
        auto r = RemoteQueue::open(startServer(), path);
        QCOMPARE(r->counts().ready, 1);
        std::filesystem::remove(path);
        try {
            r->counts();
            QFAIL("a read on a deleted file succeeded");
        } catch (const Error& e) {
            QCOMPARE(e.kind(), ErrorKind::FileChanged);
            QVERIFY2(std::string(e.detail()).find("was deleted") != std::string::npos, e.what());
        }
        QVERIFY(r->session().call("now").isInt()); // the session lives on
        // The client heard it from the server's watcher, without asking.
        bool heard = false;
        for (int i = 0; i < 40 && !heard; ++i) {
            r->session().waitEvent(100);
            for (const auto& ev : r->session().takeEvents())
                heard = heard || ev["event"].toString() == "file_changed";
        }
        QVERIFY(heard);
    }

    void versionMismatchNamesBothVersions() {
        try {
            startServer(99);
            QFAIL("a client of version 99 was accepted");
        } catch (const Error& e) {
            QCOMPARE(e.kind(), ErrorKind::Unsupported);
            const std::string& m = e.detail();
            QVERIFY2(m.find("version 99") != std::string::npos, e.what());
            QVERIFY2(m.find("version " + std::to_string(kProtocolVersion)) != std::string::npos,
                     e.what());
        }
    }

    void changesArePushed() {
        auto r = openRemote(false);
        r->session().takeEvents();
        auto writer = Queue::open(m_path);
        writer->put("pushed");
        bool changed = false;
        for (int i = 0; i < 30 && !changed; ++i) {
            r->session().waitEvent(100);
            for (const auto& ev : r->session().takeEvents())
                changed = changed || ev["event"].toString() == "changed";
        }
        QVERIFY(changed);
    }

    void twoClientsOneMessage() {
        QTemporaryDir audit;
        auto a = openRemote(true);
        auto b = openRemote(true);
        RemoteOperator opA(*a, "test", AuditLog(audit.path().toStdString()));
        RemoteOperator opB(*b, "test", AuditLog(audit.path().toStdString()));
        const std::string id = m_locked[1];
        const auto m = a->get(id);
        QVERIFY(m);
        // Both saw the same claim token.
        const Plan pa = opA.planTargets(Action::Retry, {Target{id, m->token}});
        const Plan pb = opB.planTargets(Action::Retry, {Target{id, m->token}});
        const Report ra = opA.run(pa);
        const Report rb = opB.run(pb);
        // One wins; the other is told why its view is out of date.
        QCOMPARE(ra.applied(), std::size_t(1));
        QCOMPARE(rb.applied(), std::size_t(0));
        QCOMPARE(rb.skipped(), std::size_t(1));
        QCOMPARE(rb.result.skipped.front().kind, SkipKind::NotApplicable);
        // The winner's record is on this machine, naming the remote file.
        const auto rec = opA.record(ra.recordId);
        QVERIFY(rec);
        QCOMPARE(rec->queuePath, a->url());
        QCOMPARE(rec->applied.size(), std::size_t(1));
        QVERIFY(rec->complete);
        // Undo through the protocol restores the claim.
        const Report u = opA.undo(*opA.lastUndoable());
        QCOMPARE(u.applied(), std::size_t(1));
        auto local = Queue::open(m_path);
        QCOMPARE(local->get(id)->state, State::Locked);
        // A worker takes the message again: B's claim is stale now.
        QVERIFY(local->retry(id, m->token));
        const auto again = local->pop();
        QCOMPARE(again->messageId, id);
        const Report stale = opB.run(pb);
        QCOMPARE(stale.applied(), std::size_t(0));
        QCOMPARE(stale.result.skipped.front().kind, SkipKind::Changed);
        const std::string expect = "changed since shown: claim " + std::to_string(m->token) +
                                   " → " + std::to_string(again->token) + ", now LOCKED";
        QCOMPARE(stale.result.skipped.front().reason, expect);
    }

    void anUnrecordedChunkRollsBack() {
        auto r = openRemote(true);
        const std::string id = m_locked[2];
        const auto before = r->get(id);
        RemoteOperator op(*r, "test", AuditLog("/proc/no-audit-here"));
        const Report rep = op.run(op.planTargets(Action::MarkFailed, {Target{id, before->token}}));
        QVERIFY(rep.failed());
        QCOMPARE(rep.applied(), std::size_t(0));
        // The server rolled the chunk back: the file holds what it held.
        const auto after = Queue::open(m_path, readOnlyOptions())->get(id);
        QCOMPARE(after->state, before->state);
        QCOMPARE(after->token, before->token);
    }

    void killedServerIsAClearError() {
        auto r = openRemote(false);
        ::kill(r->session().pid(), SIGKILL);
        try {
            r->counts();
            QFAIL("a call on a killed server succeeded");
        } catch (const Error& e) {
            QCOMPARE(e.kind(), ErrorKind::Io);
            QVERIFY2(std::string(e.detail()).find("connection was lost") != std::string::npos,
                     e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TstRemoteProtocol)
#include "tst_remote_protocol.moc"
