// SPDX-License-Identifier: MIT
// The optional message fields each format declares (QueueFormat::fields())
// against what its fixture's rows really carry: every field a row has is
// declared, every declared field is on at least one row of the fixture, and
// each declared field has a label. The GUI builds its columns and detail
// rows from this list, so a wrong declaration is a missing or empty column.
#include "formatfacts.h"

#include <QObject>
#include <QTemporaryDir>

#include <set>

using namespace lqtest;
using namespace lq::core;

namespace {

using Field = QueueFormat::Field;

std::vector<Field> allFields() {
    std::vector<Field> out;
    out.reserve(QueueFormat::kFieldCount);
    for (int i = 0; i < QueueFormat::kFieldCount; ++i)
        out.push_back(Field(i));
    return out;
}

/// A copy of format fixture `name` in `dir`, open at the facts' "now".
std::unique_ptr<Queue> openFormatFixture(const QTemporaryDir& dir, const QString& name) {
    return openAtFactsNow(copyFixture(dir, QStringLiteral("formats/") + name));
}

} // namespace

class TstFormatFields : public QObject {
    Q_OBJECT

private slots:
    void declaredFieldsMatchTheRows_data();
    void declaredFieldsMatchTheRows();
    void litequeueDeclaresNone();
    void keysAreDistinct();
    void metricsWithValuesAreStored_data() { declaredFieldsMatchTheRows_data(); }
    void metricsWithValuesAreStored();
};

void TstFormatFields::declaredFieldsMatchTheRows_data() {
    QTest::addColumn<QString>("fixture");
    for (const QString& fixture : lq::test::formatFixtures())
        QTest::newRow(qPrintable(fixture)) << fixture;
}

void TstFormatFields::declaredFieldsMatchTheRows() {
    QFETCH(QString, fixture);
    QTemporaryDir dir;
    auto q = openFormatFixture(dir, fixture);
    const QueueFormat& fmt = QueueFormat::of(q->info());
    const QJsonObject facts = factsOf(fixture);
    QCOMPARE(QString::fromLatin1(fmt.id()), facts.value(QStringLiteral("format")).toString());
    const auto declared = fmt.fields();
    QVERIFY(!declared.empty());
    std::set<Field> seen;
    for (const Message& m : q->list({}, {}, 0, -1)) {
        for (Field f : allFields()) {
            // plainjob's job type is its queue: the name is not shown twice.
            const bool sameAsQueue = f == Field::Job && m.jobName == m.queueName;
            if (QueueFormat::messageHas(m, f) && !(sameAsQueue && !fmt.hasField(Field::Job)))
                seen.insert(f);
        }
    }
    for (Field f : seen)
        QVERIFY2(fmt.hasField(f), QueueFormat::fieldKey(f));
    for (Field f : declared) {
        QVERIFY2(seen.count(f) == 1, QueueFormat::fieldKey(f));
        QVERIFY(!fmt.fieldLabel(f).empty());
        QVERIFY(!fmt.fieldDescription(f).empty());
    }
    // A named-queue format shows its queue; its queue names come from the rows.
    QCOMPARE(fmt.namedQueues(), fmt.hasField(Field::Queue));
}

void TstFormatFields::litequeueDeclaresNone() {
    QVERIFY(QueueFormat::byId("litequeue-0.14")->fields().empty());
    // jobs-lease declares its run_at, locked_until and attempts like every
    // other format (no jobs-lease members on Message): the seed's rows fill
    // exactly those.
    QTemporaryDir dir;
    auto q = Queue::open(copyFixture(dir, QStringLiteral("seed-jobs-leases.sqlite3")));
    const QueueFormat& fmt = QueueFormat::of(q->info());
    QCOMPARE(std::string(fmt.id()), std::string("jobs-lease"));
    std::set<Field> seen;
    for (const Message& m : q->list({}, {}, 0, -1))
        for (Field f : allFields())
            if (QueueFormat::messageHas(m, f))
                seen.insert(f);
    const auto declared = fmt.fields();
    QCOMPARE(seen, std::set<Field>(declared.begin(), declared.end()));
}

void TstFormatFields::keysAreDistinct() {
    std::set<std::string> keys;
    for (Field f : allFields()) {
        QVERIFY(keys.insert(QueueFormat::fieldKey(f)).second);
        QVERIFY(!QueueFormat::defaultFieldLabel(f).empty());
    }
}

// The table's latency columns and the dashboard's charts follow
// storesMetric(): a metric the fixture's rows give values for is one the
// format says it stores (backlite's caveat about its retention once made
// every chart of it say "not stored" over values it had).
void TstFormatFields::metricsWithValuesAreStored() {
    QFETCH(QString, fixture);
    QTemporaryDir dir;
    auto q = openFormatFixture(dir, fixture);
    const QueueFormat& fmt = QueueFormat::of(q->info());
    const QueueStats st = q->stats();
    const std::pair<Filter::Metric, const Summary*> metrics[] = {
        {Filter::Metric::Wait, &st.wait},
        {Filter::Metric::Processing, &st.processing},
        {Filter::Metric::Total, &st.total},
        {Filter::Metric::TimeToFailure, &st.timeToFailure}};
    int withValues = 0;
    for (const auto& [m, summary] : metrics) {
        if (summary->count > 0) {
            ++withValues;
            QVERIFY2(fmt.storesMetric(m, q->info()), fmt.whyNoMetric(m, q->info()).c_str());
        }
    }
    if (fmt.id() == std::string_view("backlite"))
        QCOMPARE(withValues, 4);
}

QTEST_GUILESS_MAIN(TstFormatFields)
#include "tst_formatfields.moc"
