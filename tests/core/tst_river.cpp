// SPDX-License-Identifier: MIT
// River's riversqlite (docs/FORMATS.md#river-sqlite) through the format seam: the facts of
// the v7 fixture (JSONB args/errors/metadata decoded by core/jsonb, never by
// SQLite's json(), which the system 3.40 lacks), the damaged-JSONB variant,
// JobRetry, the JobRescuer's rescue, JobDelete, prune, undo, and ids that
// River reuses (a row is (id, created_at)).
#include "core/formats/queueformat.h"
#include "core/json.h"
#include "core/jsonb.h"
#include "jobtable_facts.h"

#include <QObject>

using namespace lqtest;
using namespace lqtest::jobtable;
using namespace lq::core;

namespace {

const QString kFixture = QStringLiteral("formats/river-v7.sqlite3");
const QString kDamaged = QStringLiteral("formats/river-v7-damaged-jsonb.sqlite3");
const std::string kTable = "river_job";

QJsonObject riverFacts() {
    return factsOf(kFixture);
}

/// The rows of the named fact ("args, metadata, error count ...").
QJsonArray factRows(const QJsonObject& f, const QString& prefix) {
    for (const QJsonValue v : f.value(QStringLiteral("facts")).toArray())
        if (v.toObject().value(QStringLiteral("fact")).toString().startsWith(prefix))
            return v.toObject().value(QStringLiteral("rows")).toArray();
    throw std::runtime_error("no fact " + toStd(prefix));
}

std::vector<std::string> cols(const std::string& path, const std::string& id,
                              const std::string& which) {
    Db db(path, true);
    const auto rows = db.rows("SELECT " + which + " FROM river_job WHERE id = " + id);
    return rows.empty() ? std::vector<std::string>{} : rows.front();
}

/// A JSONB column of one job, decoded by our own decoder.
Json jsonbCol(const std::string& path, const std::string& id, const std::string& col) {
    Db db(path, true);
    const auto h = db.rows("SELECT hex(" + col + ") FROM river_job WHERE id = " + id);
    const QByteArray bytes = QByteArray::fromHex(QByteArray::fromStdString(h.at(0).at(0)));
    return Json::parse(jsonb::toJson(std::string_view(bytes.constData(), bytes.size())));
}

} // namespace

class TstRiver : public QObject {
    Q_OBJECT

private slots:
    void recognisedAndOpeningChangesNothing() {
        checkOpeningChangesNothing(kFixture, "river-sqlite");
        checkOpeningChangesNothing(kDamaged, "river-sqlite");
    }
    void countsAtNowMatchTheFacts() {
        QTemporaryDir dir;
        auto q = openAtFactsNow(copyFixture(dir, kFixture));
        checkCounts(*q, riverFacts(), FactsExtras::ZerosLeftOut);
        QCOMPARE(q->info().userVersion, std::int64_t(7)); // max(version) of river_migration
    }
    void queueNamesAndPerQueueCounts() {
        QTemporaryDir dir;
        auto q = openAtFactsNow(copyFixture(dir, kFixture));
        checkPerQueue(*q, riverFacts());
    }
    void samplesArgsAndErrors() {
        QTemporaryDir dir;
        auto q = openAtFactsNow(copyFixture(dir, kFixture));
        const QJsonObject f = riverFacts();
        checkSamples(*q, f);
        checkSampleTokens(*q, f);
        // Every job's args, decoded from JSONB, equal SQLite 3.53's json(args).
        for (const QJsonValue v : factRows(f, QStringLiteral("args, metadata"))) {
            const QJsonObject r = v.toObject();
            const Message m = row(*q, std::to_string(r.value(QStringLiteral("id")).toInteger()));
            QCOMPARE(fromStd(m.data), r.value(QStringLiteral("args")).toString());
            QVERIFY(!m.dataIsBlob);
            QCOMPARE(fromStd(m.statusText), r.value(QStringLiteral("state")).toString());
        }
        // The last error of each job with errors.
        for (const QJsonValue v : factRows(f, QStringLiteral("last error"))) {
            const QJsonObject r = v.toObject();
            const Message m = row(*q, std::to_string(r.value(QStringLiteral("id")).toInteger()));
            QVERIFY(m.lastError);
            QVERIFY2(m.lastError->find(toStd(r.value(QStringLiteral("error")).toString())) !=
                         std::string::npos,
                     m.lastError->c_str());
        }
        // Go's time.String() spelling of finalized_at is read ("... +0000 UTC").
        const Message m9 = row(*q, "9");
        QCOMPARE(cols(q->path(), "9", "finalized_at").at(0),
                 std::string("2026-11-30 08:07:02.18 +0000 UTC"));
        QCOMPARE(m9.doneTime, parseTextTime("2026-11-30T08:07:02.18Z"));
        QCOMPARE(m9.jobName.value_or(""), cols(q->path(), "9", "kind").at(0));
        QCOMPARE(m9.maxAttempts, std::optional<std::int64_t>(3));
        Filter s;
        s.search = "9003"; // inside the JSONB args
        QCOMPARE(q->count(s), std::int64_t(1));
    }
    void damagedJsonbShowsBytes() {
        QTemporaryDir dir;
        const std::string path = copyFixture(dir, kDamaged);
        auto q = openAtFactsNow(path);
        checkCounts(*q, factsOf(kDamaged), FactsExtras::ZerosLeftOut);
        const Message m = row(*q, "1");
        QVERIFY(m.dataIsBlob);
        QVERIFY(m.dataNote && m.dataNote->find("damaged JSONB") != std::string::npos);
        QCOMPARE(QByteArray::fromStdString(m.data).toHex().toUpper(),
                 QByteArray::fromStdString(cols(path, "1", "hex(args)").at(0)));
        QCOMPARE(row(*q, "2").data,
                 std::string("{\"to\":\"b@example.com\",\"template\":\"welcome\"}"));
        QVERIFY(!row(*q, "2").dataNote);
        // Listing and the actions still work around it.
        QCOMPARE(q->list({}, {}, 0, -1).size(), std::size_t(3));
        const ActionResult d = q->apply(Action::Delete, {targetOf(*q, "1")});
        QCOMPARE(d.applied.size(), std::size_t(1));
        QCOMPARE(q->undo(Action::Delete, d.applied).applied.size(), std::size_t(1));
        QCOMPARE(cols(path, "1", "hex(args)"),
                 std::vector<std::string>{
                     QByteArray::fromStdString(row(*q, "1").data).toHex().toUpper().toStdString()});
    }
    void capabilities() {
        checkNamedAndOffersRowActions("river-sqlite");
        const QueueFormat& f = *lq::core::QueueFormat::byId("river-sqlite");
        const FormatInfo info = infoOf("river-sqlite");
        for (Action a : {Action::MarkFailed, Action::Enqueue, Action::Reschedule,
                         Action::RetryExpired, Action::Upgrade})
            QVERIFY(f.whyNot(a, info).size() > 20);
    }
    void retryAndUndo() {
        QTemporaryDir dir;
        const std::string path = copyFixture(dir, kFixture);
        auto q = openAtFactsNow(path);
        const auto b9 = rawJob(path, kTable, "9");
        const auto b23 = rawJob(path, kTable, "23");
        // 9 discarded at 3/3, 23 scheduled (run now); 12 available and due,
        // 6 running: refused.
        const ActionResult r = q->apply(Action::Retry, {targetOf(*q, "9"), targetOf(*q, "23"),
                                                        targetOf(*q, "12"), targetOf(*q, "6")});
        QCOMPARE(r.applied.size(), std::size_t(2));
        QCOMPARE(r.skipped.size(), std::size_t(2));
        const auto a9 = cols(path, "9", "state, scheduled_at, finalized_at, max_attempts, attempt");
        QCOMPARE(a9,
                 (std::vector<std::string>{"available", "2026-11-30 12:00:00", "NULL", "4", "3"}));
        QCOMPARE(cols(path, "23", "max_attempts, attempt"), (std::vector<std::string>{"25", "0"}));
        QCOMPARE(row(*q, "23").state, State::Ready);
        QCOMPARE(q->undo(Action::Retry, r.applied).applied.size(), std::size_t(2));
        QCOMPARE(rawJob(path, kTable, "9"), b9);
        QCOMPARE(rawJob(path, kTable, "23"), b23);
    }
    void releaseFollowsTheJobRescuer() {
        QTemporaryDir dir;
        const std::string path = copyFixture(dir, kFixture);
        auto q = openAtFactsNow(path);
        const auto b16 = rawJob(path, kTable, "16");
        const auto b17 = rawJob(path, kTable, "17");
        const ActionResult r =
            q->apply(Action::Release, {targetOf(*q, "16"), targetOf(*q, "17"), targetOf(*q, "6")});
        QCOMPARE(r.applied.size(), std::size_t(2)); // 6 is live
        QCOMPARE(r.skipped.size(), std::size_t(1));
        QCOMPARE(r.skipped.front().kind, SkipKind::NotApplicable);
        // 16: retryable, an error appended, river:rescue_count + 1, next retry
        // after 1^4 s; JSONB written back (jsonb.h decodes it).
        QCOMPARE(cols(path, "16", "state, scheduled_at, finalized_at, typeof(errors)"),
                 (std::vector<std::string>{"retryable", "2026-11-30 12:00:01", "NULL", "blob"}));
        const Json errors = jsonbCol(path, "16", "errors");
        QCOMPARE(errors.toArray().size(), std::size_t(1));
        QCOMPARE(errors.toArray().back()["error"].toString(),
                 std::string("Stuck job rescued by JobRescuer"));
        QCOMPARE(errors.toArray().back()["attempt"].toInt(), std::int64_t(1));
        QCOMPARE(errors.toArray().back()["at"].toString(), std::string("2026-11-30T12:00:00Z"));
        QCOMPARE(jsonbCol(path, "16", "metadata")["river:rescue_count"].toInt(), std::int64_t(1));
        // 17 had cancel_attempted_at: cancelled, finalized now.
        QCOMPARE(cols(path, "17", "state, finalized_at"),
                 (std::vector<std::string>{"cancelled", "2026-11-30 12:00:00"}));
        QCOMPARE(q->counts().stuck, std::int64_t(0));
        QCOMPARE(q->undo(Action::Release, r.applied).applied.size(), std::size_t(2));
        QCOMPARE(rawJob(path, kTable, "16"), b16);
        QCOMPARE(rawJob(path, kTable, "17"), b17);
    }
    void deletePruneAndReusedIds() {
        QTemporaryDir dir;
        const std::string path = copyFixture(dir, kFixture);
        auto q = openAtFactsNow(path);
        const auto b1 = rawJob(path, kTable, "1");
        const Target t2 = targetOf(*q, "2");
        const ActionResult d = q->apply(Action::Delete, {targetOf(*q, "1"), targetOf(*q, "6")});
        QCOMPARE(d.applied.size(), std::size_t(1)); // 6 is running
        const ActionResult p = q->apply(Action::Prune, {targetOf(*q, "13"), targetOf(*q, "21")});
        QCOMPARE(p.applied.size(), std::size_t(1)); // 13 cancelled: finished; 21 available
        QCOMPARE(q->undo(Action::Prune, p.applied).applied.size(), std::size_t(1));
        // River reuses the id of a deleted row (no AUTOINCREMENT): a new job
        // with id 1 is another job, and the undo of the delete does not
        // overwrite it.
        {
            Db db(path);
            db.exec("INSERT INTO river_job (id, args, kind, metadata, tags, created_at, "
                    "scheduled_at, state, queue, max_attempts, priority, attempt) SELECT 1, args, "
                    "kind, metadata, tags, '2026-11-30 11:59:59.5', scheduled_at, 'available', "
                    "queue, max_attempts, priority, 0 FROM river_job WHERE id = 21");
            // ... and job 2 is deleted and its id reused with the same state.
            db.exec("CREATE TEMP TABLE j AS SELECT * FROM river_job WHERE id = 2");
            db.exec("DELETE FROM river_job WHERE id = 2");
            db.exec("UPDATE j SET created_at = '2026-11-30 11:59:59.9'");
            db.exec("INSERT INTO river_job SELECT * FROM j");
        }
        const ActionResult u = q->undo(Action::Delete, d.applied);
        QVERIFY(u.applied.empty());
        QCOMPARE(u.skipped.front().kind, SkipKind::Conflict);
        QVERIFY(rawJob(path, kTable, "1") != b1);
        const ActionResult stale = q->apply(Action::Delete, {t2});
        QVERIFY(stale.applied.empty());
        QCOMPARE(stale.skipped.front().kind, SkipKind::Changed);
        QCOMPARE(cols(path, "2", "created_at").at(0), std::string("2026-11-30 11:59:59.9"));
    }
    void staleClaimRefused() {
        QTemporaryDir dir;
        auto q = openAtFactsNow(copyFixture(dir, kFixture));
        checkStaleTokenRefused(*q, kTable, "16", Action::Release,
                               "attempt = attempt + 1, attempted_at = '2026-11-30 11:59:59.5'");
        checkStaleTokenRefused(*q, kTable, "9", Action::Retry,
                               "state = 'available', finalized_at = NULL");
    }
};

QTEST_GUILESS_MAIN(TstRiver)
#include "tst_river.moc"
