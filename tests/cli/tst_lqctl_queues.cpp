// SPDX-License-Identifier: MIT
// `lqctl queues` (issue 39 item 6) on the Solid Queue, Laravel and Oban
// fixtures and a litequeue file: one row per named queue whose counts are
// `stats --queue Q`'s, exact numbers against SQL on the file, throughput over
// a range, the paused queue; and the error text `list` shows and searches
// (item 5): list --json's error_class is `lqctl errors`' group, and --search
// finds a failed job by its error on every format that stores one.
#include "support/fixtures.h"
#include "support/lqctlrun.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using lq::test::copyFixture;
using lq::test::fileDigest;
using lq::test::FixtureLqctl;
using lq::test::formatFixtures;
using lq::test::LqctlResult;
using lq::test::sqlInt;

namespace {

const QString kSolid = QStringLiteral("formats/solid-queue.sqlite3");
const QString kLaravel = QStringLiteral("formats/laravel-database.sqlite3");
const QString kOban = QStringLiteral("formats/oban-lite.sqlite3");

QString s(const char* t) {
    return QString::fromUtf8(t);
}

/// The rows of `queues --json`, by queue name.
QMap<QString, QJsonObject> rowsOf(const QJsonDocument& d) {
    QMap<QString, QJsonObject> out;
    for (const QJsonValue& v : d.object().value(s("queues")).toArray())
        out.insert(v.toObject().value(s("queue")).toString(), v.toObject());
    return out;
}

qint64 count(const QJsonObject& row, const char* state) {
    return row.value(s("counts")).toObject().value(s(state)).toInteger();
}

} // namespace

class TstLqctlQueues : public QObject {
    Q_OBJECT

    /// Each row's counts, sub-counts and whole-range wait are those of
    /// `stats --queue Q --json` (the one truth of a queue's counts).
    static void sameAsStats(const FixtureLqctl& l, const QString& path,
                            const QMap<QString, QJsonObject>& rows) {
        for (auto it = rows.begin(); it != rows.end(); ++it) {
            QStringList args = {s("stats"), path};
            if (!it.key().isEmpty())
                args << s("--queue") << it.key();
            const QJsonObject st = l.runJson(args).object();
            QCOMPARE(it.value().value(s("counts")), st.value(s("counts")));
            QCOMPARE(it.value().value(s("sub_counts")), st.value(s("sub_counts")));
            const QJsonObject wait =
                st.value(s("latency_ns")).toObject().value(s("wait")).toObject();
            QCOMPARE(it.value().value(s("wait_p50_ns")), wait.value(s("p50")));
            QCOMPARE(it.value().value(s("wait_p99_ns")), wait.value(s("p99")));
        }
    }

private slots:
    void solidQueuePerQueue() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, kSolid);
        const QByteArray before = fileDigest(path);
        FixtureLqctl l(kSolid);
        const QMap<QString, QJsonObject> rows = rowsOf(l.runJson({s("queues"), path}));
        QCOMPARE(qint64(rows.size()),
                 sqlInt(path, "SELECT count(DISTINCT queue_name) FROM solid_queue_jobs"));
        sameAsStats(l, path, rows);
        qint64 failedSum = 0;
        for (auto it = rows.begin(); it != rows.end(); ++it) {
            const QByteArray q = "'" + it.key().toUtf8() + "'";
            QCOMPARE(it.value().value(s("counts")).toObject().value(s("stored")).toInteger(),
                     sqlInt(path, "SELECT count(*) FROM solid_queue_jobs WHERE queue_name = " + q));
            QCOMPARE(count(it.value(), "failed"),
                     sqlInt(path, "SELECT count(*) FROM solid_queue_failed_executions f JOIN "
                                  "solid_queue_jobs j ON j.id = f.job_id WHERE j.queue_name = " +
                                      q));
            QCOMPARE(count(it.value(), "done"),
                     sqlInt(path, "SELECT count(*) FROM solid_queue_jobs WHERE finished_at IS "
                                  "NOT NULL AND queue_name = " +
                                      q));
            QCOMPARE(it.value().value(s("paused")).toBool(),
                     sqlInt(path, "SELECT count(*) FROM solid_queue_pauses WHERE queue_name = " +
                                      q) == 1);
            failedSum += count(it.value(), "failed");
        }
        QCOMPARE(failedSum, sqlInt(path, "SELECT count(*) FROM solid_queue_failed_executions"));
        QVERIFY(rows.value(s("reports")).value(s("paused")).toBool());
        QVERIFY(rows.value(s("reports")).value(s("paused_since_ns")).isDouble());

        // Throughput over one hour: the jobs finished in it, per hour.
        const QJsonDocument ranged =
            l.runJson({s("queues"), path, s("--from"), s("2026-11-30T09:00:00Z"), s("--to"),
                       s("2026-11-30T10:00:00Z")});
        const QMap<QString, QJsonObject> hour = rowsOf(ranged);
        for (auto it = hour.begin(); it != hour.end(); ++it) {
            const qint64 done =
                sqlInt(path, "SELECT count(*) FROM solid_queue_jobs j WHERE queue_name = '" +
                                 it.key().toUtf8() +
                                 "' AND finished_at >= '2026-11-30 09:00:00' AND finished_at < "
                                 "'2026-11-30 10:00:00' AND NOT EXISTS (SELECT 1 FROM "
                                 "solid_queue_failed_executions f WHERE f.job_id = j.id)");
            QCOMPARE(it.value().value(s("done_in_range")).toInteger(), done);
            QCOMPARE(it.value().value(s("done_per_hour")).toDouble(), double(done));
            QCOMPARE(it.value().value(s("done_per_minute")).toDouble(), double(done) / 60.0);
        }
        QCOMPARE(hour.value(s("default")).value(s("done_in_range")).toInteger(), qint64(2));
        // --since is the last DURATION before --now (12:00 in the facts).
        const QJsonObject since = l.runJson({s("queues"), path, s("--since"), s("3h")}).object();
        QCOMPARE(since.value(s("range_to_ns")).toInteger() -
                     since.value(s("range_from_ns")).toInteger(),
                 qint64(3) * 3600 * 1'000'000'000);
        // --queue: that queue's row only; text output names the paused queue.
        QCOMPARE(rowsOf(l.runJson({s("queues"), path, s("--queue"), s("mailers")})).keys(),
                 QStringList{s("mailers")});
        const LqctlResult text = l.run({s("queues"), path});
        QCOMPARE(text.code, 0);
        QVERIFY2(text.out.contains("BLOCKED") && text.out.contains("paused"), text.out.constData());
        QCOMPARE(l.run({s("queues"), path, s("--since"), s("1h"), s("--from"), s("1")}).code, 2);
        QCOMPARE(l.run({s("queues"), path, s("--since"), s("soon")}).code, 2);
        QCOMPARE(fileDigest(path), before);
    }

    void laravelAndOban() {
        QTemporaryDir dir;
        const QString laravel = copyFixture(dir, kLaravel);
        FixtureLqctl ll(kLaravel);
        const QJsonDocument ld = ll.runJson({s("queues"), laravel});
        const QMap<QString, QJsonObject> lrows = rowsOf(ld);
        QCOMPARE(qint64(lrows.size()),
                 sqlInt(laravel, "SELECT count(*) FROM (SELECT queue FROM jobs UNION SELECT queue "
                                 "FROM failed_jobs)"));
        sameAsStats(ll, laravel, lrows);
        for (auto it = lrows.begin(); it != lrows.end(); ++it) {
            QCOMPARE(count(it.value(), "failed"),
                     sqlInt(laravel, "SELECT count(*) FROM failed_jobs WHERE queue = '" +
                                         it.key().toUtf8() + "'"));
            // Laravel deletes completed jobs: no throughput, and it says why.
            QVERIFY(it.value().value(s("done_per_hour")).isNull());
        }
        QVERIFY(!ld.object().value(s("throughput_note")).toString().isEmpty());

        const QString oban = copyFixture(dir, kOban);
        FixtureLqctl ol(kOban);
        const QMap<QString, QJsonObject> orows = rowsOf(ol.runJson({s("queues"), oban}));
        QCOMPARE(qint64(orows.size()), sqlInt(oban, "SELECT count(DISTINCT queue) FROM oban_jobs"));
        sameAsStats(ol, oban, orows);
        for (auto it = orows.begin(); it != orows.end(); ++it) {
            const QByteArray q = "'" + it.key().toUtf8() + "'";
            QCOMPARE(count(it.value(), "done"),
                     sqlInt(oban, "SELECT count(*) FROM oban_jobs WHERE state = 'completed' AND "
                                  "queue = " +
                                      q));
            QCOMPARE(it.value()
                         .value(s("counts"))
                         .toObject()
                         .value(s("extra"))
                         .toObject()
                         .value(s("retryable"))
                         .toInteger(),
                     sqlInt(oban, "SELECT count(*) FROM oban_jobs WHERE state = 'retryable' AND "
                                  "queue = " +
                                      q));
        }
    }

    /// A file without named queues: one row, the whole file.
    void wholeFile() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, s("litequeue-head-mixed.sqlite3"));
        FixtureLqctl l(kSolid); // only for its --now and audit folder
        const QMap<QString, QJsonObject> rows = rowsOf(l.runJson({s("queues"), path}));
        QCOMPARE(rows.keys(), QStringList{QString()});
        sameAsStats(l, path, rows);
        QCOMPARE(rows.first().value(s("counts")).toObject().value(s("stored")).toInteger(),
                 sqlInt(path, "SELECT count(*) FROM Queue"));
    }

    /// list --json's error_class is the class `lqctl errors` groups by, job
    /// for job; the ERROR column shows it.
    void errorClassMatchesGroups() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, kSolid);
        FixtureLqctl l(kSolid);
        QMap<QString, qint64> groups;
        for (const QJsonValue& g :
             l.runJson({s("errors"), path}).object().value(s("groups")).toArray())
            groups.insert(g.toObject().value(s("error")).toString(),
                          g.toObject().value(s("count")).toInteger());
        QMap<QString, qint64> listed;
        for (const QJsonValue& m :
             l.runJson({s("list"), path, s("--status"), s("failed")}).array()) {
            QVERIFY(m.toObject().contains(s("error")));
            ++listed[m.toObject().value(s("error_class")).toString()];
        }
        QCOMPARE(listed, groups);
        const LqctlResult text = l.run({s("list"), path, s("--status"), s("failed")});
        for (auto it = groups.begin(); it != groups.end(); ++it)
            QVERIFY2(text.out.contains(it.key().toUtf8()), text.out.constData());
    }

    /// --search looks in the error text on every format that stores one:
    /// each failed job is found by a word of its error class.
    void searchFindsErrorText() {
        int checked = 0;
        for (const QString& fixture : formatFixtures()) {
            QTemporaryDir dir;
            const QString rel = s("formats/") + fixture;
            const QString path = copyFixture(dir, rel);
            FixtureLqctl l(rel);
            const QJsonArray all = l.runJson({s("list"), path}).array();
            for (const QJsonValue& v : all) {
                const QJsonObject m = v.toObject();
                const QString cls = m.value(s("error_class")).toString();
                // The longest word of the class ("RecordInvalid" of
                // "ActiveRecord::RecordInvalid").
                QString word;
                for (const QString& w :
                     cls.split(QRegularExpression(s("[^A-Za-z0-9]+")), Qt::SkipEmptyParts))
                    if (w.size() > word.size())
                        word = w;
                if (word.size() < 4)
                    continue;
                QStringList ids;
                for (const QJsonValue& f :
                     l.runJson({s("list"), path, s("--search"), word}).array())
                    ids << f.toObject().value(s("message_id")).toString();
                QVERIFY2(ids.contains(m.value(s("message_id")).toString()),
                         qPrintable(fixture + s(": --search ") + word + s(" misses job ") +
                                    m.value(s("message_id")).toString()));
                ++checked;
            }
        }
        QVERIFY(checked >= 10);
    }
};

QTEST_GUILESS_MAIN(TstLqctlQueues)
#include "tst_lqctl_queues.moc"
