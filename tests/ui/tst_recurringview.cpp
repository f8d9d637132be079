// SPDX-License-Identifier: MIT
// The Recurring tab (issue 39): the recurring tasks a Solid Queue file
// records, as core reads them; Run now (confirmed) enqueues the task's job
// and Edit › Undo deletes it again, back to the file's rows; a format that
// records no recurring tasks says so and offers no Run now.

#include "core/queue.h"
#include "testhelpers.h"
#include "ui/mainwindow.h"
#include "ui/recurringview.h"
#include "windowharness.h"

#include <QAction>
#include <QLabel>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableWidget>
#include <QTest>

#include <sqlite3.h>

using lq::core::Queue;
using lq::ui::RecurringView;
using namespace lq::test;

namespace {

/// Runs `sql` on `path` through SQLite itself; the first column of the
/// result's rows, joined by '|'.
QString sqlOn(const QString& path, const QString& sql) {
    sqlite3* db = nullptr;
    QStringList out;
    if (sqlite3_open_v2(path.toUtf8().constData(), &db, SQLITE_OPEN_READWRITE, nullptr) ==
        SQLITE_OK) {
        sqlite3_stmt* st = nullptr;
        if (sqlite3_prepare_v2(db, sql.toUtf8().constData(), -1, &st, nullptr) == SQLITE_OK) {
            while (sqlite3_step(st) == SQLITE_ROW)
                out << QString::fromUtf8(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
        }
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return out.join(u'|');
}

} // namespace

class TestRecurringView : public QObject {
    Q_OBJECT

    QTemporaryDir m_tmp;

    [[nodiscard]] static bool showAndWait(WindowHarness& h) {
        RecurringView* v = h.w.recurringView();
        h.w.action(QStringLiteral("showRecurring"))->trigger();
        return h.w.tabs()->currentWidget() == v &&
               waitFor([&] { return v->resultCount() > 0 && v->isIdle(); }, WindowHarness::kWaitMs);
    }

private slots:
    void initTestCase() {
        QVERIFY(m_tmp.isValid());
        QStandardPaths::setTestModeEnabled(true);
        qputenv("LQ_AUDIT_DIR", m_tmp.filePath(QStringLiteral("audit")).toUtf8());
    }

    void runNowAndUndo() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, QStringLiteral("formats/solid-queue.sqlite3"));
        const QString jobsBefore =
            sqlOn(path, QStringLiteral("SELECT group_concat(id) FROM solid_queue_jobs"));
        const QString runsBefore = sqlOn(
            path,
            QStringLiteral("SELECT group_concat(job_id) FROM solid_queue_recurring_executions"));

        WindowHarness h;
        QVERIFY(h.openAndWait(path));
        QVERIFY(showAndWait(h));
        RecurringView* v = h.w.recurringView();
        QCOMPARE(v->table()->rowCount(), 1);
        // The view shows what core reads.
        const auto core = Queue::open(path.toStdString())->recurringTasks();
        QCOMPARE(core.tasks.size(), std::size_t(1));
        const auto& t = core.tasks[0];
        QCOMPARE(v->table()->item(0, RecurringView::KeyColumn)->text(),
                 QString::fromStdString(t.key));
        QCOMPARE(v->table()->item(0, RecurringView::ScheduleColumn)->text(),
                 QStringLiteral("every hour at minute 12"));
        QCOMPARE(v->table()->item(0, RecurringView::JobColumn)->text(),
                 QStringLiteral("command: ") + QString::fromStdString(t.command));
        QCOMPARE(v->table()->item(0, RecurringView::MissedColumn)->text(),
                 QLocale().toString(qlonglong(t.missed)));
        QVERIFY(t.missed > 0); // the fixture's scheduler stopped a day ago
        QVERIFY(v->table()->item(0, RecurringView::MissedColumn)->font().bold());
        QVERIFY(v->statusLabel()->text().startsWith(QStringLiteral("1 recurring task(s)")));

        QCOMPARE(v->selectedTask()->key, t.key);
        QVERIFY(v->runNowAction()->isEnabled());
        QString question;
        h.w.setConfirmHandler([&](const QString& text, qint64) {
            question = text;
            return true;
        });
        QCOMPARE(h.runAndWait([&] { v->runNowAction()->trigger(); }), 1);
        QVERIFY2(question.startsWith(
                     QStringLiteral("Run recurring task clear_solid_queue_finished_jobs now?")),
                 qPrintable(question));
        const QString newJob = sqlOn(path, QStringLiteral("SELECT max(id) FROM solid_queue_jobs"));
        QCOMPARE(newJob, QStringLiteral("23"));
        QCOMPARE(sqlOn(path, QStringLiteral("SELECT class_name || '/' || queue_name FROM "
                                            "solid_queue_jobs WHERE id = 23")),
                 QStringLiteral("SolidQueue::RecurringJob/solid_queue_recurring"));
        QCOMPARE(sqlOn(path, QStringLiteral("SELECT job_id FROM solid_queue_ready_executions "
                                            "WHERE job_id = 23")),
                 QStringLiteral("23"));
        QCOMPARE(sqlOn(path, QStringLiteral("SELECT task_key FROM "
                                            "solid_queue_recurring_executions WHERE job_id = 23")),
                 QStringLiteral("clear_solid_queue_finished_jobs"));
        // The tab reads again: the last run is now, nothing missed since.
        QVERIFY(waitFor(
            [&] {
                return v->isIdle() && v->table()->rowCount() == 1 &&
                       v->table()->item(0, RecurringView::MissedColumn)->text() ==
                           QStringLiteral("0");
            },
            WindowHarness::kWaitMs));

        // Edit › Undo deletes the job, its execution and its run.
        QCOMPARE(h.runAndWait([&] { h.w.undoLastAction(); }), 1);
        QCOMPARE(sqlOn(path, QStringLiteral("SELECT group_concat(id) FROM solid_queue_jobs")),
                 jobsBefore);
        QCOMPARE(
            sqlOn(path, QStringLiteral(
                            "SELECT group_concat(job_id) FROM solid_queue_recurring_executions")),
            runsBefore);
    }

    void formatWithoutRecurringTasksSaysSo() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, QStringLiteral("litequeue-head-mixed.sqlite3"));
        WindowHarness h;
        QVERIFY(h.openAndWait(path));
        QVERIFY(showAndWait(h));
        RecurringView* v = h.w.recurringView();
        const QString line = v->statusLabel()->text();
        QVERIFY2(line.contains(QStringLiteral("record no recurring tasks")), qPrintable(line));
        QVERIFY(!v->table()->isVisibleTo(v));
        QVERIFY(!v->runNowAction()->isEnabled());
        QVERIFY(v->runNowAction()->toolTip().contains(QStringLiteral("record no recurring tasks")));
    }
};

QTEST_MAIN(TestRecurringView)
#include "tst_recurringview.moc"
