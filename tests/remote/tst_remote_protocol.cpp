// SPDX-License-Identifier: MIT
// The remote protocol without ssh: `lqctl serve --stdio` over a pipe, driven
// by the core client. Bad requests get a clear error and the session lives
// on; two clients on one message: one wins, the other gets the stale-claim
// report; a version mismatch names both versions.
#include <core/audit.h>
#include <core/error.h>
#include <core/queue.h>
#include <core/remote/client.h>
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
