// SPDX-License-Identifier: MIT
// The message table on Oban Lite and River files: the facts' counts, the
// queue filter, each offered action and its undo seen by the model.
#include "core/queue.h"
#include "testhelpers.h"
#include "ui/messagemodel.h"

#include <QAbstractItemModelTester>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using lq::core::Action;
using lq::core::Filter;
using lq::core::Queue;
using lq::core::State;
using lq::ui::MessageModel;
using namespace lq::test;

namespace {

constexpr lq::core::TimeNs kNow = 1'796'040'000LL * lq::core::kNsPerSecond; // facts "now"

QJsonObject factsOf(const QString& file) {
    QFile f(dataDir() + QStringLiteral("/formats/facts.json"));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read formats/facts.json");
    return QJsonDocument::fromJson(f.readAll()).object().value(file).toObject();
}

} // namespace

class TestObanRiverGui : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QVERIFY(m_tmp.isValid());
        qputenv("LQ_AUDIT_DIR", m_tmp.filePath(QStringLiteral("audit")).toUtf8());
    }

    void tableFilterActionsUndo_data() {
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<QString>("queue");
        QTest::addColumn<QString>("failed");
        QTest::newRow("oban-lite") << QStringLiteral("oban-lite.sqlite3") << QStringLiteral("media")
                                   << QStringLiteral("9");
        QTest::newRow("river-sqlite") << QStringLiteral("river-v7.sqlite3")
                                      << QStringLiteral("billing") << QStringLiteral("9");
    }

    void tableFilterActionsUndo() {
        QFETCH(QString, fixture);
        QFETCH(QString, queue);
        QFETCH(QString, failed);
        const QJsonObject facts = factsOf(fixture);
        QTemporaryDir dir;
        const QString path = copyFixture(dir, QStringLiteral("formats/") + fixture);
        lq::core::OpenOptions o;
        o.clock = lq::core::fixedClock(kNow);
        std::shared_ptr<Queue> q = Queue::open(path.toStdString(), o);
        MessageModel model;
        QAbstractItemModelTester tester(&model);
        model.setQueue(q, path);
        const int stored =
            facts.value(QStringLiteral("stored")).toObject().value(QStringLiteral("jobs")).toInt();
        QTRY_COMPARE(model.rowCount(), stored);
        const QJsonObject counts = facts.value(QStringLiteral("counts")).toObject();
        QTRY_COMPARE(model.counts().failed, counts.value(QStringLiteral("FAILED")).toInteger());
        QCOMPARE(model.counts().locked, counts.value(QStringLiteral("LOCKED")).toInteger());
        QCOMPARE(model.counts().done, counts.value(QStringLiteral("DONE")).toInteger());

        // The queue filter: the facts' per_queue total.
        const QJsonObject perQueue =
            facts.value(QStringLiteral("per_queue")).toObject().value(queue).toObject();
        int total = 0;
        for (auto it = perQueue.begin(); it != perQueue.end(); ++it)
            total += it.value().toInt();
        Filter f;
        f.queue = queue.toStdString();
        model.setFilter(f);
        QTRY_COMPARE(model.rowCount(), total);
        f.states = {State::Failed};
        model.setFilter(f);
        QTRY_COMPARE(model.rowCount(), perQueue.value(QStringLiteral("FAILED")).toInt());
        QTRY_VERIFY(allLoaded(&model));
        QCOMPARE(idAt(&model, 0), failed);

        // Each offered row action on the failed job, then its undo: the
        // table follows the file.
        const auto m = q->get(failed.toStdString());
        QVERIFY(m);
        const auto r = q->apply(Action::Retry, {{m->messageId, m->token}});
        QCOMPARE(r.applied.size(), std::size_t(1));
        model.refreshNow();
        QTRY_COMPARE(model.rowCount(), 0);
        QCOMPARE(q->undo(Action::Retry, r.applied).applied.size(), std::size_t(1));
        model.refreshNow();
        QTRY_COMPARE(model.rowCount(), 1);
        const auto again = q->get(failed.toStdString());
        const auto d = q->apply(Action::Delete, {{again->messageId, again->token}});
        QCOMPARE(d.applied.size(), std::size_t(1));
        model.refreshNow();
        QTRY_COMPARE(model.rowCount(), 0);
        QCOMPARE(q->undo(Action::Delete, d.applied).applied.size(), std::size_t(1));
        model.refreshNow();
        QTRY_COMPARE(model.rowCount(), 1);
    }

private:
    QTemporaryDir m_tmp;
};

QTEST_MAIN(TestObanRiverGui)
#include "tst_obanrivergui.moc"
