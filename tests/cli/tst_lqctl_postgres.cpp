// SPDX-License-Identifier: MIT
// lqctl on a postgresql:// queue (issue 41, first slice) against a private
// PostgreSQL 15 server: the SQLite fixtures of Solid Queue, Oban and River
// copied into it (tests/support/pgcopy.h), and `lqctl stats --json` on
// PostgreSQL printing the very counts and sub-counts it prints for the
// SQLite file, for the whole queue and each named queue; list, get, errors
// and queues printing what they print for the file; `info`; a library
// without counts yet; writes refused; and no password in anything lqctl
// prints.
#include "support/lqctlrun.h"
#include "support/net.h"
#include "support/pgcopy.h"
#include "support/pgserver.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QRegularExpression>
#include <QTest>

#include <memory>

using namespace lq::test;

class TestLqctlPostgres : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<PgServer> m_pg;
    QTemporaryDir m_tmp;

    QString url(const QString& schema, bool password = false) const {
        QString u = m_pg->url();
        if (password)
            u.replace(QStringLiteral("postgres@"), QStringLiteral("postgres:sekrit@"));
        return schema.isEmpty() ? u : u + QStringLiteral("?schema=") + schema;
    }

private slots:
    void initTestCase() {
        m_pg = std::make_unique<PgServer>();
        if (!m_pg->ok())
            QSKIP(qPrintable(m_pg->error()));
        for (const auto& fc : pgFormatCases()) {
            const QString err = loadPgFormat(*m_pg, fc, m_tmp);
            QVERIFY2(err.isEmpty(), qPrintable(err));
        }
        QFile gj(dataDir() + QStringLiteral("/pg/good-job.sql"));
        QVERIFY(gj.open(QIODevice::ReadOnly));
        const QString err = m_pg->execScript(QString::fromUtf8(gj.readAll()), QStringLiteral("gj"));
        QVERIFY2(err.isEmpty(), qPrintable(err));
    }

    void cleanupTestCase() { m_pg.reset(); }

    void statsAsOnSqlite_data() {
        QTest::addColumn<int>("index");
        for (std::size_t i = 0; i < pgFormatCases().size(); ++i)
            QTest::newRow(pgFormatCases()[i].library) << static_cast<int>(i);
    }

    void statsAsOnSqlite() {
        QFETCH(int, index);
        const FormatCase& fc = pgFormatCases().at(static_cast<std::size_t>(index));
        const QString fixture = QStringLiteral("formats/") + QLatin1String(fc.fixture);
        const FixtureLqctl lq(fixture);
        const QString file = copyFixture(m_tmp, fixture);
        const QString pgUrl = url(QLatin1String(fc.schema), true);
        QStringList queues;
        const QJsonObject perQueue = lq.facts().value(QStringLiteral("per_queue")).toObject();
        for (auto it = perQueue.begin(); it != perQueue.end(); ++it)
            queues << it.key();
        for (const QString& queue : QStringList{QString()} + queues) {
            QStringList extra;
            if (!queue.isEmpty())
                extra << QStringLiteral("--queue") << queue;
            const QJsonObject onSqlite =
                lq.runJson(QStringList{QStringLiteral("stats"), file} + extra).object();
            const LqctlResult r = lq.run(
                QStringList{QStringLiteral("stats"), pgUrl, QStringLiteral("--json")} + extra);
            QVERIFY2(r.code == 0, r.err.constData());
            QVERIFY(!r.out.contains("sekrit"));
            const QJsonObject onPg = QJsonDocument::fromJson(r.out).object();
            QVERIFY(!onSqlite.isEmpty());
            QCOMPARE(onPg.value(QStringLiteral("format")).toString(), QLatin1String(fc.library));
            QCOMPARE(onPg.value(QStringLiteral("engine")).toString(), QStringLiteral("postgresql"));
            for (const char* key : {"counts", "sub_counts", "stuck", "latency_ns"})
                QVERIFY2(onPg.value(QLatin1String(key)) == onSqlite.value(QLatin1String(key)),
                         qPrintable(queue + QLatin1Char(' ') + QLatin1String(key) +
                                    QStringLiteral(": ") +
                                    QString::fromUtf8(QJsonDocument(onPg).toJson())));
            if (queue.isEmpty()) // and as facts.json states them
                QCOMPARE(countsAsFacts(onPg, lq.facts()).value(QStringLiteral("READY")).toInteger(),
                         lq.facts()
                             .value(QStringLiteral("counts"))
                             .toObject()
                             .value(QStringLiteral("READY"))
                             .toInteger());
        }
        // Prometheus: the same samples, but for the queue label, the size
        // (the file; the library's tables) and the format label.
        const auto samples = [](const QByteArray& text) {
            QStringList out;
            for (const QByteArray& line : text.split('\n')) {
                if (line.startsWith('#') || line.startsWith("lq_file_bytes") ||
                    line.startsWith("lq_read_only") || line.isEmpty())
                    continue;
                QString l = QString::fromUtf8(line);
                l.remove(QRegularExpression(QStringLiteral("queue=\"[^\"]*\",?")));
                out << l;
            }
            return out;
        };
        const LqctlResult promFile =
            lq.run({QStringLiteral("stats"), file, QStringLiteral("--prometheus")});
        const LqctlResult promPg =
            lq.run({QStringLiteral("stats"), pgUrl, QStringLiteral("--prometheus")});
        QVERIFY2(promPg.code == 0, promPg.err.constData());
        QVERIFY(!promPg.out.contains("sekrit"));
        QVERIFY(samples(promFile.out).size() > 10);
        QCOMPARE(samples(promPg.out), samples(promFile.out));
        QVERIFY(promPg.out.contains(QByteArray(QByteArray("format=\"") + fc.library + "\"")));

        // The plain table says the same counts in words.
        const LqctlResult plain = lq.run({QStringLiteral("stats"), pgUrl});
        QCOMPARE(plain.code, 0);
        QVERIFY(plain.out.contains("stored"));
        QVERIFY(plain.out.contains("postgresql://postgres@127.0.0.1"));
        QVERIFY(!plain.out.contains("sekrit"));
    }

    void info() {
        const FixtureLqctl lq(QStringLiteral("formats/oban-lite.sqlite3"));
        const LqctlResult r = lq.run(
            {QStringLiteral("info"), url(QStringLiteral("oban"), true), QStringLiteral("--json")});
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY(!r.out.contains("sekrit"));
        const QJsonObject j = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(j.value(QStringLiteral("format")).toString(), QStringLiteral("oban"));
        QCOMPARE(j.value(QStringLiteral("schema")).toString(), QStringLiteral("oban"));
        // Oban is written on PostgreSQL, and the test's user may write it.
        QCOMPARE(j.value(QStringLiteral("read_only")).toBool(), false);
        QVERIFY(j.value(QStringLiteral("read_only_reason")).isNull());
        QVERIFY(j.value(QStringLiteral("path"))
                    .toString()
                    .startsWith(QStringLiteral("postgresql://postgres@127.0.0.1:")));
        QCOMPARE(j.value(QStringLiteral("counts"))
                     .toObject()
                     .value(QStringLiteral("stored"))
                     .toInteger(),
                 23);
        QStringList names;
        for (const QJsonValue v : j.value(QStringLiteral("queues")).toArray())
            names << v.toObject().value(QStringLiteral("name")).toString();
        QCOMPARE(names, QStringList({QStringLiteral("default"), QStringLiteral("mailers"),
                                     QStringLiteral("media")}));
        const LqctlResult plain = lq.run({QStringLiteral("info"), url(QStringLiteral("oban"))});
        QCOMPARE(plain.code, 0);
        QVERIFY(plain.out.contains("oban (Oban, schema oban)"));

        // GoodJob, its tables empty: counted and written; a job that is not
        // there is skipped as gone.
        const LqctlResult gj =
            lq.run({QStringLiteral("info"), url(QStringLiteral("gj")), QStringLiteral("--json")});
        QVERIFY2(gj.code == 0, gj.err.constData());
        const QJsonObject gjo = QJsonDocument::fromJson(gj.out).object();
        QCOMPARE(gjo.value(QStringLiteral("format")).toString(), QStringLiteral("good-job"));
        QCOMPARE(gjo.value(QStringLiteral("counts"))
                     .toObject()
                     .value(QStringLiteral("stored"))
                     .toInteger(-1),
                 0);
        QCOMPARE(gjo.value(QStringLiteral("read_only")).toBool(), false);
        const LqctlResult gs = lq.run({QStringLiteral("stats"), url(QStringLiteral("gj"))});
        QVERIFY2(gs.code == 0, gs.err.constData());
        const LqctlResult gr = lq.run({QStringLiteral("retry"), url(QStringLiteral("gj")),
                                       QStringLiteral("a1000000-0000-4000-8000-000000000001"),
                                       QStringLiteral("--yes")});
        QVERIFY2(gr.out.contains("a1000000-0000-4000-8000-000000000001") ||
                     gr.err.contains("a1000000-0000-4000-8000-000000000001"),
                 gr.out.constData());

        // --queue that the queue does not hold.
        const LqctlResult nq = lq.run({QStringLiteral("stats"), url(QStringLiteral("oban")),
                                       QStringLiteral("--queue"), QStringLiteral("nope")});
        QCOMPARE(nq.code, 1);
        QVERIFY(nq.err.contains("no queue nope"));
    }

    void readsAsOnSqlite_data() { statsAsOnSqlite_data(); }

    /// list (whole and one page), get, errors and queues print on
    /// PostgreSQL what they print for the SQLite file the rows came from.
    void readsAsOnSqlite() {
        QFETCH(int, index);
        const FormatCase& fc = pgFormatCases().at(static_cast<std::size_t>(index));
        const QString fixture = QStringLiteral("formats/") + QLatin1String(fc.fixture);
        const FixtureLqctl lq(fixture);
        const QString file = copyFixture(m_tmp, fixture);
        const QString pgUrl = url(QLatin1String(fc.schema), true);
        const auto both = [&](const QStringList& args) {
            QStringList onFile = args;
            onFile.insert(1, file);
            QStringList onPg = args;
            onPg.insert(1, pgUrl);
            return std::pair{lq.run(onFile), lq.run(onPg)};
        };
        const auto ok = [](const std::pair<LqctlResult, LqctlResult>& r) {
            return r.first.code == 0 && r.second.code == 0 && !r.second.out.contains("sekrit") &&
                   !r.second.err.contains("sekrit");
        };
        // The JSON of every job: the same but for jsonb's own spelling of
        // the payload and the claim token, which hashes the row as each
        // engine stores it (and which no action on PostgreSQL uses yet).
        const auto jobs = [](const QByteArray& out) {
            QJsonArray a;
            for (const QJsonValue v : QJsonDocument::fromJson(out).array()) {
                QJsonObject o = v.toObject();
                o.remove(QStringLiteral("token"));
                o.remove(QStringLiteral("token_text"));
                o.insert(
                    QStringLiteral("data"),
                    QJsonDocument::fromJson(o.value(QStringLiteral("data")).toString().toUtf8())
                        .object());
                a.append(o);
            }
            return a;
        };
        {
            const auto r = both({QStringLiteral("list"), QStringLiteral("--json")});
            QVERIFY2(ok(r), QByteArray(r.first.err + r.second.err).constData());
            const auto& [a, b] = r;
            const QJsonArray ja = jobs(a.out);
            const QJsonArray jb = jobs(b.out);
            QVERIFY(ja.size() > 10);
            QCOMPARE(jb.size(), ja.size());
            // The keys whose values differ, with both values.
            const auto diff = [](const QJsonObject& x, const QJsonObject& y) {
                QByteArray d;
                for (const QString& k : x.keys() + y.keys())
                    if (x.value(k) != y.value(k))
                        d += k.toUtf8() + ": " +
                             QJsonDocument(QJsonArray{x.value(k), y.value(k)})
                                 .toJson(QJsonDocument::Compact) +
                             "; ";
                return d;
            };
            for (qsizetype k = 0; k < ja.size(); ++k)
                QVERIFY2(jb[k] == ja[k], diff(jb[k].toObject(), ja[k].toObject()).constData());
        }
        {
            const auto r =
                both({QStringLiteral("list"), QStringLiteral("--status"), QStringLiteral("failed"),
                      QStringLiteral("--limit"), QStringLiteral("3")});
            QVERIFY2(ok(r), QByteArray(r.first.err + r.second.err).constData());
            QCOMPARE(r.second.err, r.first.err); // "showing 3 of N"
            const auto j =
                both({QStringLiteral("list"), QStringLiteral("--status"), QStringLiteral("failed"),
                      QStringLiteral("--limit"), QStringLiteral("3"), QStringLiteral("--json")});
            QVERIFY2(ok(j), QByteArray(j.first.err + j.second.err).constData());
            QCOMPARE(jobs(j.second.out), jobs(j.first.out));
        }
        {
            const QString id =
                jobs(lq.run({QStringLiteral("list"), file, QStringLiteral("--json")}).out)
                    .last()
                    .toObject()
                    .value(QStringLiteral("message_id"))
                    .toString();
            const auto r = both({QStringLiteral("get"), id, QStringLiteral("--json")});
            QVERIFY2(ok(r), QByteArray(r.first.err + r.second.err).constData());
            const auto one = [&](const QByteArray& out) {
                return jobs("[" + out + "]").first().toObject();
            };
            QCOMPARE(one(r.second.out), one(r.first.out));
        }
        for (const QString& cmd : {QStringLiteral("errors"), QStringLiteral("queues")}) {
            const auto r = both({cmd, QStringLiteral("--json")});
            QVERIFY2(ok(r), QByteArray(r.first.err + r.second.err).constData());
            const auto& [a, b] = r;
            QCOMPARE(QJsonDocument::fromJson(b.out), QJsonDocument::fromJson(a.out));
        }
    }

    void writesRefused() {
        const FixtureLqctl lq(QStringLiteral("formats/oban-lite.sqlite3"));
        // Retry-expired is refused by Oban's own rule, word for word and with
        // the exit code it has on the SQLite file.
        const QStringList args{QStringLiteral("retry-expired"), QStringLiteral("--older-than"),
                               QStringLiteral("60")};
        QStringList onFile = args;
        onFile.insert(1, copyFixture(m_tmp, QStringLiteral("formats/oban-lite.sqlite3")));
        QStringList onPg = args;
        onPg.insert(1, url(QStringLiteral("oban"), true));
        const LqctlResult f = lq.run(onFile);
        const LqctlResult r = lq.run(onPg);
        QCOMPARE(r.code, f.code);
        QVERIFY(r.code != 0);
        const QByteArray reason("Oban's Lifeline rescues executing jobs by attempted_at");
        QVERIFY2(f.err.contains(reason) && r.err.contains(reason), r.err.constData());
        QVERIFY(!r.err.contains("sekrit"));
        // Pause on River: its river_queue row, recorded under the URL and
        // undone; Oban stores no pause, and says so.
        const QString river = url(QStringLiteral("river"), true);
        const QStringList pauseArgs{QStringLiteral("pause"), river, QStringLiteral("--queue"),
                                    QStringLiteral("default")};
        const LqctlResult p = lq.run(pauseArgs);
        QVERIFY2(p.code == 0, p.err.constData());
        const LqctlResult again = lq.run(pauseArgs);
        QVERIFY2(again.code != 0 && again.err.contains("already paused"), again.err.constData());
        const LqctlResult un = lq.run({QStringLiteral("undo"), river});
        QVERIFY2(un.code == 0, un.err.constData());
        QVERIFY2(un.out.contains("applied 1"), un.out.constData());
        const LqctlResult o = lq.run({QStringLiteral("pause"), url(QStringLiteral("oban"), true),
                                      QStringLiteral("--queue"), QStringLiteral("default")});
        QVERIFY(o.code != 0);
        QVERIFY2(o.err.contains("stores no pause"), o.err.constData());
        for (const LqctlResult* x : {&p, &again, &un, &o})
            QVERIFY(!x->out.contains("sekrit") && !x->err.contains("sekrit"));
        // put, vacuum and upgrade write SQLite files: refused with the
        // backend's reason (the window's tooltip), exit code 1.
        for (const auto& [command, why] :
             {std::pair<const char*, const char*>{"put", "inserted by their app"},
              {"vacuum", "autovacuum"},
              {"upgrade", "the library's migrations"}}) {
            QStringList a{QLatin1String(command), river};
            if (std::string_view(command) == "put")
                a << QStringLiteral("hello");
            const LqctlResult x = lq.run(a);
            QCOMPARE(x.code, 1);
            QVERIFY2(x.err.contains(why) && !x.err.contains("sekrit"), x.err.constData());
        }
    }

    /// A row action and its undo through lqctl, as on a file: the record
    /// in `audit` under the URL, never the password.
    void actsAndUndoes() {
        const FixtureLqctl lq(QStringLiteral("formats/oban-lite.sqlite3"));
        const QString u = url(QStringLiteral("oban"), true);
        const auto status = [&]() {
            const LqctlResult g =
                lq.run({QStringLiteral("get"), u, QStringLiteral("13"), QStringLiteral("--json")});
            return QJsonDocument::fromJson(g.out).object().value(QStringLiteral("status"));
        };
        QCOMPARE(status().toString(), QStringLiteral("FAILED"));
        const LqctlResult r =
            lq.run({QStringLiteral("retry"), u, QStringLiteral("13"), QStringLiteral("--yes")});
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY2(r.out.contains("13: FAILED -> READY"), r.out.constData());
        QCOMPARE(status().toString(), QStringLiteral("READY"));
        const LqctlResult a = lq.run({QStringLiteral("audit"), u, QStringLiteral("--json")});
        QVERIFY2(a.code == 0, a.err.constData());
        const QJsonArray records = QJsonDocument::fromJson(a.out).array();
        QCOMPARE(records.size(), 1);
        QCOMPARE(records.first().toObject().value(QStringLiteral("action")).toString(),
                 QStringLiteral("retry"));
        const LqctlResult un = lq.run({QStringLiteral("undo"), u});
        QVERIFY2(un.code == 0, un.err.constData());
        QVERIFY2(un.out.contains("applied 1"), un.out.constData());
        QCOMPARE(status().toString(), QStringLiteral("FAILED"));
        for (const LqctlResult* x : {&r, &a, &un})
            QVERIFY(!x->out.contains("sekrit") && !x->err.contains("sekrit"));
    }

    /// `lqctl prune` on River in PostgreSQL deletes what it deletes on the
    /// SQLite file the rows came from; `undo` writes every job back.
    void prunesAndUndoes() {
        const QString fixture = QStringLiteral("formats/river-v7.sqlite3");
        const FixtureLqctl lq(fixture);
        const QString file = copyFixture(m_tmp, fixture);
        const QString u = url(QStringLiteral("river"), true);
        const auto json = [&](const QStringList& args) {
            const LqctlResult r = lq.run(args);
            if (r.code != 0 || r.out.contains("sekrit") || r.err.contains("sekrit"))
                qWarning("%s", r.err.constData());
            return r.code == 0 ? QJsonDocument::fromJson(r.out).object() : QJsonObject();
        };
        const QStringList stats{QStringLiteral("stats"), u, QStringLiteral("--json")};
        const QJsonObject before = json(stats);
        QVERIFY(!before.isEmpty());
        const auto prune = [&](const QString& target) {
            return json({QStringLiteral("prune"), target, QStringLiteral("--older-than"),
                         QStringLiteral("60"), QStringLiteral("--yes"), QStringLiteral("--json")});
        };
        const QJsonObject onFile = prune(file);
        const QJsonObject onPg = prune(u);
        QVERIFY(onPg.value(QStringLiteral("pruned")).toInt() > 0);
        for (const char* key : {"matched", "pruned", "skipped"})
            QCOMPARE(onPg.value(QLatin1String(key)), onFile.value(QLatin1String(key)));
        QVERIFY(json(stats) != before);
        const LqctlResult un = lq.run({QStringLiteral("undo"), u});
        QVERIFY2(un.code == 0, un.err.constData());
        QCOMPARE(json(stats), before);
    }

    /// `lqctl exporter` serves a database as it serves a file: the counts
    /// `stats --prometheus` prints, labelled with the URL without its
    /// password, no -wal series, and a change another session commits
    /// served within a few intervals (the change marker, not a re-read
    /// per scrape).
    void exporterServesDatabase() {
        const QString u = url(QStringLiteral("oban"), true);
        const auto counts = [](const QByteArray& text) {
            QStringList out;
            for (const QByteArray& line : text.split('\n'))
                if (line.startsWith("lq_messages{") || line.startsWith("lq_named_queue_messages{"))
                    // the exporter labels each queue's table too (one file may hold several)
                    out << QString::fromUtf8(line).remove(
                        QRegularExpression(QStringLiteral(",table=\"[^\"]*\"")));
            out.sort();
            return out;
        };
        // At the wall clock, as the exporter reads (no --now).
        const LqctlResult stats =
            runLqctl(lqctlPath(), {QStringLiteral("stats"), u, QStringLiteral("--prometheus")},
                     m_tmp.path());
        QVERIFY2(stats.code == 0, stats.err.constData());
        const QStringList expected = counts(stats.out);
        QVERIFY(expected.size() > 5);

        QProcess exporter;
        exporter.setReadChannel(QProcess::StandardError);
        exporter.start(lqctlPath(),
                       {QStringLiteral("exporter"), QStringLiteral("--listen=127.0.0.1:0"),
                        QStringLiteral("--interval=0.5"), u});
        QVERIFY(exporter.waitForStarted());
        int port = 0;
        const QRegularExpression where(QStringLiteral(R"(127\.0\.0\.1:(\d+)/metrics)"));
        for (int i = 0; i < 100 && !port; ++i) {
            exporter.waitForReadyRead(100);
            if (const auto m = where.match(QString::fromUtf8(exporter.peek(4096))); m.hasMatch())
                port = m.captured(1).toInt();
        }
        QVERIFY2(port > 0, exporter.readAllStandardError().constData());
        const auto scrape = [port]() {
            const auto [code, body] = httpGet(port, "/metrics");
            return code == 200 ? QByteArray::fromStdString(body) : QByteArray();
        };
        QByteArray body = scrape();
        QVERIFY(!body.contains("sekrit"));
        const QByteArray up = QByteArray("lq_up{queue=\"") + url(QStringLiteral("oban")).toUtf8() +
                              QByteArray("\"} 1");
        QVERIFY2(body.contains(up), body.constData());
        QCOMPARE(counts(body), expected);
        QVERIFY(body.contains("lq_file_bytes{"));
        QVERIFY(!body.contains("file=\"wal\""));

        // One job cancelled by another session: served within a few
        // intervals, then put back for the suites after this one.
        const QString oban = QStringLiteral("oban");
        const QString cancel = QStringLiteral(
            "UPDATE oban_jobs SET state = 'cancelled' WHERE id = (SELECT min(id) FROM oban_jobs "
            "WHERE state = 'available')");
        QVERIFY(m_pg->execScript(QStringLiteral("CREATE TABLE lq_moved AS SELECT min(id) AS id "
                                                "FROM oban_jobs WHERE state = 'available'"),
                                 oban)
                    .isEmpty());
        QVERIFY(m_pg->execScript(cancel, oban).isEmpty());
        QElapsedTimer t;
        t.start();
        while (t.elapsed() < 15000 && counts(body = scrape()) == expected)
            QTest::qWait(200);
        const qint64 seenMs = t.elapsed();
        const QString restore = QStringLiteral(
            "UPDATE oban_jobs SET state = 'available' WHERE id = (SELECT id FROM lq_moved); "
            "DROP TABLE lq_moved");
        QVERIFY(m_pg->execScript(restore, oban).isEmpty());
        QVERIFY2(counts(body) != expected, "the exporter never served the change");
        QVERIFY2(body.contains("status=\"cancelled\"") || body.contains("cancelled"),
                 body.constData());
        qInfo("a committed change was served %lld ms after it", static_cast<long long>(seenMs));
        exporter.terminate();
        QVERIFY(exporter.waitForFinished(5000));
        QVERIFY(!exporter.readAllStandardError().contains("sekrit"));
    }

    /// `lqctl fleet URL`: the database as a folder's one queue, with the
    /// counts `stats --json` prints, named without its password.
    void fleetOfDatabase() {
        const FixtureLqctl lq(QStringLiteral("formats/river-v7.sqlite3"));
        const QString u = url(QStringLiteral("river"), true);
        const LqctlResult f = lq.run({QStringLiteral("fleet"), u, QStringLiteral("--json")});
        QVERIFY2(f.code == 0, f.err.constData());
        QVERIFY(!f.out.contains("sekrit"));
        const QJsonObject fleet = QJsonDocument::fromJson(f.out).object();
        const QJsonArray queues = fleet.value(QStringLiteral("queues")).toArray();
        QCOMPARE(queues.size(), 1);
        const QJsonObject q = queues.first().toObject();
        QCOMPARE(q.value(QStringLiteral("path")).toString(), url(QStringLiteral("river")));
        QCOMPARE(q.value(QStringLiteral("format")).toString(), QStringLiteral("river-sqlite"));
        const QJsonObject stats = lq.runJson({QStringLiteral("stats"), u}).object();
        const QJsonObject counts = stats.value(QStringLiteral("counts")).toObject();
        for (const char* k : {"ready", "scheduled", "locked", "done", "failed"})
            QCOMPARE(q.value(QLatin1String(k)).toInteger(-1),
                     counts.value(QLatin1String(k)).toInteger());
        QVERIFY(q.value(QStringLiteral("queues")).toArray().size() >= 2);

        const LqctlResult plain = lq.run({QStringLiteral("fleet"), u});
        QCOMPARE(plain.code, 0);
        QVERIFY(plain.out.contains("river-sqlite"));
        QVERIFY(!plain.out.contains("sekrit"));
    }

    void failuresWithoutPassword() {
        const FixtureLqctl lq(QStringLiteral("formats/oban-lite.sqlite3"));
        QString bad = url({}, true);
        bad.replace(QStringLiteral("/lqtest"), QStringLiteral("/nosuchdb"));
        const LqctlResult r = lq.run({QStringLiteral("stats"), bad});
        QCOMPARE(r.code, 5); // ExitIo
        QVERIFY2(r.err.contains("nosuchdb"), r.err.constData());
        QVERIFY2(!r.err.contains("sekrit"), r.err.constData());
        const LqctlResult none = lq.run({QStringLiteral("info"), url(QStringLiteral("public"))});
        QCOMPARE(none.code, 3); // ExitNotAQueue
        QVERIFY(none.err.contains("no queue library's tables here"));
    }

    /// `lqctl watch` on a database: a line at start, then one when another
    /// session commits (the change marker, no file to stat), no wal figure;
    /// the password never printed.
    void watchSeesAnotherSessionsChange() {
        QProcess watch;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("LQ_AUDIT_DIR"), m_tmp.filePath(QStringLiteral("audit")));
        watch.setProcessEnvironment(env);
        watch.start(lqctlPath(), {QStringLiteral("watch"), url(QStringLiteral("river"), true),
                                  QStringLiteral("--json"), QStringLiteral("--interval"),
                                  QStringLiteral("0.1")});
        QVERIFY(watch.waitForStarted());
        QByteArray output;
        QTRY_VERIFY_WITH_TIMEOUT((output += watch.readAllStandardOutput()).count('\n') >= 1, 10000);
        const QJsonObject first = QJsonDocument::fromJson(output.split('\n').at(0)).object();
        QVERIFY2(first.contains(QStringLiteral("failed")), output.constData());
        QVERIFY(!first.contains(QStringLiteral("wal_size")));
        const qint64 failed = first.value(QStringLiteral("failed")).toInteger();
        // Another session discards one available job, as River's worker does.
        const QString discard = QStringLiteral(
            "UPDATE river.river_job SET state = 'discarded', finalized_at = now() WHERE id = "
            "(SELECT min(id) FROM river.river_job WHERE state = 'available') RETURNING id");
        QVERIFY(
            m_pg->execScript(QStringLiteral("CREATE TABLE public.lq_watch_moved AS WITH m AS (") +
                             discard + QStringLiteral(") SELECT id FROM m"))
                .isEmpty());
        QTRY_VERIFY_WITH_TIMEOUT((output += watch.readAllStandardOutput()).count('\n') >= 2, 10000);
        const QJsonObject second = QJsonDocument::fromJson(output.split('\n').at(1)).object();
        QCOMPARE(second.value(QStringLiteral("failed")).toInteger(), failed + 1);
        watch.terminate();
        QVERIFY(watch.waitForFinished(5000));
        QCOMPARE(watch.exitCode(), 0);
        QVERIFY(!output.contains("sekrit"));
        // Back as it was, for whatever runs after.
        QVERIFY(m_pg->execScript(
                        QStringLiteral("UPDATE river.river_job SET state = 'available', "
                                       "finalized_at = NULL WHERE id IN (SELECT id FROM "
                                       "public.lq_watch_moved); DROP TABLE public.lq_watch_moved"))
                    .isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestLqctlPostgres)
#include "tst_lqctl_postgres.moc"
