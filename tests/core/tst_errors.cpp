// SPDX-License-Identifier: MIT
// Failures grouped by error (core/errors.h, `lqctl errors`): the error
// class each format's stored text names, and on every fixture the groups
// against the failures counted with SQL on the file itself.
#include "core/errors.h"
#include "core/formats/queueformat.h"
#include "core/queue.h"
#include "formatfacts.h"
#include "support/fixtures.h"
#include "testutil.h"

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <map>
#include <set>

using namespace lq::core;
using namespace lqtest;

class TestErrors : public QObject {
    Q_OBJECT
private slots:
    void errorClassOfStoredText_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("error");
        // Solid Queue's failed_executions.error (JSON, exception_class).
        QTest::newRow("solid queue")
            << R"({"exception_class":"ActiveRecord::RecordInvalid","message":"Validation failed","backtrace":[]})"
            << "ActiveRecord::RecordInvalid";
        // Laravel's failed_jobs.exception: "Class: message in file:line\nStack trace:".
        QTest::newRow("laravel") << "Illuminate\\Database\\QueryException: SQLSTATE[23000] in "
                                    "/app/x.php:12\nStack trace:\n#0 {main}"
                                 << "Illuminate\\Database\\QueryException";
        // Oban's last errors entry as core/formats/jobtable.cpp renders it.
        QTest::newRow("oban") << "attempt 3 at 2026-11-30T08:07:02Z: ** (File.Error) could not "
                                 "read file\n    (elixir) lib/file.ex:1"
                              << "File.Error";
        QTest::newRow("river") << "attempt 1 at 2026-11-30T08:07:02Z: card_declined: no funds"
                               << "card_declined";
        // Delayed::Job's last_error: the message, then the backtrace.
        QTest::newRow("delayed job") << "image 7 is corrupt\n/app/jobs/resize.rb:3:in `perform'"
                                     << "image 7 is corrupt";
        QTest::newRow("python") << "Traceback (most recent call last):\n  File x"
                                << "Traceback (most recent call last):";
        QTest::newRow("blank") << "  \n "
                               << "";
        QTest::newRow("not json") << "{oops: 1"
                                  << "{oops: 1";
        QTest::newRow("long line")
            << QString(300, QLatin1Char('x')) << QString(200, QLatin1Char('x'));
    }
    void errorClassOfStoredText() {
        QFETCH(QString, text);
        QFETCH(QString, error);
        QCOMPARE(QString::fromStdString(errorClassOf(text.toStdString())), error);
    }

    void everyFailureIsInOneGroup_data() {
        QTest::addColumn<QString>("fixture");
        for (const QString& f : lq::test::formatFixtures())
            QTest::newRow(qPrintable(f)) << f;
    }
    void everyFailureIsInOneGroup() {
        QFETCH(QString, fixture);
        QTemporaryDir dir;
        const std::string path = copyFixture(dir, QStringLiteral("formats/") + fixture);
        auto q = openAtFactsNow(path);
        const Counts c = q->counts();
        // FAILED and the format's own failure states that are states of
        // their own (not a part of FAILED).
        const QueueFormat& fmt = QueueFormat::of(q->info());
        std::int64_t failures = c.failed;
        const auto own = fmt.failureStates();
        for (const auto& es : fmt.extraStates())
            if (es.within.empty() && std::count(own.begin(), own.end(), es.name) &&
                c.extra.count(es.name))
                failures += c.extra.at(es.name);
        std::int64_t grouped = 0;
        std::set<std::string> ids;
        for (const ErrorGroup& g : groupFailures(*q)) {
            QCOMPARE(std::int64_t(g.messageIds.size()), g.count);
            grouped += g.count;
            ids.insert(g.messageIds.begin(), g.messageIds.end());
        }
        QCOMPARE(grouped, failures);
        QCOMPARE(std::int64_t(ids.size()), grouped); // no job in two groups
        // Each named queue's groups are the whole file's, narrowed.
        std::int64_t perQueue = 0;
        for (const std::string& name : q->queueNames())
            for (const ErrorGroup& g : groupFailures(*q, name))
                perQueue += g.count;
        if (!q->queueNames().empty())
            QCOMPARE(perQueue, grouped);
    }

    void searchLooksInTheErrorText_data() {
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<QString>("search");
        QTest::newRow("solid queue") << "solid-queue.sqlite3"
                                     << "ENOSPC";
        QTest::newRow("laravel") << "laravel-database.sqlite3"
                                 << "mailbox for user 3";
        QTest::newRow("oban") << "oban-lite.sqlite3"
                              << "KeyError";
        QTest::newRow("river") << "river-v7.sqlite3"
                               << "card_declined";
        QTest::newRow("delayed job") << "delayed-job.sqlite3"
                                     << "image 7 is corrupt";
        QTest::newRow("django-tasks-db") << "django-tasks-db.sqlite3"
                                         << "unknown report";
        QTest::newRow("hangfire-sqlite") << "hangfire-sqlite.sqlite3"
                                         << "Unknown report: monthly-churn";
    }
    void searchLooksInTheErrorText() {
        QFETCH(QString, fixture);
        QFETCH(QString, search);
        QTemporaryDir dir;
        const std::string path = copyFixture(dir, QStringLiteral("formats/") + fixture);
        auto q = openAtFactsNow(path);
        Filter f;
        f.search = search.toStdString();
        // Exactly the failed job whose error says it (the payloads do not).
        const auto rowids = q->orderedRowids(f, Sort{});
        QCOMPARE(rowids.size(), std::size_t(1));
        const auto m = q->fetchRowids(rowids);
        QVERIFY(m.at(0).lastError.has_value());
        QVERIFY(m.at(0).lastError->find(f.search) != std::string::npos);
    }

    void groupsMatchTheFileSql_data() {
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<QString>("sql");
        // The error class and its failures, computed on the file.
        QTest::newRow("solid queue")
            << "solid-queue.sqlite3"
            << "SELECT json_extract(error, '$.exception_class'), count(*) FROM "
               "solid_queue_failed_executions GROUP BY 1";
        QTest::newRow("laravel") << "laravel-database.sqlite3"
                                 << "SELECT substr(exception, 1, instr(exception, ': ') - 1), "
                                    "count(*) FROM failed_jobs GROUP BY 1";
        QTest::newRow("delayed job")
            << "delayed-job.sqlite3"
            << "SELECT CASE WHEN instr(last_error, char(10)) > 0 THEN substr(last_error, 1, "
               "instr(last_error, char(10)) - 1) ELSE last_error END, count(*) FROM delayed_jobs "
               "WHERE failed_at IS NOT NULL GROUP BY 1";
        // Symfony Messenger: the failure transport's rows, by the
        // ErrorDetailsStamp's exceptionClass as the addslashes'd body stores it.
        QTest::newRow("symfony messenger")
            << "symfony-messenger.sqlite3"
            << "SELECT replace(substr(v, 1, instr(v, '\\\"') - 1), '\\\\', '\\'), count(*) "
               "FROM (SELECT substr(r, instr(r, ':\\\"') + 3) AS v FROM (SELECT substr(body, "
               "instr(body, 'ErrorDetailsStamp\\0exceptionClass\\\";s:') + 38) AS r FROM "
               "messenger_messages WHERE queue_name = 'failed')) GROUP BY 1";
        // django-tasks-db: by exception_class_path, what set_failed() stores.
        QTest::newRow("django-tasks-db")
            << "django-tasks-db.sqlite3"
            << "SELECT exception_class_path, count(*) FROM django_tasks_database_dbtaskresult "
               "WHERE status = 'FAILED' GROUP BY 1";
        // hangfire-sqlite: by the current Failed state's ExceptionType.
        QTest::newRow("hangfire-sqlite")
            << "hangfire-sqlite.sqlite3"
            << "SELECT json_extract(s.Data, '$.ExceptionType'), count(*) FROM Job j JOIN State s "
               "ON s.Id = (SELECT max(Id) FROM State WHERE JobId = j.Id AND Name = j.StateName) "
               "WHERE j.StateName = 'Failed' GROUP BY 1";
    }
    void groupsMatchTheFileSql() {
        QFETCH(QString, fixture);
        QFETCH(QString, sql);
        QTemporaryDir dir;
        const std::string path = copyFixture(dir, QStringLiteral("formats/") + fixture);
        std::map<std::string, std::int64_t> expected;
        {
            Db db(path, true);
            for (const auto& row : db.rows(sql.toStdString()))
                expected[row.at(0)] = std::stoll(row.at(1));
        }
        QVERIFY(!expected.empty());
        auto q = openAtFactsNow(path);
        std::map<std::string, std::int64_t> got;
        for (const ErrorGroup& g : groupFailures(*q))
            got[g.error] = g.count;
        QCOMPARE(got, expected);
    }
};

QTEST_GUILESS_MAIN(TestErrors)
#include "tst_errors.moc"
