// SPDX-License-Identifier: MIT
// backlite through the format seam: the facts of the fixture
// (tests/data/formats/facts.json) over its two tables, release of an expired
// claim, run now, delete and prune of completed rows, each with undo, the
// (id, claimed_at, attempts) compare-and-swap, and opening that changes
// nothing.
#include "core/operator.h"
#include "formatfacts.h"

#include <QObject>
#include <QTemporaryDir>

using namespace lqtest;
using namespace lq::core;

namespace {

const QString kFixture = QStringLiteral("formats/backlite.sqlite3");
const std::string kExpired = "01a22c46-b0c0-7c40-bb7c-c97d5d8d14b8"; // claimed 14 min ago
const std::string kLive = "01a22c4e-ee20-7714-acc2-0a40ac1457a1";    // claimed 5 min ago
const std::string kDone = "01a22bae-b680-7474-b768-064f958507ad";
const std::string kFailed = "01a22be5-a500-7bcf-9f5c-066a7a206c4d";
const std::string kReady = "01a22c51-ad40-7259-92b4-7a9271995c60";
const std::string kLater = "01a22c41-3280-7c11-b3a4-dddca7cb440d";

std::vector<std::string> raw(const std::string& path, const std::string& table,
                             const std::string& id) {
    Db db(path, /*readOnly=*/true);
    const auto rows = db.rows("SELECT *, hex(task) FROM " + table + " WHERE id = '" + id + "'");
    return rows.empty() ? std::vector<std::string>{} : rows.front();
}
std::vector<std::string> live(const std::string& path, const std::string& id) {
    return raw(path, "backlite_tasks", id);
}
std::vector<std::string> done(const std::string& path, const std::string& id) {
    return raw(path, "backlite_tasks_completed", id);
}

} // namespace

class TstBacklite : public QObject {
    Q_OBJECT

private slots:
    void recognisedAndOpeningChangesNothing() { checkOpeningChangesNothing(kFixture, "backlite"); }

    void countsQueuesAndSamples() {
        QTemporaryDir dir;
        auto q = openAtFactsNow(copyFixture(dir, kFixture));
        const QJsonObject f = factsOf(kFixture);
        checkCounts(*q, f);
        checkPerQueue(*q, f);
        checkSamples(*q, f);
        for (const QJsonValue v : f.value(QStringLiteral("samples")).toArray()) {
            if (!v.toObject().value(QStringLiteral("token")).isObject())
                continue; // completed rows: no claim token
            const QJsonObject tok = v.toObject().value(QStringLiteral("token")).toObject();
            const auto m = q->get(toStd(tok.value(QStringLiteral("id")).toString()));
            QCOMPARE(m->attempts, tok.value(QStringLiteral("attempts")).toInteger());
            const QJsonValue claimed = tok.value(QStringLiteral("claimed_at"));
            if (claimed.isNull())
                QVERIFY(!m->lockTime.has_value());
            else
                QCOMPARE(*m->lockTime / 1'000'000, claimed.toInteger());
        }
        const Message d = *q->get(kDone);
        QCOMPARE(d.state, State::Done);
        QVERIFY(d.doneTime.has_value());
        QCOMPARE(q->get(kFailed)->state, State::Failed);
        QVERIFY(!q->get(kFailed)->lastError.value_or("").empty());
        QCOMPARE(q->get(kExpired)->extraState, std::string("locked_expired"));
    }

    void releaseExpiredAndUndo() {
        QTemporaryDir dir;
        const std::string path = copyFixture(dir, kFixture);
        auto q = openAtFactsNow(path);
        const auto before = live(path, kExpired);
        const ActionResult r =
            q->apply(Action::Release, {targetOf(*q, kExpired), targetOf(*q, kLive)});
        QCOMPARE(r.applied.size(), std::size_t(1)); // the live claim is refused
        QCOMPARE(r.skipped.front().kind, SkipKind::NotApplicable);
        QCOMPARE(q->get(kExpired)->state, State::Ready);
        QCOMPARE(live(path, kExpired).at(5), std::string("NULL")); // claimed_at
        QCOMPARE(q->undo(Action::Release, r.applied).applied.size(), std::size_t(1));
        QCOMPARE(live(path, kExpired), before);
    }

    void runNowAndUndo() {
        QTemporaryDir dir;
        const std::string path = copyFixture(dir, kFixture);
        auto q = openAtFactsNow(path);
        const auto before = live(path, kLater);
        const ActionResult r = q->apply(Action::Reschedule, {targetOf(*q, kLater)});
        QCOMPARE(r.applied.size(), std::size_t(1));
        QCOMPARE(live(path, kLater).at(4), std::to_string(kFactsNow / 1'000'000));
        QCOMPARE(q->undo(Action::Reschedule, r.applied).applied.size(), std::size_t(1));
        QCOMPARE(live(path, kLater), before);
    }

    void deleteAndPruneWithUndo() {
        QTemporaryDir dir;
        const std::string path = copyFixture(dir, kFixture);
        auto q = openAtFactsNow(path);
        const auto stored = q->counts().stored;
        const auto bReady = live(path, kReady);
        const auto bDone = done(path, kDone);
        const auto bFailed = done(path, kFailed);
        const ActionResult d =
            q->apply(Action::Delete, {targetOf(*q, kReady), targetOf(*q, kLive)});
        QCOMPARE(d.applied.size(), std::size_t(1)); // never a claimed task
        const ActionResult p = q->apply(
            Action::Prune, {targetOf(*q, kDone), targetOf(*q, kFailed), targetOf(*q, kLater)});
        QCOMPARE(p.applied.size(), std::size_t(2));
        QCOMPARE(q->counts().stored, stored - 3);
        QCOMPARE(q->undo(Action::Delete, d.applied).applied.size(), std::size_t(1));
        QCOMPARE(q->undo(Action::Prune, p.applied).applied.size(), std::size_t(2));
        QCOMPARE(live(path, kReady), bReady);
        QCOMPARE(done(path, kDone), bDone);
        QCOMPARE(done(path, kFailed), bFailed);
        QCOMPARE(q->counts().stored, stored);
    }

    void staleTokenRefused() {
        QTemporaryDir dir;
        const std::string path = copyFixture(dir, kFixture);
        auto q = openAtFactsNow(path);
        const Target shown = targetOf(*q, kExpired);
        {
            Db db(path); // the dispatcher fetches it again meanwhile
            db.exec("UPDATE backlite_tasks SET claimed_at = 1796039990000, attempts = attempts + "
                    "1 WHERE id = '" +
                    kExpired + "'");
        }
        const auto now = live(path, kExpired);
        const ActionResult r = q->apply(Action::Release, {shown});
        QVERIFY(r.applied.empty());
        QCOMPARE(r.skipped.front().kind, SkipKind::Changed);
        QCOMPARE(live(path, kExpired), now);
    }

    /// Prune's default is backlite's cleaner: completed rows whose
    /// expires_at has passed (NULL: kept for ever), at the `now` given;
    /// an explicit age still prunes every completed row by finish time.
    void pruneFollowsExpiresAt() {
        QTemporaryDir dir;
        const std::string path = copyFixture(dir, kFixture);
        auto q = openAtFactsNow(path);
        Operator op(*q, "test");
        const auto count = [&](const std::string& sql) {
            Db db(path, /*readOnly=*/true);
            return static_cast<std::size_t>(std::stoull(db.rows(sql).at(0).at(0)));
        };
        const auto expiredAt = [&](TimeNs t) {
            return count("SELECT count(*) FROM backlite_tasks_completed WHERE expires_at IS NOT "
                         "NULL AND expires_at <= " +
                         std::to_string(t / 1'000'000));
        };
        // At the fixture's now nothing has expired yet.
        QCOMPARE(op.planPrune(true, std::nullopt, kFactsNow).targets.size(), expiredAt(kFactsNow));
        QCOMPARE(expiredAt(kFactsNow), std::size_t(0));
        // 22 h later: those expired then, not the ones kept for ever.
        const TimeNs later = kFactsNow + 22 * 3600 * kNsPerSecond;
        const std::size_t kept =
            count("SELECT count(*) FROM backlite_tasks_completed WHERE expires_at IS NULL");
        QVERIFY(expiredAt(later) > 0 && kept > 0);
        const Plan plan = op.planPrune(true, std::nullopt, later);
        QCOMPARE(plan.targets.size(), expiredAt(later));
        const Report rep = op.run(plan);
        QCOMPARE(rep.applied(), plan.targets.size());
        QCOMPARE(expiredAt(later), std::size_t(0));
        QCOMPARE(count("SELECT count(*) FROM backlite_tasks_completed WHERE expires_at IS NULL"),
                 kept);
        // --older-than 0: every completed row left, expiry or not.
        const std::size_t left = count("SELECT count(*) FROM backlite_tasks_completed");
        QCOMPARE(op.planPrune(true, std::chrono::seconds(0), later).targets.size(), left);
    }

    void capabilities() {
        checkNamedAndOffersRowActions("backlite");
        const QueueFormat& f = *lq::core::QueueFormat::byId("backlite");
        const FormatInfo info = infoOf("backlite");
        QVERIFY(!f.whyNot(Action::Retry, info).empty());
        QVERIFY(!f.whyNot(Action::MarkFailed, info).empty());
    }
};

QTEST_GUILESS_MAIN(TstBacklite)
#include "tst_backlite.moc"
