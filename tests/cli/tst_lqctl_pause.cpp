// SPDX-License-Identifier: MIT
// `lqctl pause/resume FILE --queue Q` on copies of the Solid Queue and
// River fixtures: the rows the library's own pause writes, `info`'s
// paused_queues, the records `lqctl audit` lists as pause and resume, and
// `lqctl undo` back to the same rows; refused on a format that stores no
// pause.
#include "support/fixtures.h"
#include "support/lqctlrun.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>
#include <QTemporaryDir>
#include <QTest>

using lq::test::copyFixture;
using lq::test::fileDigest;
using lq::test::FixtureLqctl;
using lq::test::sqlInt;
using lq::test::sqlText;

namespace {

QString s(const char* text) {
    return QString::fromUtf8(text);
}

QJsonArray pausedQueues(const FixtureLqctl& lqctl, const QString& path) {
    return lqctl.runJson({s("info"), path}).object().value(s("paused_queues")).toArray();
}

} // namespace

class TstLqctlPause : public QObject {
    Q_OBJECT

private slots:
    void solidQueue() {
        const FixtureLqctl lqctl(s("formats/solid-queue.sqlite3"));
        QTemporaryDir dir;
        const QString path = copyFixture(dir, s("formats/solid-queue.sqlite3"));
        const QByteArray pauses =
            "SELECT group_concat(id || '|' || queue_name || '|' || created_at, ';') FROM "
            "(SELECT * FROM solid_queue_pauses ORDER BY id)";
        QCOMPARE(sqlText(path, pauses), s("1|reports|2026-11-30 11:59:00.012171"));

        // No question asked: the pause is one row, at --now as Rails writes it.
        const auto paused = lqctl.run({s("pause"), path, s("--queue"), s("default")});
        QCOMPARE(paused.code, 0);
        QVERIFY(paused.out.startsWith("paused queue default: its workers skip it (record "));
        QCOMPARE(sqlText(path, pauses), s("1|reports|2026-11-30 11:59:00.012171;"
                                          "2|default|2026-11-30 12:00:00"));
        QCOMPARE(pausedQueues(lqctl, path), (QJsonArray{s("default"), s("reports")}));
        // `lqctl fleet --json` names them too, from the same read.
        const QJsonArray fleet =
            lqctl.runJson({s("fleet"), dir.path()}).object().value(s("queues")).toArray();
        QCOMPARE(fleet.size(), 1);
        QCOMPARE(fleet.at(0).toObject().value(s("paused_queues")).toArray(),
                 (QJsonArray{s("default"), s("reports")}));

        // Again: nothing to do, exit 1 with the reason.
        const auto again = lqctl.run({s("pause"), path, s("--queue"), s("default")});
        QCOMPARE(again.code, 1);
        QVERIFY(again.err.contains("already paused since 2026-11-30T12:00:00"));

        const QJsonObject resumed =
            lqctl.runJson({s("resume"), path, s("--queue"), s("reports")}).object();
        QCOMPARE(resumed.value(s("action")).toString(), s("resume"));
        QCOMPARE(resumed.value(s("applied")).toInt(), 1);
        QCOMPARE(resumed.value(s("paused")).toBool(), false);
        QCOMPARE(sqlText(path, pauses), s("2|default|2026-11-30 12:00:00"));

        // `lqctl audit`: pause, the refused pause, resume.
        const QJsonArray audit = lqctl.runJson({s("audit"), path}).array();
        QCOMPARE(audit.size(), 3);
        QCOMPARE(audit.at(0).toObject().value(s("action")).toString(), s("pause"));
        QCOMPARE(audit.at(0).toObject().value(s("applied")).toInt(), 1);
        const QJsonObject row =
            audit.at(0).toObject().value(s("messages")).toArray().at(0).toObject();
        QCOMPARE(row.value(s("message_id")).toString(), s("default"));
        QCOMPARE(row.value(s("before")).toString(), s("running"));
        QCOMPARE(row.value(s("after")).toString(), s("paused"));
        QCOMPARE(audit.at(1).toObject().value(s("applied")).toInt(), 0);
        QCOMPARE(audit.at(2).toObject().value(s("action")).toString(), s("resume"));

        // Undo the resume, then the pause: the rows of the fixture again.
        const auto undoResume = lqctl.run({s("undo"), path});
        QCOMPARE(undoResume.code, 0);
        QVERIFY(undoResume.out.startsWith("undo of resume "));
        const auto undoPause = lqctl.run({s("undo"), path});
        QCOMPARE(undoPause.code, 0);
        QVERIFY(undoPause.out.startsWith("undo of pause "));
        QCOMPARE(sqlText(path, pauses), s("1|reports|2026-11-30 11:59:00.012171"));
        QCOMPARE(lqctl.run({s("undo"), path}).code, 1); // nothing left to undo
    }

    void river() {
        const FixtureLqctl lqctl(s("formats/river-v7.sqlite3"));
        QTemporaryDir dir;
        const QString path = copyFixture(dir, s("formats/river-v7.sqlite3"));
        const QByteArray email =
            "SELECT coalesce(paused_at, 'NULL') || '|' || updated_at FROM river_queue WHERE name "
            "= 'email'";
        QCOMPARE(sqlText(path, email), s("NULL|2026-11-30 08:00:00"));
        const QJsonObject p = lqctl.runJson({s("pause"), path, s("--queue"), s("email")}).object();
        QCOMPARE(p.value(s("applied")).toInt(), 1);
        QCOMPARE(p.value(s("paused")).toBool(), true);
        QVERIFY(!p.value(s("record")).toString().isEmpty());
        QCOMPARE(sqlText(path, email), s("2026-11-30 12:00:00|2026-11-30 12:00:00"));
        QCOMPARE(pausedQueues(lqctl, path), (QJsonArray{s("email")}));
        QCOMPARE(lqctl.run({s("undo"), path}).code, 0);
        QCOMPARE(sqlText(path, email), s("NULL|2026-11-30 08:00:00"));
        QCOMPARE(sqlInt(path, "SELECT count(*) FROM river_queue WHERE paused_at IS NOT NULL"), 0);
        // A queue River keeps no row for.
        const auto none = lqctl.run({s("resume"), path, s("--queue"), s("nosuch")});
        QCOMPARE(none.code, 1);
        QVERIFY(none.err.contains("no river_queue row"));
    }

    void refusedWithoutPauses() {
        const FixtureLqctl lqctl(s("formats/laravel-database.sqlite3"));
        QTemporaryDir dir;
        const QString path = copyFixture(dir, s("formats/laravel-database.sqlite3"));
        const QByteArray digest = fileDigest(path);
        const auto r = lqctl.run({s("pause"), path, s("--queue"), s("default")});
        QCOMPARE(r.code, 1);
        QVERIFY(r.err.contains("stores no pause"));
        QCOMPARE(lqctl.run({s("pause"), path}).code, 2); // --queue is required
        QCOMPARE(fileDigest(path), digest);
        QCOMPARE(lqctl.runJson({s("audit"), path}).array().size(), 0);
    }
};

QTEST_GUILESS_MAIN(TstLqctlPause)
#include "tst_lqctl_pause.moc"
