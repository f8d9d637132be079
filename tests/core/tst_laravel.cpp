// SPDX-License-Identifier: MIT
// Laravel's database queue through the format seam: the facts of the real
// library's fixture (tests/data/formats/facts.json), the reservation token,
// queue:retry of a failed row (refused for another connection), release of
// an expired reservation with undo, and opening without changing the file.
#include "core/formats/laravel.h"
#include "core/sqlite.h"
#include "formatfacts.h"

#include <QObject>
#include <QTemporaryDir>

#include <algorithm>
#include <tuple>
#include <vector>

using namespace lqtest;
using namespace lq::core;

namespace {

const QString kFixture = QStringLiteral("formats/laravel-database.sqlite3");
std::vector<std::vector<std::string>> rows(const std::string& path, const std::string& sql) {
    Db db(path, /*readOnly=*/true);
    return db.rows(sql);
}

} // namespace

class TstLaravel : public QObject {
    Q_OBJECT

private slots:
    void recognisedAndOpeningChangesNothing();
    void countsAndQueuesMatchTheFacts();
    void samples();
    void firstPageAndRowsTableByTable();
    void orderingsArmByArmEqualTheCompoundSort();
    void retryFailedRow();
    void releaseExpiredReservationAndUndo();
    void liveReservationAndStaleTokenRefused();
    void retryAfterSetting();
    void countsOnTheTablesEqualTheStateConditions();
    void secondsInSqlAreTheCastTheyReplaced();
    void failedJobsTakeAttemptsAndPushTimeFromThePayload();
};

void TstLaravel::recognisedAndOpeningChangesNothing() {
    checkOpeningChangesNothing(kFixture, "laravel-database",
                               [](Queue& q) { QCOMPARE(q.info().table, std::string("jobs")); });
}

void TstLaravel::countsAndQueuesMatchTheFacts() {
    QTemporaryDir dir;
    auto q = openAtFactsNow(copyFixture(dir, kFixture));
    const QJsonObject f = factsOf(kFixture);
    checkCounts(*q, f);
    checkPerQueue(*q, f);
}

void TstLaravel::samples() {
    QTemporaryDir dir;
    auto q = openAtFactsNow(copyFixture(dir, kFixture));
    const QJsonObject f = factsOf(kFixture);
    checkSamples(*q, f);
    for (const auto& v : f.value(QStringLiteral("samples")).toArray()) {
        const QJsonObject s = v.toObject();
        const auto m = q->get(toStd(s.value(QStringLiteral("id")).toString()));
        const QJsonObject tok = s.value(QStringLiteral("token")).toObject();
        if (!tok.isEmpty())
            QCOMPARE(m->attempts, tok.value(QStringLiteral("attempts")).toInteger());
    }
    const auto failed = q->get("failed_jobs:1");
    QVERIFY(failed->lastError.value_or("").rfind("RuntimeException", 0) == 0);
    QVERIFY(failed->jobName.has_value());
    // The real library stores the job object PHP-serialized: said, not decoded.
    for (const char* id : {"failed_jobs:1", "jobs:17"})
        QVERIFY(q->get(id)->dataNote.value_or("").find("PHP-serialized") != std::string::npos);
}

// The first page and rows by rowid are read table by table (each by its own
// rowid): the same rows, in the same order, as one scan of both tables.
void TstLaravel::firstPageAndRowsTableByTable() {
    QTemporaryDir dir;
    auto q = openAtFactsNow(copyFixture(dir, kFixture));
    for (const bool desc : {false, true}) {
        Sort s;
        s.descending = desc;
        for (const bool failedOnly : {false, true}) {
            Filter f;
            if (failedOnly)
                f.states = {State::Failed};
            const std::vector<std::int64_t> all = q->orderedRowids(f, s); // one scan
            QVERIFY(all.size() > (failedOnly ? 1U : 3U));
            QVERIFY(q->sortIsIndexed(f, s));
            for (const std::int64_t n : {std::int64_t(1), std::int64_t(3), std::int64_t(1000)}) {
                std::vector<std::int64_t> page;
                for (const Message& m : q->list(f, s, 0, n))
                    page.push_back(m.rowid);
                const auto expect = std::vector<std::int64_t>(
                    all.begin(), all.begin() + std::min<std::ptrdiff_t>(n, all.size()));
                QCOMPARE(page, expect);
            }
            // Offsets past the first page take the generic path: still in order.
            std::vector<std::int64_t> rest;
            for (const Message& m : q->list(f, s, 2, -1))
                rest.push_back(m.rowid);
            QCOMPARE(rest, std::vector<std::int64_t>(all.begin() + 2, all.end()));
            const std::vector<Message> fetched = q->fetchRowids(all);
            QCOMPARE(fetched.size(), all.size());
            for (std::size_t i = 0; i < all.size(); ++i) {
                QCOMPARE(fetched[i].rowid, all[i]);
                QCOMPARE(fetched[i].messageId, q->list(f, s, 0, -1)[i].messageId);
            }
        }
    }
}

// orderedRowids() sorts the two tables' rowids and keys alone, the filter
// and its binds repeated in each arm: every sort key, both ways, with and
// without a filter, the same order as list() sorting the whole compound.
void TstLaravel::orderingsArmByArmEqualTheCompoundSort() {
    QTemporaryDir dir;
    auto q = openAtFactsNow(copyFixture(dir, kFixture));
    std::vector<Filter> filters(4);
    filters[1].states = {State::Ready, State::Failed};
    filters[2].queue = "emails"; // in both tables
    filters[3].states = {State::Scheduled, State::Locked};
    filters[3].queue = "emails";
    filters[3].stuckOnly = true;
    checkScansAgreeWithTheSource(*q, filters);
    // The filters that narrow do narrow (the binds reached both arms).
    const auto all = q->orderedRowids({}, {SortKey::Wait, false}).size();
    const auto ready = q->orderedRowids(filters[1], {SortKey::Wait, false});
    QVERIFY(!ready.empty() && ready.size() < all);
    QVERIFY(std::any_of(ready.begin(), ready.end(), [](std::int64_t r) { return r < 0; }));
    QVERIFY(std::any_of(ready.begin(), ready.end(), [](std::int64_t r) { return r > 0; }));
    const auto emails = q->orderedRowids(filters[2], {SortKey::Wait, true});
    QVERIFY(std::any_of(emails.begin(), emails.end(), [](std::int64_t r) { return r < 0; }));
    QVERIFY(emails.size() < all);
}

// failed_jobs keeps no attempts and no enqueue time: a failed job's are its
// payload's (attempts, createdAt; pushedAt where a hook stores it), and
// without them its enqueue time is unknown, never its failure time.
void TstLaravel::failedJobsTakeAttemptsAndPushTimeFromThePayload() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    {
        Db db(path, /*readOnly=*/false);
        db.exec("UPDATE failed_jobs SET payload = json_set(payload, '$.attempts', 3, "
                "'$.createdAt', 1796030000) WHERE id = 1");
    }
    {
        auto q = openAtFactsNow(path);
        const auto one = q->get("failed_jobs:1");
        QVERIFY(one && one->state == State::Failed);
        QCOMPARE(one->attempts, std::int64_t(3));
        QCOMPARE(one->inTime, std::optional<TimeNs>(1796030000LL * kNsPerSecond));
        QVERIFY(one->doneTime && *one->doneTime != *one->inTime);
        // A payload without them (Laravel 8): no enqueue time, no attempts.
        const auto two = q->get("failed_jobs:2");
        QVERIFY(two);
        QVERIFY(!two->inTime);
        QCOMPARE(two->attempts, std::int64_t(0));
    }
    {
        Db db(path, /*readOnly=*/false);
        db.exec("UPDATE failed_jobs SET payload = json_set(payload, '$.pushedAt', "
                "1796030123.5) WHERE id = 2");
    }
    auto q = openAtFactsNow(path);
    const auto two = q->get("failed_jobs:2");
    QVERIFY(two);
    // Whole seconds, as every Laravel time is read (lq_seconds_ns).
    QCOMPARE(two->inTime, std::optional<TimeNs>(1796030123LL * kNsPerSecond));
    // The sort by enqueue time reads the same times as the rows.
    Filter failed;
    failed.states = {State::Failed};
    const auto ordered = q->orderedRowids(failed, Sort{SortKey::InTime, true});
    QCOMPARE(ordered.size(), std::size_t(2));
    QCOMPARE(ordered.front(), two->rowid); // the newer push time first
}

void TstLaravel::retryFailedRow() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    auto q = openAtFactsNow(path);
    const auto jobsBefore = rows(path, "SELECT count(*) FROM jobs").front().front();
    const auto r = q->apply(Action::Retry, {targetOf(*q, "failed_jobs:1")}, {});
    QCOMPARE(r.applied.size(), std::size_t(1));
    QCOMPARE(rows(path, "SELECT count(*) FROM failed_jobs WHERE id = 1").front().front(),
             std::string("0"));
    QCOMPARE(std::stoll(rows(path, "SELECT count(*) FROM jobs").front().front()),
             std::stoll(jobsBefore) + 1);
    QCOMPARE(rows(path, "SELECT attempts, reserved_at IS NULL, available_at, queue FROM jobs "
                        "ORDER BY id DESC LIMIT 1")
                 .front(),
             (std::vector<std::string>{"0", "1", "1796040000", "podcasts"}));
    // Undo: the new jobs row goes, the failed row comes back as it was.
    const auto u = q->undo(Action::Retry, r.applied);
    QCOMPARE(u.applied.size(), std::size_t(1));
    QCOMPARE(std::stoll(rows(path, "SELECT count(*) FROM jobs").front().front()),
             std::stoll(jobsBefore));
    QCOMPARE(rows(path, "SELECT uuid, connection, failed_at FROM failed_jobs WHERE id = 1").front(),
             (std::vector<std::string>{"593a6ac7-6edd-4395-adbc-f7f1f5e0a9e0", "default",
                                       "2026-11-30 09:10:00"}));
    // A failed row of another connection (redis) is not re-enqueued here.
    {
        Db db(path, false);
        db.exec("UPDATE failed_jobs SET connection = 'redis' WHERE id = 2");
    }
    auto q2 = openAtFactsNow(path);
    const auto r2 = q2->apply(Action::Retry, {targetOf(*q2, "failed_jobs:2")}, {});
    QCOMPARE(r2.applied.size(), std::size_t(0));
    QCOMPARE(r2.skipped.size(), std::size_t(1));
    QVERIFY(r2.skipped.front().reason.find("redis") != std::string::npos);
    QVERIFY(rows(path, "PRAGMA integrity_check").front().front() == "ok");
}

void TstLaravel::releaseExpiredReservationAndUndo() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    auto q = openAtFactsNow(path);
    const auto r = q->apply(Action::Release, {targetOf(*q, "jobs:21")}, {});
    QCOMPARE(r.applied.size(), std::size_t(1));
    QCOMPARE(rows(path, "SELECT reserved_at IS NULL, attempts FROM jobs WHERE id = 21").front(),
             (std::vector<std::string>{"1", "1"}));
    const auto u = q->undo(Action::Release, r.applied);
    QCOMPARE(u.applied.size(), std::size_t(1));
    QCOMPARE(rows(path, "SELECT reserved_at FROM jobs WHERE id = 21").front().front(),
             std::string("1796039820"));
}

void TstLaravel::liveReservationAndStaleTokenRefused() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    auto q = openAtFactsNow(path);
    const auto live = q->apply(Action::Delete, {targetOf(*q, "jobs:20")}, {});
    QCOMPARE(live.applied.size(), std::size_t(0));
    const Target t = targetOf(*q, "jobs:22");
    {
        Db db(path, false); // a worker reserves job 22 meanwhile
        db.exec("UPDATE jobs SET reserved_at = 1796040000, attempts = 1 WHERE id = 22");
    }
    const auto stale = q->apply(Action::Delete, {t}, {});
    QCOMPARE(stale.applied.size(), std::size_t(0));
    QCOMPARE(rows(path, "SELECT count(*) FROM jobs WHERE id = 22").front().front(),
             std::string("1"));
    QVERIFY(!QueueFormat::byId("laravel-database")->offers(Action::MarkFailed, q->info()));
}

// retry_after is the connection's setting, not stored: with the operator's
// value (--retry-after) a reservation 30 s old (job 20) is expired at 10 s
// and live at the default 90 s; counts and the release rule follow it.
void TstLaravel::retryAfterSetting() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    {
        auto q = openAtFactsNow(path);
        QCOMPARE(q->get("jobs:20")->extraState, std::string());
        QCOMPARE(q->counts().stuck, std::int64_t(1)); // job 21, 180 s
        QVERIFY(!q->refusal(Action::Release, *q->get("jobs:20")).empty());
    }
    OpenOptions o;
    o.clock = fixedClock(kFactsNow);
    QVERIFY(o.settings.set(LaravelFormat::kRetryAfterKey, 10));
    auto q = Queue::open(path, o);
    QCOMPARE(q->get("jobs:20")->extraState, std::string("locked_expired"));
    QCOMPARE(q->counts().stuck, std::int64_t(2));
    QVERIFY(q->refusal(Action::Release, *q->get("jobs:20")).empty());
    const auto r = q->apply(Action::Release, {targetOf(*q, "jobs:20")}, {});
    QCOMPARE(r.applied.size(), std::size_t(1));
    QCOMPARE(rows(path, "SELECT reserved_at IS NULL FROM jobs WHERE id = 20").front().front(),
             std::string("1"));
}

// counts() sums the jobs table's own columns (reserved_at in seconds) and
// counts the failed rows, where the state conditions read the arms' ns
// columns: the same figures for values Laravel never writes too (a real or
// text available_at is not due; a reserved_at far past 64-bit ns), per
// queue, and chunk by chunk.
void TstLaravel::countsOnTheTablesEqualTheStateConditions() {
    QTemporaryDir dir;
    const std::string path = copyFixture(dir, kFixture);
    {
        Db db(path);
        // facts "now" is 1796040000; reserved at 1796039910 or before is
        // stuck (retry_after 90 s).
        const char* reserved[] = {"1796039910",
                                  "1796039911",
                                  "1796039910.5",
                                  "1796039911.9",
                                  "'x'",
                                  "x'00'",
                                  "1e15",
                                  "-1e15",
                                  "9223372036854775807",
                                  "-9223372036854775808",
                                  "1e300",
                                  "-1e300"};
        const char* available[] = {"1796040000", "1796040001", "1796039999.5",
                                   "'soon'",     "x'00'",      "-5"};
        for (const char* r : reserved)
            db.exec(std::string("INSERT INTO jobs (queue, payload, attempts, reserved_at, "
                                "available_at, created_at) VALUES ('hostile', '{}', 1, ") +
                    r + ", 1796039000, 1796039000)");
        for (const char* a : available)
            db.exec(std::string("INSERT INTO jobs (queue, payload, attempts, reserved_at, "
                                "available_at, created_at) VALUES ('emails', '{}', 0, NULL, ") +
                    a + ", 1796039000)");
        db.exec("INSERT INTO failed_jobs (uuid, connection, queue, payload, exception) VALUES "
                "('u-1', 'database', 'hostile', '{}', 'E')");
    }
    {
        auto q = openAtFactsNow(path);
        const Counts c = q->counts();
        // The fixture's 5 due, 3 delayed, 2 reserved (job 21 stuck) and 2
        // failed, plus the rows above.
        QCOMPARE(c.ready, std::int64_t(5 + 2));     // 1796040000 and -5
        QCOMPARE(c.scheduled, std::int64_t(3 + 4)); // later, a real, a text, a blob
        QCOMPARE(c.locked, std::int64_t(2 + 12));
        QCOMPARE(c.stuck, std::int64_t(1 + 5)); // ...910, ...910.5 and the 3 negatives
        QCOMPARE(c.failed, std::int64_t(2 + 1));
        QCOMPARE(c.stored, std::int64_t(12 + 18 + 1));
        // The dashboard's timing scan converts the stored seconds itself, not
        // through the arms' ns columns: the same states, stuck rows and times
        // as each row's own reading.
        const TimingColumns tc = q->timing(Filter{});
        const Counts fromCols = countsFrom(tc, q->now(), kDefaultStuckAfterNs);
        QCOMPARE(fromCols.ready, c.ready);
        QCOMPARE(fromCols.scheduled, c.scheduled);
        QCOMPARE(fromCols.locked, c.locked);
        QCOMPARE(fromCols.stuck, c.stuck);
        QCOMPARE(fromCols.failed, c.failed);
        QCOMPARE(fromCols.stored, c.stored);
        using Times = std::tuple<int, TimeNs, TimeNs, TimeNs, TimeNs>;
        const auto orNone = [](const std::optional<TimeNs>& t) {
            return t.value_or(TimingColumns::kNoTime);
        };
        std::vector<Times> scanned, shown;
        for (std::size_t i = 0; i < tc.size(); ++i)
            scanned.emplace_back(tc.state[i], tc.inTime[i], tc.lockTime[i], tc.doneTime[i],
                                 tc.dueTime[i]);
        // A failed_jobs row has no arrival: its row shows failed_at there,
        // the statistics leave it out.
        for (const Message& m : q->list(Filter{}, Sort{}, 0, 1000))
            shown.emplace_back(static_cast<int>(m.state),
                               m.state == State::Failed ? TimingColumns::kNoTime : orNone(m.inTime),
                               orNone(m.lockTime), orNone(m.doneTime), orNone(m.waitFrom));
        std::sort(scanned.begin(), scanned.end());
        std::sort(shown.begin(), shown.end());
        QCOMPARE(scanned.size(), std::size_t(31));
        QVERIFY(scanned == shown);
    }
    checkCountsByCondition(path, {});
}

QTEST_GUILESS_MAIN(TstLaravel)
// lq_seconds_ns(x) is the CASE it replaced, value for value and type for
// type: a REAL product past 64 bits included (the stuck test compares it).
void TstLaravel::secondsInSqlAreTheCastTheyReplaced() {
    QTemporaryDir dir;
    Connection c(dir.filePath(QStringLiteral("s.sqlite3")).toStdString(),
                 Connection::Mode::ReadWriteCreate, 1000);
    const char* values[] = {"NULL",
                            "0",
                            "1796040000",
                            "-5",
                            "1796039910.5",
                            "-1796039910.5",
                            "0.999",
                            "-0.999",
                            "9223372036",
                            "9223372037",
                            "-9223372037",
                            "9223372036854775807",
                            "-9223372036854775808",
                            "1e15",
                            "-1e15",
                            "9.2233720368547758e18",
                            "1e19",
                            "-1e19",
                            "1e300",
                            "-1e300",
                            "'1796040000'",
                            "'soon'",
                            "x'00'",
                            "''"};
    const std::string old =
        "(CASE WHEN typeof(x) IN ('integer', 'real') THEN CAST(x AS INTEGER) * 1000000000 END)";
    const std::string select = "SELECT lq_seconds_ns(x) IS " + old +
                               ", typeof(lq_seconds_ns(x)), typeof" + old + " FROM (SELECT ";
    for (const char* v : values) {
        auto st = c.prepare(std::string(select).append(v).append(" AS x)"));
        QVERIFY(st.step());
        QVERIFY2(st.int64(0) == 1, v);
        QCOMPARE(st.text(1), st.text(2));
    }
}

#include "tst_laravel.moc"
