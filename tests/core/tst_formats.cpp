// SPDX-License-Identifier: MIT
// The format seam (core/formats/): what each format offers, as the front
// ends ask it. Every action is either offered or refused with a reason.
#include "core/formats/queueformat.h"
#include "formatfacts.h"
#include "support/fixtures.h"
#include "testutil.h"

#include <QObject>
#include <QTest>

#include <algorithm>

using namespace lqtest;
using lq::core::Action;
using lq::core::FormatInfo;
using lq::core::QueueFormat;
using lq::core::State;

namespace {

const Action kAll[] = {Action::Retry,  Action::MarkFailed, Action::Release,      Action::Reschedule,
                       Action::Delete, Action::Prune,      Action::RetryExpired, Action::Enqueue,
                       Action::Vacuum, Action::Upgrade};

FormatInfo keyedInfoOf(const char* id) {
    FormatInfo i;
    i.format = QueueFormat::byId(id);
    i.hasClaimId = std::string(id) == "litequeue-0.14" || std::string(id) == "litequeue-0.13";
    i.hasIdempotencyKey = i.hasClaimId;
    return i;
}

} // namespace

class TstFormats : public QObject {
    Q_OBJECT

private slots:
    void everyFormatById();
    void everyActionRuledOnce();
    void offeredActions_data();
    void offeredActions();
    void litequeueHasHistoryLeasesHaveSchedule();
    void upgradeOnlyFromOlderVersions();
    void ownStatesFilterAsCounted_data();
    void ownStatesFilterAsCounted();
};

void TstFormats::everyFormatById() {
    for (const char* f : {"litequeue-0.14", "litequeue-0.13", "litequeue-legacy", "litequeue-multi",
                          "litequeue-unknown", "jobs-lease"}) {
        QVERIFY2(QueueFormat::byId(f), f);
        const QueueFormat& q = *QueueFormat::byId(f);
        QCOMPARE(std::string(q.id()), std::string(f));
        QCOMPARE(&QueueFormat::of(keyedInfoOf(f)), &q);
        QCOMPARE(QueueFormat::byId(q.id()), &q);
        QVERIFY(!q.states().empty());
        // Every action is offered or refused with words an operator can read.
        for (Action a : kAll) {
            const std::string why = q.whyNot(a, keyedInfoOf(f));
            QVERIFY2(why.empty() || why.size() > 10, why.c_str());
        }
        // What "retry" means is one of the format's own row actions.
        const auto rows = q.rowActions();
        QVERIFY(std::find(rows.begin(), rows.end(), q.retryAction()) != rows.end());
        for (Action a : rows)
            QVERIFY2(q.offers(a, keyedInfoOf(f)), lq::core::actionName(a));
    }
    QCOMPARE(QueueFormat::byId("no-such-format"), nullptr);
}

/// What the compiler's switch used to check: every format's actionRules()
/// describes each Action once, except Pause, Resume and RunRecurring, which
/// come from whyNoPause() and whyNoRunRecurring().
void TstFormats::everyActionRuledOnce() {
    const auto formats = QueueFormat::all();
    QVERIFY(formats.size() >= 19);
    for (const QueueFormat* q : formats) {
        FormatInfo info;
        info.format = q;
        const auto rules = q->actionRules(info);
        for (int i = int(Action::Retry); i <= int(Action::RunRecurring); ++i) {
            const auto a = static_cast<Action>(i);
            const auto n = std::count_if(rules.begin(), rules.end(),
                                         [a](const auto& r) { return r.action == a; });
            const bool own = a == Action::Pause || a == Action::Resume || a == Action::RunRecurring;
            const QByteArray what = QByteArray(q->id()) + ' ' + lq::core::actionName(a);
            QVERIFY2(n == (own ? 0 : 1), what.constData());
        }
        QCOMPARE(q->whyNot(Action::Resume, info), q->whyNoPause(info));
        QCOMPARE(q->whyNot(Action::RunRecurring, info), q->whyNoRunRecurring(info));
    }
}

void TstFormats::offeredActions_data() {
    QTest::addColumn<QString>("format");
    QTest::addColumn<QString>("offered");
    QTest::newRow("litequeue-0.14")
        << QStringLiteral("litequeue-0.14")
        << QStringLiteral("enqueue mark-failed prune retry retry-expired vacuum");
    QTest::newRow("litequeue-legacy")
        << QStringLiteral("litequeue-legacy")
        << QStringLiteral("enqueue mark-failed prune retry retry-expired upgrade vacuum");
    QTest::newRow("jobs-lease") << QStringLiteral("jobs-lease")
                                << QStringLiteral("delete release reschedule vacuum");
}

void TstFormats::offeredActions() {
    QFETCH(QString, format);
    QFETCH(QString, offered);
    const QByteArray id = format.toLatin1();
    const char* f = id.constData();
    QVERIFY(QueueFormat::byId(f));
    const QueueFormat& q = *QueueFormat::byId(f);
    QStringList got;
    for (Action a : kAll)
        if (q.offers(a, keyedInfoOf(f)))
            got << QString::fromLatin1(lq::core::actionName(a));
    got.sort();
    QCOMPARE(got.join(u' '), offered);
}

void TstFormats::litequeueHasHistoryLeasesHaveSchedule() {
    const QueueFormat& lq = *QueueFormat::byId("litequeue-0.14");
    const QueueFormat& jobs = *QueueFormat::byId("jobs-lease");
    using Field = QueueFormat::Field;
    QVERIFY(lq.keepsHistory() && !lq.hasField(Field::ScheduledAt) &&
            lq.hasKeys(keyedInfoOf("litequeue-0.14")));
    // jobs-lease declares its run_at, locked_until and attempts like every
    // other format, and has none of litequeue's enqueue/claim/finish times.
    QVERIFY(!jobs.keepsHistory() && jobs.hasField(Field::ScheduledAt) &&
            jobs.hasField(Field::LeaseExpiry) && jobs.hasField(Field::Attempts) &&
            !jobs.hasKeys(keyedInfoOf("jobs-lease")));
    QCOMPARE(jobs.fieldLabel(Field::ScheduledAt), std::string("Run at"));
    QVERIFY(!jobs.storesTime(QueueFormat::BaseTime::Enqueued));
    QVERIFY(lq.storesTime(QueueFormat::BaseTime::Enqueued));
    QCOMPARE(jobs.retryAction(), Action::Release);
    QCOMPARE(lq.retryAction(), Action::Retry);
    QCOMPARE(lq.tokenLabel(keyedInfoOf("litequeue-0.14")), std::string("claim"));
    QCOMPARE(QueueFormat::byId("litequeue-legacy")->tokenLabel(keyedInfoOf("litequeue-legacy")),
             std::string("lock_time token"));
    QCOMPARE(jobs.tokenLabel(keyedInfoOf("jobs-lease")), std::string("attempts"));
    const auto states = jobs.states();
    QVERIFY(std::find(states.begin(), states.end(), State::Leased) != states.end());
    QVERIFY(std::find(states.begin(), states.end(), State::Done) == states.end());
    QVERIFY(QueueFormat::byId("litequeue-multi")->multiTable());
    QVERIFY(!lq.multiTable());
}

void TstFormats::upgradeOnlyFromOlderVersions() {
    using U = QueueFormat::UpgradeState;
    QCOMPARE(QueueFormat::byId("litequeue-legacy")->upgradeState(), U::Offered);
    QCOMPARE(QueueFormat::byId("litequeue-0.13")->upgradeState(), U::Offered);
    QCOMPARE(QueueFormat::byId("litequeue-0.14")->upgradeState(), U::Current);
    QCOMPARE(QueueFormat::byId("jobs-lease")->upgradeState(), U::NotApplicable);
    QCOMPARE(QueueFormat::byId("litequeue-multi")->upgradeState(), U::NotApplicable);
    QVERIFY(contains(QueueFormat::byId("litequeue-legacy")->notice({}), "Upgrading"));
    QVERIFY(QueueFormat::byId("litequeue-0.14")->notice({}).empty());
}

void TstFormats::ownStatesFilterAsCounted_data() {
    QTest::addColumn<QString>("fixture");
    for (const QString& fixture : lq::test::formatFixtures())
        QTest::newRow(qPrintable(fixture)) << fixture;
}

/// Filter::extraStates lists exactly the jobs Counts::extra counts in each
/// of the format's own states (the GUI's chips and lqctl list --status).
void TstFormats::ownStatesFilterAsCounted() {
    QFETCH(QString, fixture);
    const QJsonObject facts = factsOf(fixture);
    const QJsonObject extra = facts.value(QStringLiteral("extra")).toObject();
    QTemporaryDir dir;
    const QString path = lq::test::copyFixture(dir, QStringLiteral("formats/") + fixture);
    auto q = openAtFactsNow(toStd(path));
    const auto counts = q->counts();
    for (const auto& x : QueueFormat::of(q->info()).extraStates()) {
        lq::core::Filter f;
        f.extraStates = {x.name};
        const auto listed = q->list(f, {}, 0, -1);
        QCOMPARE(q->count(f), counts.extra.at(x.name));
        QCOMPARE(std::int64_t(listed.size()), counts.extra.at(x.name));
        QCOMPARE(std::int64_t(listed.size()), extra.value(fromStd(x.name)).toInteger());
        for (const auto& m : listed) {
            if (x.within.empty())
                QCOMPARE(m.extraState, x.name);
            else
                QVERIFY2(std::find(x.within.begin(), x.within.end(), m.state) != x.within.end(),
                         m.messageId.c_str());
        }
    }
    lq::core::Filter none;
    none.extraStates = {"no_such_state"};
    QCOMPARE(q->count(none), std::int64_t(0));
}

QTEST_GUILESS_MAIN(TstFormats)
#include "tst_formats.moc"
