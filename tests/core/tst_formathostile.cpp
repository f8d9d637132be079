// SPDX-License-Identifier: MIT
// Hostile variants of every queue-format fixture (tests/data/formats), made
// here with plain SQL on a copy: a required column missing, an unknown state
// string, an unparseable timestamp, a payload that is not what the library
// writes, every queue table emptied. Opening each one and reading it (counts,
// a page, statistics) either works or fails with lqcore's Error naming the
// file; nothing crashes, nothing else is thrown, and the file is byte for
// byte what it was. River's damaged-JSONB fixture is in the list as it is.
#include "core/error.h"
#include "core/formats/queueformat.h"
#include "core/queue.h"
#include "support/fixtures.h"

#include <QCryptographicHash>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <sqlite3.h>

#include <string_view>

using namespace lq::core;

namespace {

struct Shape {
    const char* fixture;
    const char* table;   ///< the jobs table
    const char* state;   ///< its state column ("" when the state is derived)
    const char* time;    ///< a timing column
    const char* drop;    ///< a column the format cannot do without
    const char* payload; ///< the arguments / payload column
};

// The jobs table of each format and some of its columns (docs/FORMATS.md).
const Shape kShapes[] = {
    {"solid-queue.sqlite3", "solid_queue_jobs", "", "scheduled_at", "class_name", "arguments"},
    {"laravel-database.sqlite3", "jobs", "", "available_at", "reserved_at", "payload"},
    {"oban-lite.sqlite3", "oban_jobs", "state", "scheduled_at", "attempt", "args"},
    {"liteque-queue.db", "tasks", "status", "availableAt", "allocationId", "payload"},
    {"river-v7.sqlite3", "river_job", "state", "scheduled_at", "attempt", "args"},
    {"goqite.sqlite3", "goqite", "", "timeout", "received", "body"},
    {"backlite.sqlite3", "backlite_tasks", "", "wait_until", "claimed_at", "task"},
    {"plainjob.sqlite3", "plainjob_jobs", "status", "next_run_at", "next_run_at", "data"},
    {"delayed-job.sqlite3", "delayed_jobs", "", "run_at", "locked_at", "handler"},
    {"symfony-messenger.sqlite3", "messenger_messages", "", "available_at", "delivered_at", "body"},
    {"django-tasks-db.sqlite3", "django_tasks_database_dbtaskresult", "status", "run_after",
     "worker_ids", "args_kwargs"},
    {"hangfire-sqlite.sqlite3", "Job", "StateName", "CreatedAt", "InvocationData", "Arguments"},
};

/// The format id facts.json gives the fixture ("solid-queue", ...).
std::string formatOf(const QString& fixture) {
    QFile f(QStringLiteral(LQ_TEST_DATA_DIR "/formats/facts.json"));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read tests/data/formats/facts.json");
    const QJsonObject all = QJsonDocument::fromJson(f.readAll()).object();
    return all.value(fixture).toObject().value(QStringLiteral("format")).toString().toStdString();
}

QByteArray digest(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256).toHex();
}

/// Runs `sql` on `path` with the raw C API (CHECK constraints off, so River's
/// CHECK-ed state can hold a bad value); "" or SQLite's message.
QString exec(const QString& path, const QString& sql) {
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(QFile::encodeName(path).constData(), &db, SQLITE_OPEN_READWRITE, nullptr) !=
        SQLITE_OK) {
        sqlite3_close_v2(db);
        return QStringLiteral("cannot open");
    }
    char* err = nullptr;
    const QByteArray all =
        (QStringLiteral("PRAGMA ignore_check_constraints = ON; ") + sql).toUtf8();
    const int rc = sqlite3_exec(db, all.constData(), nullptr, nullptr, &err);
    QString out;
    if (rc != SQLITE_OK)
        out = QString::fromUtf8(err ? err : "error");
    sqlite3_free(err);
    sqlite3_close_v2(db);
    return out;
}

/// Rebuilds `table` without `column` (indexes and triggers on it go too):
/// what a file written by another version, or edited by hand, may hold.
QString dropColumn(const QString& path, const QString& table, const QString& column) {
    sqlite3* db = nullptr;
    sqlite3_open_v2(QFile::encodeName(path).constData(), &db, SQLITE_OPEN_READONLY, nullptr);
    sqlite3_stmt* st = nullptr;
    QStringList keep;
    const QByteArray q = "SELECT name FROM pragma_table_info('" + table.toUtf8() + "')";
    if (sqlite3_prepare_v2(db, q.constData(), -1, &st, nullptr) == SQLITE_OK)
        while (sqlite3_step(st) == SQLITE_ROW) {
            const QString n =
                QString::fromUtf8(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
            if (n != column)
                keep << QLatin1Char('"') + n + QLatin1Char('"');
        }
    sqlite3_finalize(st);
    sqlite3_close_v2(db);
    if (keep.isEmpty())
        return QStringLiteral("no such table");
    return exec(path, QStringLiteral("PRAGMA foreign_keys = OFF; BEGIN; CREATE TABLE lq_tmp AS "
                                     "SELECT %1 FROM \"%2\"; DROP TABLE \"%2\"; ALTER TABLE "
                                     "lq_tmp RENAME TO \"%2\"; COMMIT;")
                          .arg(keep.join(QLatin1Char(',')), table));
}

} // namespace

class TestFormatHostile : public QObject {
    Q_OBJECT
private slots:
    void openAndReadOrSayWhy_data();
    void openAndReadOrSayWhy();
};

void TestFormatHostile::openAndReadOrSayWhy_data() {
    QTest::addColumn<QString>("fixture");
    QTest::addColumn<QString>("mutation"); // "" or a mutation name
    QTest::addColumn<int>("shape");
    for (int i = 0; i < int(std::size(kShapes)); ++i) {
        const QString f = QString::fromLatin1(kShapes[i].fixture);
        for (const char* m : {"as-is", "missing-column", "unknown-state", "bad-timestamp",
                              "bad-payload", "empty"}) {
            if (!*kShapes[i].state && std::string_view(m) == "unknown-state")
                continue; // the state is derived from other tables, not a stored string
            QTest::newRow(qPrintable(f + QLatin1Char(' ') + QLatin1String(m)))
                << f << QString::fromLatin1(m) << i;
        }
    }
    QTest::newRow("river-v7-damaged-jsonb as-is")
        << QStringLiteral("river-v7-damaged-jsonb.sqlite3") << QStringLiteral("as-is") << 4;
}

void TestFormatHostile::openAndReadOrSayWhy() {
    QFETCH(QString, fixture);
    QFETCH(QString, mutation);
    QFETCH(int, shape);
    const Shape& s = kShapes[shape];
    QTemporaryDir dir;
    const QString path = lq::test::copyFixture(dir, QStringLiteral("formats/") + fixture);
    const QString table = QString::fromLatin1(s.table);
    QString err;
    if (mutation == QLatin1String("missing-column")) {
        err = dropColumn(path, table, QString::fromLatin1(s.drop));
    } else if (mutation == QLatin1String("unknown-state")) {
        err = exec(path, QStringLiteral("UPDATE \"%1\" SET \"%2\" = 'zombie' WHERE rowid IN "
                                        "(SELECT rowid FROM \"%1\" LIMIT 2);")
                             .arg(table, QString::fromLatin1(s.state)));
    } else if (mutation == QLatin1String("bad-timestamp")) {
        err = exec(path, QStringLiteral("UPDATE \"%1\" SET \"%2\" = 'next tuesday' WHERE rowid IN "
                                        "(SELECT rowid FROM \"%1\" LIMIT 3);")
                             .arg(table, QString::fromLatin1(s.time)));
        if (err.contains(QLatin1String("cannot store"))) // STRICT INTEGER: a time no clock has
            err = exec(path, QStringLiteral("UPDATE \"%1\" SET \"%2\" = 9223372036854775807 WHERE "
                                            "rowid IN (SELECT rowid FROM \"%1\" LIMIT 3);")
                                 .arg(table, QString::fromLatin1(s.time)));
    } else if (mutation == QLatin1String("bad-payload")) {
        err = exec(path, QStringLiteral("UPDATE \"%1\" SET \"%2\" = x'7b6e6f7420a0ff00' WHERE "
                                        "rowid IN (SELECT rowid FROM \"%1\" LIMIT 3);")
                             .arg(table, QString::fromLatin1(s.payload)));
    } else if (mutation == QLatin1String("empty")) {
        err =
            exec(path, QStringLiteral("PRAGMA foreign_keys = ON; DELETE FROM \"%1\";").arg(table));
    }
    QVERIFY2(err.isEmpty(), qPrintable(QStringLiteral("could not make the variant: ") + err));

    const QByteArray before = digest(path);
    const QString name = QFileInfo(path).fileName();
    QString outcome;
    try {
        auto q = Queue::open(QFile::encodeName(path).toStdString());
        const Counts c = q->counts();
        QVERIFY(c.stored >= 0);
        (void)q->list(Filter{}, Sort{}, 0, 50);
        (void)q->stats();
        outcome = QStringLiteral("opened as ") + QString::fromLatin1(formatId(q->info().format));
    } catch (const Error& e) {
        const QString what = QString::fromUtf8(e.what());
        QVERIFY2(what.contains(name),
                 qPrintable(QStringLiteral("the message does not name the file: ") + what));
        outcome = what;
    } catch (const std::exception& e) {
        QFAIL(qPrintable(QStringLiteral("not an lqcore Error: ") + QString::fromUtf8(e.what())));
    }
    qInfo("%s %s: %s", qPrintable(fixture), qPrintable(mutation), qPrintable(outcome));
    // A format lqcore implements must recognise its own fixture as it is.
    const std::string id = formatOf(fixture);
    if (mutation == QLatin1String("as-is") && !fixture.contains(QLatin1String("damaged")) &&
        QueueFormat::byId(id))
        QCOMPARE(outcome, QStringLiteral("opened as ") + QString::fromStdString(id));
    QCOMPARE(digest(path), before);
}

QTEST_GUILESS_MAIN(TestFormatHostile)
#include "tst_formathostile.moc"
