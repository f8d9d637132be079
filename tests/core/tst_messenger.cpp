// SPDX-License-Identifier: MIT
// Symfony Messenger's Doctrine transport through the format seam: the facts
// of the real library's fixture (tests/data/formats/facts.json), the fields
// read from the envelope as text (never unserialized), recognition beside an
// app's own tables, redeliver_timeout as a declared setting, each action
// (release, delete, prune) with its delivery guard refusing a stale token,
// audited and undone back to the same rows, and failures grouped by error
// class.
#include "core/errors.h"
#include "core/formats/messenger.h"
#include "core/formats/messenger_envelope.h"
#include "core/sqlite.h"
#include "formatfacts.h"

#include <QByteArray>
#include <QObject>
#include <QTemporaryDir>

#include <vector>

using namespace lqtest;
using namespace lq::core;

namespace {

const QString kFixture = QStringLiteral("formats/symfony-messenger.sqlite3");

std::vector<std::vector<std::string>> rows(const std::string& path, const std::string& sql) {
    Db db(path, /*readOnly=*/true);
    return db.rows(sql);
}

/// Every column of every message, with its type (quote()).
std::vector<std::vector<std::string>> snapshot(const std::string& path) {
    return rows(path, "SELECT quote(id), quote(body), quote(headers), quote(queue_name), "
                      "quote(created_at), quote(available_at), quote(delivered_at) FROM "
                      "messenger_messages ORDER BY id");
}

std::string one(const std::string& path, const std::string& sql) {
    return rows(path, sql).at(0).at(0);
}

/// 2026-11-30 + h:m:s, UTC, in ns.
constexpr TimeNs at(int h, int m, int s) {
    return (1'796'040'000LL + (h - 12) * 3600LL + m * 60LL + s) * kNsPerSecond;
}

std::unique_ptr<Queue> openWithRedeliverTimeout(const std::string& path, std::int64_t seconds) {
    OpenOptions o;
    o.clock = fixedClock(kFactsNow);
    if (!o.settings.set(MessengerFormat::kRedeliverTimeoutKey, seconds))
        qFatal("redeliver_timeout refused");
    return Queue::open(path, o);
}

/// PHP's serialize() of a string, for the hand-made envelopes below.
std::string phpStr(const std::string& s) {
    return "s:" + std::to_string(s.size()) + ":\"" + s + "\";";
}

/// PHP's addslashes(), as PhpSerializer::encode() applies it.
std::string addSlashes(const std::string& s) {
    std::string out;
    for (const char c : s) {
        if (c == '\0') {
            out += "\\0";
            continue;
        }
        if (c == '\\' || c == '"' || c == '\'')
            out += '\\';
        out += c;
    }
    return out;
}

} // namespace

class TstMessenger : public QObject {
    Q_OBJECT

private slots:
    void recognisedAndOpeningChangesNothing();
    void countsAndQueuesMatchTheFacts();
    void countsEqualTheStateConditions();
    void fieldsFromTheEnvelopeText();
    void envelopeIsReadAsTextOnly();
    void recognisedBesideOtherTablesAndRefusedWhenIncomplete();
    void redeliverTimeoutIsADeclaredSetting();
    void releaseStuckDeliveryAndUndo();
    void staleTokensRefused();
    void deleteAndPruneAndUndo();
    void operatorDeletesFailedAndUndoesFromTheAuditRecord();
    void failuresGroupedByErrorClass();
    void redeliveredFromTheNextWholeSecond();
};

void TstMessenger::recognisedAndOpeningChangesNothing() {
    checkOpeningChangesNothing(kFixture, "symfony-messenger", [](Queue& q) {
        QCOMPARE(q.info().table, std::string("messenger_messages"));
        QVERIFY(q.info().warnings.empty());
    });
    checkNamedAndOffersRowActions("symfony-messenger");
    const QueueFormat& f = *lq::core::QueueFormat::byId("symfony-messenger");
    const FormatInfo info = infoOf("symfony-messenger");
    QVERIFY(!f.keepsHistory());
    // Messenger retries by handling the message in the app's process: the
    // file does not say which queue it came from, so it is not offered.
    QVERIFY(!f.offers(Action::Retry, info));
    QVERIFY(contains(f.whyNot(Action::Retry, info), "messenger:failed:retry"));
    QVERIFY(!f.offers(Action::MarkFailed, info));
    QVERIFY(!f.offers(Action::Enqueue, info));
    QVERIFY(!f.offers(Action::Reschedule, info));
    QVERIFY(f.offers(Action::Release, info));
    QVERIFY(f.offers(Action::Delete, info));
    QVERIFY(f.offers(Action::Prune, info));
    QVERIFY(f.pruneRules().front().states == std::vector<State>{State::Failed});
    QVERIFY(f.storesMetric(Filter::Metric::Wait, info));
    QVERIFY(!f.storesMetric(Filter::Metric::Processing, info));
    QVERIFY(!f.storesMetric(Filter::Metric::TimeToFailure, info));
}

void TstMessenger::countsAndQueuesMatchTheFacts() {
    QTemporaryDir dir;
    auto q = openAtFactsNow(copyFixture(dir, kFixture));
    const QJsonObject f = factsOf(kFixture);
    checkCounts(*q, f);
    checkPerQueue(*q, f);
    checkSamples(*q, f);
    // The facts, as numbers: READY 3, SCHEDULED 3, LOCKED 2 (1 stuck), FAILED 2.
    const Counts c = q->counts();
    QCOMPARE(describeCounts(c, {"locked_expired"}),
             std::string("ready 3, scheduled 3, locked 2, stuck 1, done 0, failed 2, unknown 0, "
                         "stored 10, locked_expired 1"));
    QCOMPARE(c.ready + c.scheduled + c.locked + c.failed, c.stored); // a partition
    QCOMPARE(q->queueNames(),
             (std::vector<std::string>{"default", "failed", "high", "imports", "reports"}));
    QCOMPARE(describeCounts(q->counts("reports"), {}),
             std::string("ready 0, scheduled 1, locked 1, stuck 1, done 0, failed 0, unknown 0, "
                         "stored 2"));
    QCOMPARE(describeCounts(q->counts("failed"), {}),
             std::string("ready 0, scheduled 0, locked 0, stuck 0, done 0, failed 2, unknown 0, "
                         "stored 2"));
}

void TstMessenger::countsEqualTheStateConditions() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    {
        // Values at the rule's edges: a delivery exactly redeliver_timeout
        // old (not stuck: get() takes delivered_at < now - 3600 s) and one a
        // second older; available_at in ISO spelling, due and not; a
        // delivered row of the failure transport (FAILED, not LOCKED).
        Db db(path);
        for (const char* v :
             {"'odd', '2026-11-30 10:00:00', '2026-11-30 10:00:00', '2026-11-30 11:00:00'",
              "'odd', '2026-11-30 10:00:00', '2026-11-30 10:00:00', '2026-11-30 10:59:59'",
              "'odd', '2026-11-30 10:00:00', '2026-11-30T12:00:00Z', NULL",
              "'odd', '2026-11-30 10:00:00', '2026-11-30T12:00:01Z', NULL",
              "'failed', '2026-11-30 10:00:00', '2026-11-30 10:00:00', '2026-11-30 08:00:00'"})
            db.exec(std::string("INSERT INTO messenger_messages (body, headers, queue_name, "
                                "created_at, available_at, delivered_at) VALUES ('x', '[]', ") +
                    v + ")");
    }
    auto q = openAtFactsNow(path);
    QCOMPARE(describeCounts(q->counts("odd"), {"locked_expired"}),
             std::string("ready 1, scheduled 1, locked 2, stuck 1, done 0, failed 0, unknown 0, "
                         "stored 4, locked_expired 1"));
    QCOMPARE(q->counts("failed").failed, std::int64_t(3));
    // The dashboard's scan classifies as counts() does.
    const TimingColumns tc = q->timing(Filter{});
    const Counts fromCols = countsFrom(tc, q->now(), kDefaultStuckAfterNs);
    QCOMPARE(describeCounts(fromCols, {}), describeCounts(q->counts(), {}));
    checkCountsByCondition(path, {"locked_expired"});
}

void TstMessenger::fieldsFromTheEnvelopeText() {
    QTemporaryDir dir;
    auto q = openAtFactsNow(copyFixture(dir, kFixture));
    // The charge that failed after 3 retries, in the failure transport.
    const Message charge = row(*q, "11");
    QCOMPARE(charge.state, State::Failed);
    QCOMPARE(charge.queueName.value_or(""), std::string("failed"));
    QCOMPARE(charge.jobName.value_or(""), std::string("App\\Message\\ChargeCard"));
    QCOMPARE(charge.attempts, std::int64_t(3));
    QVERIFY(charge.lastError.value_or("").rfind(
                "App\\Exception\\PaymentDeclinedException: card declined for order 1001 "
                "(insufficient funds)\n#0 /usr/share/php/Symfony/Component/Messenger/",
                0) == 0);
    QCOMPARE(errorClassOf(*charge.lastError),
             std::string("App\\Exception\\PaymentDeclinedException"));
    QCOMPARE(charge.inTime, std::optional<TimeNs>(at(9, 5, 7)));
    QCOMPARE(charge.doneTime, std::optional<TimeNs>(at(9, 5, 7)));
    QCOMPARE(charge.tokenText.value_or(""), std::string("not delivered"));
    QVERIFY(charge.data.rfind("O:36:\\\"Symfony\\\\Component\\\\Messenger\\\\Envelope\\\"", 0) ==
            0);
    QVERIFY(contains(charge.dataNote.value_or(""), "never unserialized"));
    QVERIFY(contains(charge.dataNote.value_or(""), "async_priority_high"));
    // Refused as unrecoverable: straight to the failure transport, no retry.
    const Message image = row(*q, "12");
    QCOMPARE(image.state, State::Failed);
    QCOMPARE(image.attempts, std::int64_t(0));
    QVERIFY(image.lastError.value_or("").rfind(
                "Symfony\\Component\\Messenger\\Exception\\UnrecoverableMessageHandlingException: "
                "image 42 is corrupt: not a JPEG\n",
                0) == 0);
    // A retry waiting for its delay (a new row): SCHEDULED with its error.
    const Message import = row(*q, "18");
    QCOMPARE(import.state, State::Scheduled);
    QCOMPARE(import.attempts, std::int64_t(1));
    QVERIFY(import.lastError.value_or("").rfind("RuntimeException: supplier 7 feed returned HTTP "
                                                "503\n",
                                                0) == 0);
    QCOMPARE(import.scheduledAt, std::optional<TimeNs>(at(12, 20, 0)));
    // The crashed worker's delivery and the live one.
    const Message crashed = row(*q, "1");
    QCOMPARE(crashed.state, State::Locked);
    QCOMPARE(crashed.extraState, std::string("locked_expired"));
    QCOMPARE(crashed.lockTime, std::optional<TimeNs>(at(7, 30, 0)));
    QCOMPARE(crashed.leaseExpiry, std::optional<TimeNs>(at(8, 30, 0)));
    QCOMPARE(crashed.tokenText.value_or(""), std::string("2026-11-30 07:30:00"));
    QCOMPARE(crashed.jobName.value_or(""), std::string("App\\Message\\GenerateReport"));
    QVERIFY(!crashed.lastError.has_value());
    const Message live = row(*q, "16");
    QCOMPARE(live.state, State::Locked);
    QCOMPARE(live.extraState, std::string());
    QCOMPARE(live.leaseExpiry, std::optional<TimeNs>(at(12, 40, 0)));
    // Wait is delivered_at - available_at: due 11:30, delivered 11:40.
    QCOMPARE(live.waitNs(), std::optional<TimeNs>(600 * kNsPerSecond));
    // A DelayStamp of a day.
    const Message reminder = row(*q, "13");
    QCOMPARE(reminder.state, State::Scheduled);
    QCOMPARE(reminder.scheduledAt, std::optional<TimeNs>(at(34, 0, 0))); // 2026-12-01 10:00
    QCOMPARE(reminder.jobName.value_or(""), std::string("App\\Message\\SendReminder"));
    const QueueStats st = q->stats();
    QCOMPARE(st.wait.count, std::int64_t(2));
    QCOMPARE(st.processing.count, std::int64_t(0));
    QCOMPARE(st.timeToFailure.count, std::int64_t(0));
}

void TstMessenger::envelopeIsReadAsTextOnly() {
    using messenger::readEnvelope;
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    const std::string body = one(path, "SELECT body FROM messenger_messages WHERE id = 11");
    const auto php = readEnvelope(body, "[]");
    QCOMPARE(php.encoding, std::string("php"));
    QCOMPARE(php.failedOn.value_or(""), std::string("async_priority_high"));
    QCOMPARE(php.errorClass.value_or(""), std::string("App\\Exception\\PaymentDeclinedException"));
    // PhpSerializer base64-encodes a body that is not UTF-8: the same facts.
    const QByteArray b64 = QByteArray::fromStdString(body).toBase64();
    const auto base64 = readEnvelope(b64.toStdString(), "[]");
    QCOMPARE(base64.encoding, std::string("php-base64"));
    QCOMPARE(base64.messageClass, php.messageClass);
    QCOMPARE(base64.errorText(), php.errorText());
    QCOMPARE(base64.retries, php.retries);
    // Symfony's Serializer: the class and the stamps are JSON headers
    // (Transport/Serialization/Serializer.php encode()).
    const auto json = readEnvelope(
        R"({"orderId":1001})",
        R"({"type":"App\\Message\\ChargeCard","X-Message-Stamp-Symfony\\Component\\Messenger\\Stamp\\RedeliveryStamp":"[{\"retryCount\":1},{\"retryCount\":2}]","X-Message-Stamp-Symfony\\Component\\Messenger\\Stamp\\ErrorDetailsStamp":"[{\"exceptionClass\":\"App\\\\Exception\\\\PaymentDeclinedException\",\"exceptionCode\":402,\"exceptionMessage\":\"declined\",\"flattenException\":null}]","Content-Type":"application\/json"})");
    QCOMPARE(json.encoding, std::string("json"));
    QCOMPARE(json.messageClass.value_or(""), std::string("App\\Message\\ChargeCard"));
    QCOMPARE(json.errorText().value_or(""),
             std::string("App\\Exception\\PaymentDeclinedException: declined"));
    QCOMPARE(json.retries, std::optional<std::int64_t>(2));
    // Before Symfony 5.2 the error was the RedeliveryStamp's exceptionMessage.
    const std::string env = "\\Symfony\\Component\\Messenger\\Envelope";
    const std::string rs = "Symfony\\Component\\Messenger\\Stamp\\RedeliveryStamp";
    const std::string old =
        "O:36:\"Symfony\\Component\\Messenger\\Envelope\":2:{" +
        phpStr(std::string("\0", 1) + env.substr(1) + std::string("\0", 1) + "stamps") + "a:1:{" +
        phpStr(rs) + "a:1:{i:0;O:" + std::to_string(rs.size()) + ":\"" + rs + "\":2:{" +
        phpStr(std::string("\0", 1) + rs + std::string("\0", 1) + "retryCount") + "i:2;" +
        phpStr(std::string("\0", 1) + rs + std::string("\0", 1) + "exceptionMessage") +
        phpStr("timeout talking to \"smtp\"") + "}}}" +
        phpStr(std::string("\0", 1) + env.substr(1) + std::string("\0", 1) + "message") +
        "O:8:\"App\\Ping\":0:{}}";
    const auto legacy = readEnvelope(addSlashes(old), "[]");
    QCOMPARE(legacy.messageClass.value_or(""), std::string("App\\Ping"));
    QCOMPARE(legacy.errorText().value_or(""), std::string("timeout talking to \"smtp\""));
    QCOMPARE(legacy.retries, std::optional<std::int64_t>(2));
    // Not an envelope, lying lengths, deep nesting, truncation: nothing read,
    // nothing thrown.
    std::string deep;
    for (int i = 0; i < 5000; ++i)
        deep += "a:1:{i:0;";
    for (const std::string& bad :
         {std::string("hello}"), std::string("s:999999:\"x\";}"), deep + "N;}",
          body.substr(0, body.size() / 2) + "}", std::string("O:3:\"abc\":-1:{}"), std::string(),
          std::string("}")}) {
        const auto f = readEnvelope(bad, "[]");
        QVERIFY(!f.messageClass && !f.errorText() && !f.retries);
    }
    QCOMPARE(messenger::stripSlashes("a\\\\b\\0c\\\"d\\"), std::string("a\\b\0c\"d", 7));
}

void TstMessenger::recognisedBesideOtherTablesAndRefusedWhenIncomplete() {
    QTemporaryDir dir;
    // The app's own database: its tables, and the transport's table under
    // another table_name.
    const std::string path = toStd(dir.filePath(QStringLiteral("app.sqlite3")));
    {
        Db db(path);
        db.exec("CREATE TABLE doctrine_migration_versions (version VARCHAR(191) NOT NULL, "
                "executed_at DATETIME DEFAULT NULL, execution_time INTEGER DEFAULT NULL, PRIMARY "
                "KEY(version))");
        db.exec("CREATE TABLE user (id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, email "
                "VARCHAR(180) NOT NULL, roles CLOB NOT NULL, password VARCHAR(255) NOT NULL)");
        db.exec("CREATE TABLE app_queue (id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, body CLOB "
                "NOT NULL, headers CLOB NOT NULL, queue_name VARCHAR(190) NOT NULL, created_at "
                "DATETIME NOT NULL, available_at DATETIME NOT NULL, delivered_at DATETIME DEFAULT "
                "NULL)");
        db.exec("INSERT INTO app_queue (body, headers, queue_name, created_at, available_at) "
                "VALUES ('{}', '[]', 'default', '2026-11-30 11:00:00', '2026-11-30 11:00:00')");
    }
    {
        auto q = openAtFactsNow(path);
        QCOMPARE(std::string(formatId(q->info().format)), std::string("symfony-messenger"));
        QCOMPARE(q->info().table, std::string("app_queue"));
        QVERIFY(!q->readOnly());
        QCOMPARE(q->counts().ready, std::int64_t(1));
    }
    // The fixture with the app's tables beside it: the same facts.
    const std::string beside = copyFixture(dir, kFixture);
    {
        Db db(beside);
        db.exec("CREATE TABLE \"order\" (id INTEGER NOT NULL, reference VARCHAR(32) NOT NULL, "
                "PRIMARY KEY(id))");
        db.exec("CREATE TABLE doctrine_migration_versions (version VARCHAR(191) NOT NULL, "
                "PRIMARY KEY(version))");
    }
    {
        auto q = openAtFactsNow(beside);
        QCOMPARE(q->info().table, std::string("messenger_messages"));
        checkCounts(*q, factsOf(kFixture));
    }
    // Without delivered_at it is no Messenger table this tool can read.
    checkDamagedSaysWhatIsMissing(kFixture,
                                  {"DROP INDEX IDX_75EA56E016BA31DB",
                                   "ALTER TABLE messenger_messages DROP COLUMN delivered_at"},
                                  "delivered_at");
    checkTwoFormatsInOneFileNamed(kFixture, "symfony-messenger");
    // A trigger on the table: read-only.
    QTemporaryDir dir2;
    const std::string trig = copyFixture(dir2, kFixture);
    {
        Db db(trig);
        db.exec("CREATE TRIGGER t AFTER INSERT ON messenger_messages BEGIN SELECT 1; END");
    }
    QVERIFY(openAtFactsNow(trig)->readOnly());
}

void TstMessenger::redeliverTimeoutIsADeclaredSetting() {
    const QueueFormat& f = *lq::core::QueueFormat::byId("symfony-messenger");
    const auto s = f.settings();
    QCOMPARE(s.size(), std::size_t(1));
    QCOMPARE(s.front().key, std::string(MessengerFormat::kRedeliverTimeoutKey));
    QCOMPARE(s.front().key, std::string("redeliver_timeout"));
    QCOMPARE(s.front().option, std::string("--redeliver-timeout"));
    QCOMPARE(s.front().libraryDefault, std::int64_t(3600));
    QVERIFY(s.front().perQueue); // a transport's option: each has its queue_name
    QVERIFY(contains(f.stuckRule(), "redeliver_timeout"));
    FormatSettings fs;
    QVERIFY(fs.set(MessengerFormat::kRedeliverTimeoutKey, 600));
    QVERIFY(fs.set(MessengerFormat::kRedeliverTimeoutKey, 7200, "reports"));
    QCOMPARE(fs.value(MessengerFormat::kRedeliverTimeoutKey), std::int64_t(600));
    QCOMPARE(fs.value(MessengerFormat::kRedeliverTimeoutKey, "reports"), std::int64_t(7200));
    // With 10 min, the 11:40 delivery is stuck too (and may be released);
    // with 2 h, the 07:30 one still is (4 h 30 min old).
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    auto q = openWithRedeliverTimeout(path, 600);
    QCOMPARE(q->counts().stuck, std::int64_t(2));
    QCOMPARE(row(*q, "16").extraState, std::string("locked_expired"));
    QCOMPARE(row(*q, "16").leaseExpiry, std::optional<TimeNs>(at(11, 50, 0)));
    QCOMPARE(q->apply(Action::Release, {targetOf(*q, "16")}, {}).applied.size(), std::size_t(1));
    QCOMPARE(openWithRedeliverTimeout(path, 7200)->counts().stuck, std::int64_t(1));
    QCOMPARE(openWithRedeliverTimeout(path, std::int64_t(6 * 3600))->counts().stuck,
             std::int64_t(0));
    // Per queue: `high` at 10 min makes 11:40 stuck, `reports` at 6 h keeps
    // 07:30 live; the conditions, the rows and the scan agree.
    QTemporaryDir dir2;
    const std::string fresh = copyFixture(dir2, kFixture);
    OpenOptions o;
    o.clock = fixedClock(kFactsNow);
    QVERIFY(o.settings.set(MessengerFormat::kRedeliverTimeoutKey, 600, "high"));
    QVERIFY(
        o.settings.set(MessengerFormat::kRedeliverTimeoutKey, std::int64_t(6 * 3600), "reports"));
    auto pq = Queue::open(fresh, o);
    QCOMPARE(describeCounts(pq->counts(), {"locked_expired"}),
             describeCounts(countsByCondition(*pq, {"locked_expired"}), {"locked_expired"}));
    QCOMPARE(pq->counts().stuck, std::int64_t(1));
    QCOMPARE(row(*pq, "16").extraState, std::string("locked_expired"));
    QCOMPARE(row(*pq, "1").extraState, std::string());
    QCOMPARE(row(*pq, "1").leaseExpiry, std::optional<TimeNs>(at(13, 30, 0)));
    QCOMPARE(countsFrom(pq->timing(Filter{}), pq->now(), kDefaultStuckAfterNs).stuck,
             std::int64_t(1));
    checkRefused(*pq, Action::Release, {"1"}, SkipKind::NotApplicable);
}

void TstMessenger::releaseStuckDeliveryAndUndo() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    const auto before = snapshot(path);
    auto q = openAtFactsNow(path);
    // A live delivery (within redeliver_timeout) and undelivered ones are not released.
    checkRefused(*q, Action::Release, {"16", "5", "11", "13"}, SkipKind::NotApplicable);
    const auto r = q->apply(Action::Release, {targetOf(*q, "1")}, {});
    QCOMPARE(r.applied.size(), std::size_t(1));
    // delivered_at only: the row is READY (due since 07:00) as the next get() finds it.
    QCOMPARE(rows(path, "SELECT delivered_at, queue_name, created_at, available_at FROM "
                        "messenger_messages WHERE id = 1")
                 .front(),
             (std::vector<std::string>{"NULL", "reports", "2026-11-30 07:00:00",
                                       "2026-11-30 07:00:00"}));
    QCOMPARE(row(*q, "1").state, State::Ready);
    QCOMPARE(q->counts().stuck, std::int64_t(0));
    const auto u = q->undo(Action::Release, r.applied);
    QCOMPARE(u.applied.size(), std::size_t(1));
    QVERIFY(snapshot(path) == before);
}

void TstMessenger::staleTokensRefused() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    auto q = openAtFactsNow(path);
    const Target ready = targetOf(*q, "5");
    const Target stuck = targetOf(*q, "1");
    const Target failed = targetOf(*q, "12");
    {
        // Meanwhile, as Connection::get() writes it: a worker gets 5,
        // another redelivers 1, a consumer of the failure transport gets 12.
        Db db(path);
        db.exec("UPDATE messenger_messages SET delivered_at = '2026-11-30 11:59:59' WHERE id = 5");
        db.exec("UPDATE messenger_messages SET delivered_at = '2026-11-30 11:59:58' WHERE id = 1");
        db.exec("UPDATE messenger_messages SET delivered_at = '2026-11-30 11:59:57' WHERE id = 12");
    }
    const auto snap = snapshot(path);
    for (const auto& [a, t] :
         {std::pair{Action::Delete, ready}, std::pair{Action::Release, stuck},
          std::pair{Action::Prune, failed}, std::pair{Action::Delete, failed}}) {
        const auto r = q->apply(a, {t}, {});
        QVERIFY(r.applied.empty());
        QCOMPARE(r.skipped.size(), std::size_t(1));
        QCOMPARE(r.skipped.front().kind, SkipKind::Changed);
    }
    QVERIFY(snapshot(path) == snap);
    // Shown as it is now, the failed one is in a consumer's hands: refused.
    auto q2 = openAtFactsNow(path);
    checkRefused(*q2, Action::Delete, {"12", "5", "1"}, SkipKind::NotApplicable);
    // Undo refuses a row that moved on since the action.
    QTemporaryDir dir2;
    const std::string path2 = copyFixture(dir2, kFixture);
    auto q3 = openAtFactsNow(path2);
    const auto r = q3->apply(Action::Release, {targetOf(*q3, "1")}, {});
    QCOMPARE(r.applied.size(), std::size_t(1));
    {
        Db db(path2); // a worker gets the released message
        db.exec("UPDATE messenger_messages SET delivered_at = '2026-11-30 12:00:01' WHERE id = 1");
    }
    const auto u = q3->undo(Action::Release, r.applied);
    QVERIFY(u.applied.empty());
    QCOMPARE(u.skipped.size(), std::size_t(1));
    QCOMPARE(one(path2, "SELECT delivered_at FROM messenger_messages WHERE id = 1"),
             std::string("2026-11-30 12:00:01"));
}

void TstMessenger::deleteAndPruneAndUndo() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    const auto before = snapshot(path);
    auto q = openAtFactsNow(path);
    // Delete: any message but one a live worker holds.
    checkRefused(*q, Action::Delete, {"16"}, SkipKind::NotApplicable);
    const auto d = q->apply(Action::Delete, {targetOf(*q, "5"), targetOf(*q, "1")}, {});
    QCOMPARE(d.applied.size(), std::size_t(2));
    QCOMPARE(one(path, "SELECT count(*) FROM messenger_messages WHERE id IN (1, 5)"),
             std::string("0"));
    QCOMPARE(q->undo(Action::Delete, d.applied).applied.size(), std::size_t(2));
    QVERIFY(snapshot(path) == before);
    // Prune: the failure transport's messages (messenger:failed:remove),
    // by the time they were sent there (09:05:07 and 09:10:00).
    Operator op(*q, "test", AuditLog(toStd(dir.filePath(QStringLiteral("audit")))));
    QCOMPARE(op.planPrune(true, std::chrono::hours(3), kFactsNow).targets.size(), std::size_t(0));
    QCOMPARE(op.planPrune(true, std::chrono::minutes(172), kFactsNow).targets.size(),
             std::size_t(1));
    QCOMPARE(op.planPrune(true, std::chrono::hours(2), kFactsNow).targets.size(), std::size_t(2));
    QCOMPARE(op.planPrune(false, std::nullopt, kFactsNow).targets.size(), std::size_t(0));
    const Plan plan = op.planPrune(true, std::nullopt, kFactsNow);
    QCOMPARE(plan.targets.size(), std::size_t(2));
    QCOMPARE(op.run(plan).applied(), std::size_t(2));
    QCOMPARE(one(path, "SELECT count(*) FROM messenger_messages"), std::string("8"));
    QCOMPARE(one(path, "SELECT count(*) FROM messenger_messages WHERE queue_name = 'failed'"),
             std::string("0"));
    checkRefused(*q, Action::Prune, {"5"}, SkipKind::NotApplicable);
    const auto record = op.lastUndoable();
    QVERIFY(record.has_value());
    QCOMPARE(op.undo(*record).applied(), std::size_t(2));
    QVERIFY(snapshot(path) == before);
}

void TstMessenger::operatorDeletesFailedAndUndoesFromTheAuditRecord() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    const auto before = snapshot(path);
    auto q = openAtFactsNow(path);
    Operator op(*q, "test", AuditLog(toStd(dir.filePath(QStringLiteral("audit")))));
    Filter fl;
    fl.states = {State::Failed};
    const Plan plan = op.planFilter(Action::Delete, fl);
    QCOMPARE(plan.count(), std::size_t(2));
    QCOMPARE(op.run(plan).applied(), std::size_t(2));
    QCOMPARE(q->counts().failed, std::int64_t(0));
    const auto record = op.lastUndoable();
    QVERIFY(record.has_value());
    QCOMPARE(op.undo(*record).applied(), std::size_t(2));
    QCOMPARE(q->counts().failed, std::int64_t(2));
    // Every byte of the bodies and headers back, ids kept.
    QVERIFY(snapshot(path) == before);
}

void TstMessenger::failuresGroupedByErrorClass() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    {
        auto q = openAtFactsNow(path);
        const auto groups = groupFailures(*q);
        QCOMPARE(groups.size(), std::size_t(2));
        for (const ErrorGroup& g : groups) {
            QCOMPARE(g.count, std::int64_t(1));
            QCOMPARE(g.queues, std::vector<std::string>{"failed"});
        }
        QCOMPARE(groups[0].error, std::string("App\\Exception\\PaymentDeclinedException"));
        QCOMPARE(groups[0].messageIds, std::vector<std::string>{"11"});
        QCOMPARE(groups[1].error, std::string("Symfony\\Component\\Messenger\\Exception\\"
                                              "UnrecoverableMessageHandlingException"));
        QVERIFY(contains(groups[1].sample, "image 42 is corrupt"));
    }
    {
        // A second charge sent to the failure transport with the same
        // envelope: the class groups it with the first.
        Db db(path);
        db.exec("INSERT INTO messenger_messages (body, headers, queue_name, created_at, "
                "available_at) SELECT body, headers, queue_name, '2026-11-30 09:30:00', "
                "'2026-11-30 09:30:00' FROM messenger_messages WHERE id = 11");
    }
    auto q = openAtFactsNow(path);
    const auto groups = groupFailures(*q);
    QCOMPARE(groups.size(), std::size_t(2));
    QCOMPARE(groups[0].error, std::string("App\\Exception\\PaymentDeclinedException"));
    QCOMPARE(groups[0].count, std::int64_t(2));
    QCOMPARE(groups[0].firstFailedAt, std::optional<TimeNs>(at(9, 5, 7)));
    QCOMPARE(groups[0].lastFailedAt, std::optional<TimeNs>(at(9, 30, 0)));
    QCOMPARE(groups[1].count, std::int64_t(1));
}

/// Messenger compares whole-second datetimes: the 07:30:00 delivery (1 h
/// timeout) is taken again only from 08:30:01, so at 08:30:00.5 it is still
/// live (found by tests/stress/messenger: lqctl released it 1 s early).
void TstMessenger::redeliveredFromTheNextWholeSecond() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    const auto openAt = [&](TimeNs now) {
        OpenOptions o;
        o.clock = fixedClock(now);
        return Queue::open(path, o);
    };
    for (const TimeNs now : {at(8, 30, 0), at(8, 30, 0) + kNsPerSecond / 2, at(8, 30, 1) - 1}) {
        auto q = openAt(now);
        QCOMPARE(row(*q, "1").extraState, std::string());
        QCOMPARE(describeCounts(q->counts(), {"locked_expired"}),
                 describeCounts(countsByCondition(*q, {"locked_expired"}), {"locked_expired"}));
        checkRefused(*q, Action::Release, {"1"}, SkipKind::NotApplicable);
    }
    auto q = openAt(at(8, 30, 1));
    QCOMPARE(row(*q, "1").extraState, std::string("locked_expired"));
    QCOMPARE(describeCounts(q->counts(), {"locked_expired"}),
             describeCounts(countsByCondition(*q, {"locked_expired"}), {"locked_expired"}));
    QCOMPARE(q->apply(Action::Release, {targetOf(*q, "1")}, {}).applied.size(), std::size_t(1));
}

QTEST_GUILESS_MAIN(TstMessenger)
#include "tst_messenger.moc"
