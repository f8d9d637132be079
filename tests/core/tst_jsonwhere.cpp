// SPDX-License-Identifier: MIT
// Filter::where (core/jsonwhere.h): a condition on a JSON field of a job,
// parsed, then evaluated on real fixtures, each count checked against SQL
// written here by hand on a plain connection: Oban's args and meta, Solid
// Queue's Active Job arguments, River's JSONB args (through lqcore's
// decoder), a payload that is not JSON, and the errors that name the file's
// JSON fields.
#include "core/json.h"
#include "core/jsonb.h"
#include "core/jsonwhere.h"
#include "formatfacts.h"

#include <QObject>
#include <QTemporaryDir>

#include <sqlite3.h>

#include <atomic>

using namespace lqtest;
using namespace lq::core;

namespace {

std::int64_t sqlCount(const std::string& path, const std::string& sql) {
    Db db(path, /*readOnly=*/true);
    return std::stoll(db.rows(sql).at(0).at(0));
}

std::int64_t whereCount(Queue& q, const std::string& where) {
    Filter f;
    f.where = where;
    return q.count(f);
}

} // namespace

class TstJsonWhere : public QObject {
    Q_OBJECT

private slots:
    void parses_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("path");
        QTest::addColumn<int>("op");
        QTest::addColumn<QString>("value");
        QTest::addColumn<bool>("quoted");
        using Op = JsonCondition::Op;
        QTest::newRow("exists") << "meta.trace"
                                << "meta"
                                << "$.trace" << int(Op::Exists) << "" << false;
        QTest::newRow("whole field") << "args"
                                     << "args"
                                     << "$" << int(Op::Exists) << "" << false;
        QTest::newRow("number") << "args.user_id = 42"
                                << "args"
                                << "$.user_id" << int(Op::Eq) << "42" << false;
        QTest::newRow("no spaces") << "args.user_id>=42"
                                   << "args"
                                   << "$.user_id" << int(Op::Ge) << "42" << false;
        QTest::newRow("index and key")
            << "arguments[0]._aj_globalid ~ gid://shop/Order/17"
            << "arguments"
            << "$[0]._aj_globalid" << int(Op::Like) << "gid://shop/Order/17" << false;
        QTest::newRow("quoted key") << "args[\"a b\"][2] != x y"
                                    << "args"
                                    << "$.\"a b\"[2]" << int(Op::Ne) << "x y" << false;
        QTest::newRow("dotted quoted key") << "meta.\"x.y\" <> 1"
                                           << "meta"
                                           << "$.\"x.y\"" << int(Op::Ne) << "1" << false;
        QTest::newRow("quoted value") << "args.id = \"42\""
                                      << "args"
                                      << "$.id" << int(Op::Eq) << "42" << true;
        QTest::newRow("escaped quote") << "args.s == \"a\\\"b\""
                                       << "args"
                                       << "$.s" << int(Op::Eq) << "a\"b" << true;
        QTest::newRow("less") << "  args.n < -1.5  "
                              << "args"
                              << "$.n" << int(Op::Lt) << "-1.5" << false;
        QTest::newRow("key with dash") << "args.user-id <= 3"
                                       << "args"
                                       << "$.\"user-id\"" << int(Op::Le) << "3" << false;
    }
    void parses() {
        QFETCH(QString, text);
        const JsonCondition c = parseJsonCondition(text.toStdString());
        QFETCH(QString, field);
        QCOMPARE(QString::fromStdString(c.field), field);
        QFETCH(QString, path);
        QFETCH(int, op);
        QFETCH(QString, value);
        QFETCH(bool, quoted);
        QCOMPARE(QString::fromStdString(c.path), path);
        QCOMPARE(int(c.op), op);
        QCOMPARE(QString::fromStdString(c.value), value);
        QCOMPARE(c.quoted, quoted);
    }

    void refusesWhatItCannotRead_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("says");
        QTest::newRow("empty") << ""
                               << "expected the name of a JSON field";
        QTest::newRow("digit first") << "1args = 2"
                                     << "expected the name of a JSON field";
        QTest::newRow("dollar") << "$.a = 2"
                                << "expected the name of a JSON field";
        QTest::newRow("dot at end") << "args. = 2"
                                    << "expected a key after '.'";
        QTest::newRow("open bracket") << "args[ = 2"
                                      << "expected an array index";
        QTest::newRow("unclosed") << "args[2 = 2"
                                  << "expected ']'";
        QTest::newRow("no value") << "args.a = "
                                  << "expected a value";
        QTest::newRow("bang") << "args.a ! 2"
                              << "expected an operator";
        QTest::newRow("unterminated key") << "args.\"a = 2"
                                          << "unterminated quoted key";
        QTest::newRow("unterminated value") << "args.a = \"b"
                                            << "must end with '\"'";
    }
    void refusesWhatItCannotRead() {
        QFETCH(QString, text);
        QFETCH(QString, says);
        LQ_EXPECT_ERROR(parseJsonCondition(text.toStdString()), ErrorKind::InvalidArgument,
                        says.toStdString());
    }

    /// What both engines take for a number (jsonConditionNumber): the
    /// real's '.' read without the process's locale.
    void numbersAsBothEnginesReadThem() {
        using N = std::optional<std::variant<std::int64_t, double>>;
        QCOMPARE(jsonConditionNumber("42"), N(std::int64_t(42)));
        QCOMPARE(jsonConditionNumber("-7"), N(std::int64_t(-7)));
        QCOMPARE(jsonConditionNumber("1.5"), N(1.5));
        QCOMPARE(jsonConditionNumber("+2.25"), N(2.25));
        QCOMPARE(jsonConditionNumber("1e3"), N(1000.0));
        QCOMPARE(jsonConditionNumber("12345678901234567890"), N(1.2345678901234567e19));
        for (const char* no : {"", "0x1A", "inf", "nan", " 1.5", "1.5x", "1,5", "1e999", "abc"})
            QVERIFY2(!jsonConditionNumber(no), no);
    }

    void obanArgsAndMeta() {
        QTemporaryDir dir;
        const std::string path = copyFixture(dir, QStringLiteral("formats/oban-lite.sqlite3"));
        auto q = openAtFactsNow(path);
        const auto sql = [&](const std::string& cond) {
            return sqlCount(path, "SELECT count(*) FROM oban_jobs WHERE " + cond);
        };
        const std::int64_t over3 = sql("json_type(args, '$.account_id') = 'integer' AND "
                                       "json_extract(args, '$.account_id') > 3");
        QVERIFY(over3 > 0);
        QCOMPARE(whereCount(*q, "args.account_id > 3"), over3);
        QCOMPARE(whereCount(*q, "args.account_id"), sql("json_type(args, '$.account_id') IS NOT "
                                                        "NULL"));
        const std::int64_t welcome = sql("json_extract(args, '$.template') = 'welcome'");
        QVERIFY(welcome > 0);
        QCOMPARE(whereCount(*q, "args.template = welcome"), welcome);
        QCOMPARE(whereCount(*q, "args.template = \"welcome\""), welcome);
        // != matches the jobs that have the key with another value.
        QCOMPARE(whereCount(*q, "args.template != welcome"),
                 sql("json_extract(args, '$.template') <> 'welcome'"));
        // A number is no string: "3" in quotes matches no account_id.
        QCOMPARE(whereCount(*q, "args.account_id = \"3\""), std::int64_t(0));
        QCOMPARE(whereCount(*q, "args.account_id = 3"),
                 sql("json_extract(args, '$.account_id') = 3"));
        // Text never compares as a number: no template is "> 5".
        QCOMPARE(whereCount(*q, "args.template > 5"), std::int64_t(0));
        QCOMPARE(whereCount(*q, "args.template ~ ELCO"),
                 sql("json_extract(args, '$.template') LIKE '%elco%'"));
        QCOMPARE(whereCount(*q, "meta.nosuch"), std::int64_t(0));
        // With the other filters: one named queue, one state.
        Filter f;
        f.where = "args.account_id > 3";
        f.queue = q->queueNames().front();
        QCOMPARE(q->count(f),
                 sql("json_extract(args, '$.account_id') > 3 AND queue = '" + f.queue + "'"));
        // The listing shows exactly those jobs.
        f.queue.clear();
        const auto rows = q->list(f, {}, 0, 1000);
        QCOMPARE(std::int64_t(rows.size()), over3);
        for (const auto& m : rows)
            QVERIFY2(Json::parse(m.data)["account_id"].toInt() > 3, m.data.c_str());
        // A field Oban's jobs do not have: the error names the ones they do.
        LQ_EXPECT_ERROR(whereCount(*q, "payload.x = 1"), ErrorKind::InvalidArgument,
                        "no JSON field payload in oban-lite jobs; JSON fields: args, meta");
    }

    void solidQueueActiveJobArguments() {
        QTemporaryDir dir;
        const std::string path = copyFixture(dir, QStringLiteral("formats/solid-queue.sqlite3"));
        auto q = openAtFactsNow(path);
        const std::string gid = "$.arguments[3].args[0]._aj_globalid";
        const std::int64_t user1 = sqlCount(path, "SELECT count(*) FROM solid_queue_jobs WHERE "
                                                  "json_extract(arguments, '" +
                                                      gid + "') LIKE '%User/1%'");
        QVERIFY(user1 > 0);
        QCOMPARE(whereCount(*q, "arguments[3].args[0]._aj_globalid ~ User/1"), user1);
        QCOMPARE(whereCount(*q, "arguments[0] = UserMailer"),
                 sqlCount(path, "SELECT count(*) FROM solid_queue_jobs WHERE "
                                "json_extract(arguments, '$.arguments[0]') = 'UserMailer'"));
    }

    void riverJsonbArgs() {
        QTemporaryDir dir;
        const std::string path = copyFixture(dir, QStringLiteral("formats/river-v7.sqlite3"));
        auto q = openAtFactsNow(path);
        // Every job's args decoded here, one by one, and the condition
        // evaluated on the parsed value.
        Db db(path, /*readOnly=*/true);
        std::map<std::string, std::int64_t> byKind;
        std::string someKey;
        std::string someValue;
        for (const auto& r : db.rows("SELECT hex(args) FROM river_job")) {
            const QByteArray bytes = QByteArray::fromHex(QByteArray::fromStdString(r.at(0)));
            const Json args = Json::parse(jsonb::toJson(bytes.toStdString()));
            for (const auto& [k, v] : args.toObject()) {
                if (!v.isString())
                    continue;
                if (someKey.empty()) {
                    someKey = k;
                    someValue = v.toString();
                }
                if (k == someKey)
                    ++byKind[v.toString()];
            }
        }
        QVERIFY(!someKey.empty());
        QCOMPARE(whereCount(*q, "args." + someKey + " = \"" + someValue + "\""), byKind[someValue]);
        std::int64_t all = 0;
        for (const auto& [v, n] : byKind)
            all += n;
        QCOMPARE(whereCount(*q, "args." + someKey), all);
    }

    void aCancelledOrderingStops() {
        // What the GUI does when a new filter replaces one still being read:
        // the read stops with SQLITE_INTERRUPT instead of running to its end.
        QTemporaryDir dir;
        const std::string path = copyFixture(dir, QStringLiteral("formats/oban-lite.sqlite3"));
        {
            // Enough rows that the read outlasts SQLite's progress interval.
            Db db(path);
            db.exec("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < "
                    "20000) INSERT INTO oban_jobs (worker, args) SELECT 'W', "
                    "json_object('account_id', i % 10) FROM n");
        }
        auto q = openAtFactsNow(path);
        Filter f;
        f.where = "args.account_id > 3";
        std::atomic_bool cancel{false};
        const auto all = q->orderedRowids(f, Sort{}, &cancel);
        QCOMPARE(std::int64_t(all.size()), whereCount(*q, f.where));
        cancel = true;
        try {
            (void)q->orderedRowids(f, Sort{}, &cancel);
            QFAIL("a cancelled ordering finished");
        } catch (const Error& e) {
            QCOMPARE(e.sqliteCode() & 0xff, SQLITE_INTERRUPT);
        }
        // The connection is the queue's own again: the next read runs whole.
        QCOMPARE(q->orderedRowids(f, Sort{}), all);
    }

    void payloadsThatAreNotJson() {
        // litequeue's data is whatever the app put: text that is not JSON is
        // no match, never an error that fails the whole listing.
        QTemporaryDir dir;
        const std::string path = copyFixture(dir, QStringLiteral("litequeue-head-mixed.sqlite3"));
        auto q = openAtFactsNow(path);
        const std::int64_t notJson =
            sqlCount(path, "SELECT count(*) FROM Queue WHERE NOT json_valid(data)");
        QVERIFY(notJson > 0);
        QCOMPARE(whereCount(*q, "data.x"),
                 sqlCount(path, "SELECT count(*) FROM Queue WHERE json_valid(data) AND "
                                "json_type(data, '$.x') IS NOT NULL"));
        // Delayed::Job's handler is YAML: nothing to look into, said so.
        const std::string dj = copyFixture(dir, QStringLiteral("formats/delayed-job.sqlite3"));
        LQ_EXPECT_ERROR(whereCount(*openAtFactsNow(dj), "handler.x"), ErrorKind::InvalidArgument,
                        "delayed-job jobs store no JSON field");
    }
};

QTEST_GUILESS_MAIN(TstJsonWhere)
#include "tst_jsonwhere.moc"
