// SPDX-License-Identifier: MIT
// The Queues tab (issue 39 item 6) on the Solid Queue and Laravel fixtures:
// one row per named queue with the counts core reads for it (checked against
// SQL on the file), the paused queue marked, throughput and wait as
// core::queueOverview computes them; a double-click shows that queue's
// messages. And the message table's Error column (item 5): the class
// `lqctl errors` and the Failures tab group by.

#include "core/errors.h"
#include "core/queue.h"
#include "core/queueoverview.h"
#include "core/statemodel.h"
#include "support/fixtures.h"
#include "support/lqctlrun.h"
#include "testhelpers.h"
#include "ui/mainwindow.h"
#include "ui/messagemodel.h"
#include "ui/messagespage.h"
#include "ui/queuesview.h"
#include "ui/uitext.h"
#include "windowharness.h"

#include <QAction>
#include <QComboBox>
#include <QLabel>
#include <QLocale>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableWidget>
#include <QTest>

#include <map>

using lq::core::Queue;
using lq::ui::QueuesView;
using namespace lq::test;

class TestQueuesView : public QObject {
    Q_OBJECT

    QTemporaryDir m_tmp;

    [[nodiscard]] static bool showAndWait(WindowHarness& h, int results = 1) {
        QueuesView* v = h.w.queuesView();
        h.w.action(QStringLiteral("showQueues"))->trigger();
        return h.w.tabs()->currentWidget() == v &&
               waitFor([&] { return v->resultCount() >= results && v->isIdle(); },
                       WindowHarness::kWaitMs);
    }

    static QString cell(QueuesView* v, const QString& queue, const QString& key) {
        const int row = v->rowOf(queue), col = v->columnOf(key);
        const QTableWidgetItem* item = row >= 0 && col >= 0 ? v->table()->item(row, col) : nullptr;
        return item ? item->text() : QStringLiteral("<none>");
    }

    /// Every row shows what core computes for it, state by state.
    static void sameAsCore(QueuesView* v, const QString& path, const lq::core::DashboardQuery& q) {
        auto queue = Queue::open(path.toStdString());
        const lq::core::QueueOverview o = lq::core::queueOverview(*queue, q);
        const auto& format = lq::core::QueueFormat::of(queue->info());
        QCOMPARE(v->table()->rowCount(), int(o.rows.size()));
        for (const auto& r : o.rows) {
            const QString name = QString::fromStdString(r.queue);
            QVERIFY(v->rowOf(name) >= 0);
            // The counts are those of the queue's own count (lqctl stats --queue).
            const lq::core::StateModel m = lq::core::stateModel(
                format, queue->counts(r.queue, lq::core::kDefaultStuckAfterNs));
            for (const auto& e : m.partition)
                QCOMPARE(cell(v, name, QString::fromStdString(e.state.name)),
                         QLocale().toString(qlonglong(e.count)));
            QCOMPARE(cell(v, name, QStringLiteral("paused")),
                     r.paused ? QStringLiteral("paused") : QString());
            QCOMPARE(cell(v, name, QStringLiteral("wait_p50")),
                     r.waitP50 ? lq::ui::humanDuration(*r.waitP50) : QStringLiteral("\u2013"));
            QCOMPARE(cell(v, name, QStringLiteral("wait_p99")),
                     r.waitP99 ? lq::ui::humanDuration(*r.waitP99) : QStringLiteral("\u2013"));
        }
    }

private slots:
    void initTestCase() {
        QVERIFY(m_tmp.isValid());
        QStandardPaths::setTestModeEnabled(true);
        qputenv("LQ_AUDIT_DIR", m_tmp.filePath(QStringLiteral("audit")).toUtf8());
    }

    void solidQueueRows() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, QStringLiteral("formats/solid-queue.sqlite3"));
        WindowHarness h;
        QVERIFY(h.openAndWait(path));
        QVERIFY(showAndWait(h));
        QueuesView* v = h.w.queuesView();
        QCOMPARE(qint64(v->table()->rowCount()),
                 sqlInt(path, "SELECT count(DISTINCT queue_name) FROM solid_queue_jobs"));
        sameAsCore(v, path, {});
        // Exact numbers from the file itself.
        for (const char* q : {"default", "mailers", "reports"}) {
            const QByteArray where = QByteArray("j.queue_name = '") + q + "'";
            QCOMPARE(cell(v, QString::fromLatin1(q), QStringLiteral("failed")),
                     QLocale().toString(
                         sqlInt(path, "SELECT count(*) FROM solid_queue_failed_executions f JOIN "
                                      "solid_queue_jobs j ON j.id = f.job_id WHERE " +
                                          where)));
            QCOMPARE(cell(v, QString::fromLatin1(q), QStringLiteral("blocked")),
                     QLocale().toString(
                         sqlInt(path, "SELECT count(*) FROM solid_queue_blocked_executions b "
                                      "JOIN solid_queue_jobs j ON j.id = b.job_id WHERE " +
                                          where)));
        }
        QCOMPARE(cell(v, QStringLiteral("reports"), QStringLiteral("paused")),
                 QStringLiteral("paused"));
        QVERIFY2(v->statusLabel()->text().startsWith(QStringLiteral("4 queue(s), 1 paused.")),
                 qPrintable(v->statusLabel()->text()));

        // Another range: read again, the same as core over that range.
        const int before = v->resultCount();
        v->setRange(QueuesView::Range::LastWeek);
        QVERIFY(waitFor([&] { return v->resultCount() > before && v->isIdle(); },
                        WindowHarness::kWaitMs));
        lq::core::DashboardQuery week;
        week.from = v->overview().now - 7 * 24 * 3600 * lq::core::kNsPerSecond;
        sameAsCore(v, path, week);

        // Sortable: by the Ready column, largest first.
        v->table()->sortItems(v->columnOf(QStringLiteral("ready")), Qt::DescendingOrder);
        QCOMPARE(v->table()->item(0, 0)->text(), QStringLiteral("mailers"));

        // A double-click shows that queue's messages.
        const int row = v->rowOf(QStringLiteral("mailers"));
        emit v->table()->cellDoubleClicked(row, 0);
        QCOMPARE(h.w.tabs()->currentWidget(), static_cast<QWidget*>(h.w.messagesPage()));
        QCOMPARE(h.w.messagesPage()->queueFilter(), QStringLiteral("mailers"));
        QVERIFY(waitFor([&] { return h.model()->filter().queue == "mailers"; },
                        WindowHarness::kWaitMs));
    }

    void laravelSaysWhyNoThroughput() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, QStringLiteral("formats/laravel-database.sqlite3"));
        WindowHarness h;
        QVERIFY(h.openAndWait(path));
        QVERIFY(showAndWait(h));
        QueuesView* v = h.w.queuesView();
        sameAsCore(v, path, {});
        QCOMPARE(cell(v, QStringLiteral("emails"), QStringLiteral("failed")),
                 QLocale().toString(
                     sqlInt(path, "SELECT count(*) FROM failed_jobs WHERE queue = 'emails'")));
        QCOMPARE(cell(v, QStringLiteral("emails"), QStringLiteral("done_per_hour")),
                 QStringLiteral("\u2013"));
        QVERIFY2(v->statusLabel()->text().contains(QStringLiteral("Throughput: ")),
                 qPrintable(v->statusLabel()->text()));
    }

    /// The message table's Error column: the class of each failed job's
    /// error, the same words and counts as core's error groups.
    void errorColumnMatchesGroups() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, QStringLiteral("formats/solid-queue.sqlite3"));
        WindowHarness h;
        QVERIFY(h.openAndWait(path));
        auto* model = h.model();
        QVERIFY(model->hasColumn(lq::ui::MessageModel::Error));
        std::map<QString, qint64> shown;
        for (int r = 0; r < model->rowCount(); ++r) {
            const QString e =
                model->index(r, lq::ui::MessageModel::Error).data(Qt::DisplayRole).toString();
            if (!e.isEmpty())
                ++shown[e];
        }
        auto queue = Queue::open(path.toStdString());
        std::map<QString, qint64> groups;
        for (const auto& g : lq::core::groupFailures(*queue))
            groups[QString::fromStdString(g.error)] = g.count;
        QVERIFY(!groups.empty());
        QCOMPARE(shown, groups);
    }
};

QTEST_MAIN(TestQueuesView)
#include "tst_queuesview.moc"
