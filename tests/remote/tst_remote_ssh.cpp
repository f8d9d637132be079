// SPDX-License-Identifier: MIT
// lqctl over a real OpenSSH server: sshd on 127.0.0.1 with a generated host
// key and client key in a temporary folder, a client config passed with -F
// ($LQ_SSH_OPTS), the built lqctl as the remote command ($LQ_REMOTE_LQCTL).
// Every command on ssh://USER@127.0.0.1:PORT/PATH is compared with the same
// command on the local path of an identical copy.
#include <core/error.h>
#include <core/json.h>
#include <core/queue.h>
#include <core/remote/client.h>
#include <support/fixtures.h>
#include <support/sshd.h>

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <signal.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

using namespace lq::core;
using lq::test::TestSshd;

namespace {

using Result = TestSshd::Result;

/// Drops the keys that name one run (record ids) so two runs compare.
Json withoutRunIds(const Json& j) {
    if (j.isObject()) {
        Json o = Json::object();
        for (const auto& [k, v] : j.toObject()) {
            if (k != "record" && k != "undoes")
                o.set(k, withoutRunIds(v));
        }
        return o;
    }
    if (j.isArray()) {
        Json a = Json::array();
        for (const auto& v : j.toArray())
            a.push(withoutRunIds(v));
        return a;
    }
    return j;
}

} // namespace

class TstRemoteSsh : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    TestSshd m_sshd{m_dir};
    QString m_local;  ///< the copy lqctl opens locally
    QString m_remote; ///< the copy lqctl opens over ssh
    QString m_url;
    std::vector<std::string> m_locked;
    std::string m_now;

    QString path(const char* name) const { return m_dir.filePath(QString::fromUtf8(name)); }

    QProcessEnvironment env() const {
        QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
        e.insert(QStringLiteral("LQ_SSH_OPTS"), m_sshd.sshOpts());
        e.insert(QStringLiteral("LQ_REMOTE_LQCTL"), QStringLiteral(LQCTL_PATH));
        e.insert(QStringLiteral("LQ_AUDIT_DIR"), path("audit"));
        return e;
    }

    Result lqctl(const QStringList& args) const {
        return TestSshd::run(QStringLiteral(LQCTL_PATH), args, 30000, env());
    }

    /// The format fixture `name` copied to the local and the remote path.
    static bool copyTwice(const QString& name, const QString& local, const QString& remote) {
        for (const QString& to : {local, remote}) {
            if (!QFile::copy(QStringLiteral(LQ_TEST_DATA_DIR "/formats/") + name, to))
                return false;
            QFile::setPermissions(to, QFile::ReadOwner | QFile::WriteOwner);
        }
        return true;
    }

    /// The same command on the local copy and over ssh on the remote copy.
    std::pair<Result, Result> both(const QString& command, const QStringList& args) const {
        QStringList l = {command, m_local};
        QStringList r = {command, m_url};
        l += args;
        r += args;
        return {lqctl(l), lqctl(r)};
    }

    /// Pinned "now" (--now) so ages compare.
    void compareJson(const QString& command, QStringList args, int expectCode = 0) {
        args << QStringLiteral("--now=") + QString::fromStdString(m_now);
        const auto [l, r] = both(command, args);
        QVERIFY2(l.code == expectCode, l.err.constData());
        QVERIFY2(r.code == expectCode, r.err.constData());
        const Json jl = withoutRunIds(Json::parse(l.out.toStdString()));
        const Json jr = withoutRunIds(Json::parse(r.out.toStdString()));
        if (jr.dump(2) != jl.dump(2))
            qWarning("local:\n%s\nremote:\n%s", jl.dump(2).c_str(), jr.dump(2).c_str());
        QCOMPARE(jr.dump(2), jl.dump(2));
    }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        const QString up = m_sshd.start();
        QVERIFY2(up.isEmpty(), qPrintable(up));
        m_url = m_sshd.url();

        // Two identical queues: one used locally, one over ssh.
        m_local = path("local.db");
        m_remote = path("remote.db");
        {
            auto q = Queue::create(m_local.toStdString());
            for (int i = 0; i < 40; ++i)
                q->put("{\"n\":" + std::to_string(i) + "}", "key-" + std::to_string(i));
            for (int i = 0; i < 6; ++i)
                m_locked.push_back(q->pop()->messageId);
            for (int i = 0; i < 4; ++i) {
                const auto m = q->pop();
                QVERIFY(i % 2 ? q->done(m->messageId, m->claimId)
                              : q->markFailed(m->messageId, m->claimId));
            }
            m_now = std::to_string(q->now());
        }
        // The whole file: its WAL too, if the last connection left one.
        QVERIFY(lq::test::copyDatabase(m_local, m_remote));
        m_url += m_remote;
    }

    void cleanupTestCase() { m_sshd.stop(); }

    void statsJsonIsEqual() { compareJson(QStringLiteral("stats"), {QStringLiteral("--json")}); }

    void infoIsEqual() {
        // info names the path; the two copies differ only there.
        const auto [l, r] = both(QStringLiteral("info"), {QStringLiteral("--json")});
        QCOMPARE(r.code, 0);
        Json jl = Json::parse(l.out.toStdString());
        Json jr = Json::parse(r.out.toStdString());
        QCOMPARE(jr["path"].toString(), m_remote.toStdString());
        jl.set("path", "");
        jr.set("path", "");
        QCOMPARE(jr.dump(2), jl.dump(2));
        const auto [lt, rt] = both(QStringLiteral("info"), {});
        QCOMPARE(QString::fromUtf8(rt.out).replace(m_remote, QStringLiteral("P")),
                 QString::fromUtf8(lt.out).replace(m_local, QStringLiteral("P")));
    }

    void listPagesAreEqual() {
        const QString now = QStringLiteral("--now=") + QString::fromStdString(m_now);
        compareJson(QStringLiteral("list"), {QStringLiteral("--json")});
        compareJson(QStringLiteral("list"),
                    {QStringLiteral("--json"), QStringLiteral("--status=ready"),
                     QStringLiteral("--limit=5"), QStringLiteral("--search=key-2")});
        const auto [l, r] = both(QStringLiteral("list"), {now, QStringLiteral("--limit=7")});
        QCOMPARE(r.code, 0);
        QCOMPARE(r.out, l.out);
        QCOMPARE(r.err, l.err);
        const auto [lc, rc] = both(QStringLiteral("list"), {now, QStringLiteral("--csv")});
        QCOMPARE(rc.out, lc.out);
    }

    void getIsEqual() {
        const QString id = QString::fromStdString(m_locked[0]);
        const QString now = QStringLiteral("--now=") + QString::fromStdString(m_now);
        compareJson(QStringLiteral("get"), {id, QStringLiteral("--json")});
        const auto [l, r] = both(QStringLiteral("get"), {id, now});
        QCOMPARE(r.out, l.out);
        const auto [lm, rm] = both(QStringLiteral("get"), {QStringLiteral("missing-id")});
        QCOMPARE(rm.code, 1);
        QCOMPARE(lm.code, 1);
    }

    void retryAndFailWithClaims() {
        const QString id = QString::fromStdString(m_locked[1]);
        // A stale claim is refused on both, with the same reason.
        const auto [ls, rs] = both(QStringLiteral("retry"), {id, QStringLiteral("--claim=99")});
        QCOMPARE(ls.code, 1);
        QCOMPARE(rs.code, 1);
        QCOMPARE(QString::fromUtf8(rs.err).replace(m_url, QStringLiteral("F")),
                 QString::fromUtf8(ls.err).replace(m_local, QStringLiteral("F")));
        QVERIFY2(rs.err.contains(QByteArray("the claim did not match: job " + id.toUtf8() +
                                            " holds claim 1, not 99")),
                 rs.err.constData());
        compareJson(QStringLiteral("retry"),
                    {id, QStringLiteral("--claim=1"), QStringLiteral("--json")});
        const QString id2 = QString::fromStdString(m_locked[2]);
        compareJson(QStringLiteral("fail"),
                    {id2, QStringLiteral("--claim=1"), QStringLiteral("--json")});
    }

    void retryExpiredPruneAndUndo() {
        compareJson(QStringLiteral("retry-expired"),
                    {QStringLiteral("--older-than=0"), QStringLiteral("--json")});
        compareJson(QStringLiteral("prune"), {QStringLiteral("--yes"), QStringLiteral("--json")});
        compareJson(QStringLiteral("undo"), {QStringLiteral("--json")});
        compareJson(QStringLiteral("undo"), {QStringLiteral("--json")});
        // The two files hold the same rows again.
        compareJson(
            QStringLiteral("list"),
            {QStringLiteral("--json"), QStringLiteral("--now=") + QString::fromStdString(m_now)});
        // The records are on this machine, naming the host.
        const Result a = lqctl({QStringLiteral("audit"), m_url, QStringLiteral("--json")});
        QCOMPARE(a.code, 0);
        const Json recs = Json::parse(a.out.toStdString());
        QVERIFY(recs.toArray().size() >= 6);
        const std::string named = recs.toArray().back()["path"].toString();
        QCOMPARE(named,
                 "ssh://127.0.0.1:" + std::to_string(m_sshd.port()) + m_remote.toStdString());
    }

    /// A format with named queues (liteque): --queue narrows the same way,
    /// the format's extra states travel too.
    void namedQueuesOfAnotherFormatAreEqual() {
        const QString local = path("liteque-local.db");
        const QString remote = path("liteque-remote.db");
        QVERIFY(copyTwice(QStringLiteral("liteque-queue.db"), local, remote));
        const QString url = m_url.left(m_url.indexOf(m_remote)) + remote;
        const QString now = QStringLiteral("--now=2026-11-30T12:00:00Z");
        for (const QStringList& args :
             {QStringList{QStringLiteral("stats"), QStringLiteral("--json"), now},
              QStringList{QStringLiteral("stats"), QStringLiteral("--json"), now,
                          QStringLiteral("--queue"), QStringLiteral("link_crawler_queue")},
              QStringList{QStringLiteral("list"), QStringLiteral("--json"), now,
                          QStringLiteral("--queue"), QStringLiteral("openai_queue")}}) {
            QStringList l = args, r = args;
            l.insert(1, local);
            r.insert(1, url);
            const Result a = lqctl(l), b = lqctl(r);
            QVERIFY2(a.code == 0, a.err.constData());
            QVERIFY2(b.code == 0, b.err.constData());
            const std::string jl = withoutRunIds(Json::parse(a.out.toStdString())).dump(2);
            const std::string jr = withoutRunIds(Json::parse(b.out.toStdString())).dump(2);
            // Both sides name their own file; the rest must be equal.
            QCOMPARE(QString::fromStdString(jr).replace(url, local).replace(remote, local),
                     QString::fromStdString(jl));
        }
        const Result s = lqctl({QStringLiteral("stats"), url, QStringLiteral("--json"), now});
        QVERIFY(s.out.contains("\"extra\""));
    }

    /// Failures grouped by error (issue 39) over ssh: `errors` equal to the
    /// local file's, and `retry --error CLASS` acting on the same group,
    /// undone over ssh as locally.
    void errorGroupsOverSsh() {
        const QString local = path("laravel-local.db");
        const QString remote = path("laravel-remote.db");
        QVERIFY(copyTwice(QStringLiteral("laravel-database.sqlite3"), local, remote));
        const QString url = m_url.left(m_url.indexOf(m_remote)) + remote;
        const QString now = QStringLiteral("--now=2026-11-30T12:00:00Z");
        const auto run = [&](const QString& where, QStringList args) {
            args.insert(1, where);
            const Result r = lqctl(args);
            if (r.code != 0)
                qWarning("%s", r.err.constData());
            return r;
        };
        const Result a = run(local, {QStringLiteral("errors"), QStringLiteral("--json"), now});
        const Result b = run(url, {QStringLiteral("errors"), QStringLiteral("--json"), now});
        QCOMPARE(a.code, 0);
        QCOMPARE(b.code, 0);
        QCOMPARE(b.out, a.out);
        QVERIFY(a.out.contains("RuntimeException"));
        const QStringList retry = {
            QStringLiteral("retry"), QStringLiteral("--error"), QStringLiteral("RuntimeException"),
            QStringLiteral("--yes"), QStringLiteral("--json"),  now};
        const Result ra = run(local, retry), rb = run(url, retry);
        QCOMPARE(ra.code, 0);
        QCOMPARE(rb.code, 0);
        const Json ja = Json::parse(ra.out.toStdString()), jb = Json::parse(rb.out.toStdString());
        QVERIFY(ja["applied"].toInt() >= 2);
        QCOMPARE(jb["applied"].toInt(), ja["applied"].toInt());
        const Result after = run(url, {QStringLiteral("errors"), QStringLiteral("--json"), now});
        QVERIFY(!after.out.contains("RuntimeException"));
        QCOMPARE(run(url, {QStringLiteral("undo"), now}).code, 0);
        QCOMPARE(run(url, {QStringLiteral("errors"), QStringLiteral("--json"), now}).out, a.out);
    }

    /// The processes a Solid Queue file records, and its paused queues, over
    /// ssh as locally.
    void processesOverSsh() {
        const QString local = path("sq-local.db");
        const QString remote = path("sq-remote.db");
        QVERIFY(copyTwice(QStringLiteral("solid-queue.sqlite3"), local, remote));
        const QString url = m_url.left(m_url.indexOf(m_remote)) + remote;
        const QString now = QStringLiteral("--now=2026-11-30T12:00:00Z");
        const Result a = lqctl({QStringLiteral("processes"), local, QStringLiteral("--json"), now});
        const Result b = lqctl({QStringLiteral("processes"), url, QStringLiteral("--json"), now});
        QVERIFY2(a.code == 0, a.err.constData());
        QVERIFY2(b.code == 0, b.err.constData());
        QCOMPARE(b.out, a.out);
        QVERIFY(a.out.contains("\"alive\": false"));
        const Result info = lqctl({QStringLiteral("info"), url, QStringLiteral("--json"), now});
        QVERIFY(Json::parse(info.out.toStdString())["paused_queues"].toArray().size() == 1);
    }

    /// Pause and resume over ssh as locally: the same report, the same rows,
    /// recorded on this machine as pause and resume, undone over ssh.
    void pauseOverSsh() {
        const QString local = path("sqp-local.db");
        const QString remote = path("sqp-remote.db");
        QVERIFY(copyTwice(QStringLiteral("solid-queue.sqlite3"), local, remote));
        const QString url = m_url.left(m_url.indexOf(m_remote)) + remote;
        const QString now = QStringLiteral("--now=2026-11-30T12:00:00Z");
        const auto paused = [&](const QString& file) {
            const Result r = lqctl({QStringLiteral("info"), file, QStringLiteral("--json"), now});
            return Json::parse(r.out.toStdString())["paused_queues"].dump();
        };
        for (const char* action : {"pause", "resume"}) {
            const QString queue =
                QString::fromUtf8(std::strcmp(action, "pause") == 0 ? "default" : "reports");
            QStringList args = {QString::fromUtf8(action), QString(),
                                QStringLiteral("--queue"), queue,
                                QStringLiteral("--json"),  now};
            args[1] = local;
            const Result a = lqctl(args);
            args[1] = url;
            const Result b = lqctl(args);
            QVERIFY2(a.code == 0, a.err.constData());
            QVERIFY2(b.code == 0, b.err.constData());
            Json ja = Json::parse(a.out.toStdString());
            Json jb = Json::parse(b.out.toStdString());
            QVERIFY(jb["record"].isString());
            ja.set("record", Json());
            jb.set("record", Json());
            QCOMPARE(jb.dump(), ja.dump());
            QCOMPARE(paused(url), paused(local));
        }
        QCOMPARE(paused(url), std::string("[\"default\"]"));
        const Result audit = lqctl({QStringLiteral("audit"), url, QStringLiteral("--json")});
        const Json records = Json::parse(audit.out.toStdString());
        QCOMPARE(records.toArray().size(), std::size_t(2));
        QCOMPARE(records.toArray()[0]["action"].toString(), std::string("pause"));
        QCOMPARE(records.toArray()[1]["action"].toString(), std::string("resume"));
        QCOMPARE(lqctl({QStringLiteral("undo"), url, now}).code, 0);
        QCOMPARE(lqctl({QStringLiteral("undo"), url, now}).code, 0);
        QCOMPARE(paused(url), std::string("[\"reports\"]"));
    }

    /// The recurring tasks of a Solid Queue file, their last, next and missed
    /// runs, over ssh as locally, also with --tz.
    void recurringOverSsh() {
        const QString local = path("sqr-local.db");
        const QString remote = path("sqr-remote.db");
        QVERIFY(copyTwice(QStringLiteral("solid-queue.sqlite3"), local, remote));
        const QString url = m_url.left(m_url.indexOf(m_remote)) + remote;
        const QString now = QStringLiteral("--now=2026-11-30T12:00:00Z");
        for (const QStringList& extra :
             {QStringList{}, QStringList{QStringLiteral("--tz=+05:30")}}) {
            const Result a = lqctl(
                QStringList{QStringLiteral("recurring"), local, QStringLiteral("--json"), now} +
                extra);
            const Result b =
                lqctl(QStringList{QStringLiteral("recurring"), url, QStringLiteral("--json"), now} +
                      extra);
            QVERIFY2(a.code == 0, a.err.constData());
            QVERIFY2(b.code == 0, b.err.constData());
            QCOMPARE(b.out, a.out);
        }
        const Json tasks =
            Json::parse(lqctl({QStringLiteral("recurring"), url, QStringLiteral("--json"), now})
                            .out.toStdString())["tasks"];
        QCOMPARE(tasks.toArray().size(), std::size_t(1));
        QCOMPARE(tasks.toArray()[0]["missed"].toInt(), std::int64_t(24));

        // Run now over ssh as locally: the same job, recorded on this machine
        // as run-recurring, undone over ssh.
        QStringList run = {QStringLiteral("recurring"),
                           QString(),
                           QStringLiteral("--run"),
                           QStringLiteral("clear_solid_queue_finished_jobs"),
                           QStringLiteral("--yes"),
                           QStringLiteral("--json"),
                           now};
        run[1] = local;
        const Result a = lqctl(run);
        run[1] = url;
        const Result b = lqctl(run);
        QVERIFY2(a.code == 0, a.err.constData());
        QVERIFY2(b.code == 0, b.err.constData());
        Json ja = Json::parse(a.out.toStdString());
        Json jb = Json::parse(b.out.toStdString());
        QCOMPARE(jb["job_id"].toString(), std::string("23"));
        ja.set("record", Json());
        jb.set("record", Json());
        QCOMPARE(jb.dump(), ja.dump());
        const Json records = Json::parse(
            lqctl({QStringLiteral("audit"), url, QStringLiteral("--json")}).out.toStdString());
        QCOMPARE(records.toArray().back()["action"].toString(), std::string("run-recurring"));
        QCOMPARE(lqctl({QStringLiteral("undo"), url, now}).code, 0);
        const Result after =
            lqctl({QStringLiteral("recurring"), url, QStringLiteral("--json"), now});
        QCOMPARE(Json::parse(after.out.toStdString())["tasks"].toArray()[0]["missed"].toInt(),
                 std::int64_t(24));
    }

    /// `lqctl --max-receive ... stats ssh://...`: the server opens the file
    /// with the settings, so the remote counts are the local ones with them.
    void unstoredSettingsTravel() {
        const QString local = path("goqite-local.db");
        const QString remote = path("goqite-remote.db");
        QVERIFY(copyTwice(QStringLiteral("goqite.sqlite3"), local, remote));
        const QString url = m_url.left(m_url.indexOf(m_remote)) + remote;
        const QStringList common = {QStringLiteral("--json"),
                                    QStringLiteral("--now=2026-11-30T12:00:00Z")};
        const QStringList settings = {QStringLiteral("--max-receive"), QStringLiteral("2"),
                                      QStringLiteral("--max-receive"),
                                      QStringLiteral("thumbnails=4")};
        const auto counts = [&](const QString& file, const QStringList& extra) {
            const Result r = lqctl(QStringList{QStringLiteral("stats"), file} + common + extra);
            if (r.code != 0)
                qWarning("%s", r.err.constData());
            return Json::parse(r.out.toStdString())["counts"].dump();
        };
        const std::string withLocal = counts(local, settings);
        QCOMPARE(counts(url, settings), withLocal);
        QCOMPARE(counts(url, {}), counts(local, {}));
        QVERIFY(counts(url, {}) != withLocal);
    }

    /// The claim-free writes over ssh: upgrade, put and vacuum leave the
    /// remote file as they leave the local one; the records are this
    /// machine's, naming the host.
    void upgradePutVacuumAreEqual() {
        const QString local = path("maxsize-local.db");
        const QString remote = path("maxsize-remote.db");
        for (const QString& to : {local, remote}) {
            QVERIFY(QFile::copy(QStringLiteral(LQ_TEST_DATA_DIR "/litequeue-head-maxsize.sqlite3"),
                                to));
            QFile::setPermissions(to, QFile::ReadOwner | QFile::WriteOwner);
        }
        const QString url = m_url.left(m_url.indexOf(m_remote)) + remote;
        const QString now = QStringLiteral("--now=2026-11-30T12:00:00Z");
        const auto same = [&](const QStringList& args) -> QString {
            QStringList l = args, r = args;
            l.insert(1, local);
            r.insert(1, url);
            const Result a = lqctl(l), b = lqctl(r);
            if (a.code != 0 || b.code != 0 || a.out.isEmpty())
                return QStringLiteral("failed: ") + QString::fromUtf8(a.err + b.err);
            const std::string jl = withoutRunIds(Json::parse(a.out.toStdString())).dump(2);
            const std::string jr = withoutRunIds(Json::parse(b.out.toStdString())).dump(2);
            const QString left = QString::fromStdString(jl);
            const QString right =
                QString::fromStdString(jr).replace(url, local).replace(remote, local);
            return left == right ? QString() : left + QStringLiteral("\n---\n") + right;
        };
        QString diff =
            same({QStringLiteral("upgrade"), QStringLiteral("--yes"), QStringLiteral("--json")});
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
        diff = same({QStringLiteral("stats"), QStringLiteral("--json"), now});
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
        // put on the full upgraded file: the same refusal on both sides.
        const QStringList full = {QStringLiteral("put"), QStringLiteral("{}")};
        const Result fl = lqctl({full[0], local, full[1]});
        const Result fr = lqctl({full[0], url, full[1]});
        QCOMPARE(fr.code, fl.code);
        QVERIFY(fl.code != 0);
        QCOMPARE(QString::fromUtf8(fr.err).replace(url, local), QString::fromUtf8(fl.err));
        // put on the shared pair: the same message stored (its id and times
        // are its own), recorded here.
        std::vector<Json> stored;
        for (const QString& file : {m_local, m_url}) {
            const Result r =
                lqctl({QStringLiteral("put"), file, QStringLiteral("{\"p\":1}"),
                       QStringLiteral("--key"), QStringLiteral("k-put"), QStringLiteral("--json")});
            QVERIFY2(r.code == 0, r.err.constData());
            stored.push_back(Json::parse(r.out.toStdString()));
        }
        QCOMPARE(stored[1]["data"].toString(), std::string("{\"p\":1}"));
        QCOMPARE(stored[1]["data"].dump(), stored[0]["data"].dump());
        QCOMPARE(stored[1]["status"].dump(), stored[0]["status"].dump());
        QVERIFY(Queue::open(m_remote.toStdString())
                    ->get(stored[1]["message_id"].toString())
                    .has_value());
        const auto counts = [&](const QString& file) {
            return Json::parse(lqctl({QStringLiteral("stats"), file, QStringLiteral("--json"), now})
                                   .out.toStdString())["counts"]
                .dump();
        };
        QCOMPARE(counts(url), counts(local));
        QCOMPARE(counts(m_url), counts(m_local));
        const Result v = lqctl({QStringLiteral("vacuum"), url, QStringLiteral("--json")});
        QVERIFY2(v.code == 0, v.err.constData());
        QCOMPARE(Json::parse(v.out.toStdString())["after"].toInt(),
                 static_cast<std::int64_t>(std::filesystem::file_size(remote.toStdString())));
        // upgrade and vacuum are on record here, naming the host (the
        // refused put is not).
        const Result a = lqctl({QStringLiteral("audit"), url, QStringLiteral("--json")});
        QCOMPARE(a.code, 0);
        QCOMPARE(Json::parse(a.out.toStdString()).toArray().size(), std::size_t(2));
        QCOMPARE(Json::parse(a.out.toStdString()).toArray().front()["path"].toString(),
                 "ssh://127.0.0.1:" + std::to_string(m_sshd.port()) + remote.toStdString());
    }

    void killedConnectionIsAClearError() {
        qputenv("LQ_SSH_OPTS", m_sshd.sshOpts().toUtf8());
        qputenv("LQ_REMOTE_LQCTL", LQCTL_PATH);
        auto q = remote::RemoteQueue::open(m_url.toStdString());
        QVERIFY(q->counts().stored > 0);
        ::kill(q->session().pid(), SIGKILL);
        try {
            q->counts();
            QFAIL("a call over a killed connection succeeded");
        } catch (const Error& e) {
            QCOMPARE(e.kind(), ErrorKind::Io);
            const std::string what = e.what();
            QVERIFY2(what.find("connection was lost") != std::string::npos, e.what());
            QVERIFY2(what.find("ssh://127.0.0.1") != std::string::npos, e.what());
        }
    }

    void badHostIsAClearError() {
        const Result r =
            lqctl({QStringLiteral("stats"), QStringLiteral("ssh://127.0.0.1:1/nonexistent.db")});
        QCOMPARE(r.code, 5);
        QVERIFY2(r.err.contains("connection was lost"), r.err.constData());
        const Result bad = lqctl({QStringLiteral("stats"), QStringLiteral("ssh://host:99999/x")});
        QCOMPARE(bad.code, 2);
        QVERIFY2(bad.err.contains("bad port"), bad.err.constData());
    }
};

QTEST_GUILESS_MAIN(TstRemoteSsh)
#include "tst_remote_ssh.moc"
