// SPDX-License-Identifier: MIT
// The Processes tab (issue 39): the processes a Solid Queue file records,
// alive or dead as core reads them; a dead worker's claims released from the
// view (confirmed) go back to ready and Undo restores the file; a dead
// dispatcher is a banner; a format that records no processes says so.

#include "core/queue.h"
#include "testhelpers.h"
#include "ui/bannerbar.h"
#include "ui/mainwindow.h"
#include "ui/processesview.h"
#include "windowharness.h"

#include <QAction>
#include <QDateTime>
#include <QLabel>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableWidget>
#include <QTest>

#include <sqlite3.h>

using lq::core::Queue;
using lq::ui::ProcessesView;
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

/// Gives the processes `ids` a heartbeat now (the fixture's are from its
/// own day): they are alive whenever the test runs.
void beatNow(const QString& path, const QString& ids) {
    const QString now =
        QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz000"));
    sqlOn(path, QStringLiteral("UPDATE solid_queue_processes SET last_heartbeat_at = '%1' "
                               "WHERE id IN (%2)")
                    .arg(now, ids));
}

} // namespace

class TestProcessesView : public QObject {
    Q_OBJECT

    QTemporaryDir m_tmp;

    [[nodiscard]] static bool showAndWait(WindowHarness& h) {
        ProcessesView* v = h.w.processesView();
        h.w.action(QStringLiteral("showProcesses"))->trigger();
        return h.w.tabs()->currentWidget() == v &&
               waitFor([&] { return v->resultCount() > 0 && v->isIdle(); }, WindowHarness::kWaitMs);
    }

    /// The table's row of process `id`.
    static int rowOf(ProcessesView* v, const QString& id) {
        for (int r = 0; r < v->table()->rowCount(); ++r)
            if (v->table()->item(r, ProcessesView::KindColumn)->data(Qt::UserRole).toString() == id)
                return r;
        return -1;
    }

private slots:
    void initTestCase() {
        QVERIFY(m_tmp.isValid());
        QStandardPaths::setTestModeEnabled(true);
        qputenv("LQ_AUDIT_DIR", m_tmp.filePath(QStringLiteral("audit")).toUtf8());
    }

    void deadWorkerReleasedAndUndone() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, QStringLiteral("formats/solid-queue.sqlite3"));
        // The supervisor, worker and dispatcher of app-1 are alive; the old
        // supervisor 4 and its worker 5 died (worker 5 still claims a job).
        beatNow(path, QStringLiteral("1, 2, 3"));
        const QString claimedBefore = sqlOn(
            path, QStringLiteral("SELECT job_id FROM solid_queue_claimed_executions ORDER BY 1"));
        const QString readyBefore = sqlOn(
            path, QStringLiteral("SELECT job_id FROM solid_queue_ready_executions ORDER BY 1"));
        const QString held = sqlOn(path, QStringLiteral("SELECT job_id FROM "
                                                        "solid_queue_claimed_executions WHERE "
                                                        "process_id = 5"));
        QVERIFY(!held.isEmpty() && !held.contains(u'|'));

        WindowHarness h;
        QVERIFY(h.openAndWait(path));
        QVERIFY(showAndWait(h));
        ProcessesView* v = h.w.processesView();
        QCOMPARE(v->table()->rowCount(), 5);
        // The view shows what core reads, process by process.
        const auto core = Queue::open(path.toStdString())->processes();
        for (const auto& p : core.processes) {
            const int r = rowOf(v, QString::fromStdString(p.id));
            QVERIFY(r >= 0);
            QCOMPARE(v->table()->item(r, ProcessesView::StateColumn)->text(),
                     p.alive ? QStringLiteral("alive") : QStringLiteral("DEAD"));
            QCOMPARE(v->table()->item(r, ProcessesView::ClaimedColumn)->text(),
                     QLocale().toString(qlonglong(p.claimed)));
        }
        QCOMPARE(
            v->table()->item(rowOf(v, QStringLiteral("5")), ProcessesView::StateColumn)->text(),
            QStringLiteral("DEAD"));
        QVERIFY2(v->statusLabel()->text().startsWith(QStringLiteral("5 process(es), 2 dead.")),
                 qPrintable(v->statusLabel()->text()));
        // No kind is without a live process: no warning, no banner.
        QVERIFY(!v->warningsLabel()->isVisibleTo(v));
        QVERIFY(!h.w.bannerBar()->hasBanner(QStringLiteral("processes")));

        // The dead worker holding a job is selected first; a live one cannot
        // be released.
        QCOMPARE(v->selectedProcess()->id, std::string("5"));
        QVERIFY(v->releaseAction()->isEnabled());
        QVERIFY(v->selectProcess(QStringLiteral("2")));
        QVERIFY(!v->releaseAction()->isEnabled());
        QVERIFY(v->releaseAction()->toolTip().contains(QStringLiteral("alive")));
        QVERIFY(v->selectProcess(QStringLiteral("5")));

        QString question;
        h.w.setConfirmHandler([&](const QString& text, qint64) {
            question = text;
            return true;
        });
        QCOMPARE(h.runAndWait([&] { v->releaseAction()->trigger(); }), 1);
        QVERIFY2(question.startsWith(QStringLiteral(
                     "Release the 1 job(s) held by dead process 5 (Worker, pid 3995")),
                 qPrintable(question));
        QVERIFY(!sqlOn(path, QStringLiteral("SELECT job_id FROM solid_queue_claimed_executions"))
                     .split(u'|')
                     .contains(held));
        QVERIFY(sqlOn(path, QStringLiteral("SELECT job_id FROM solid_queue_ready_executions"))
                    .split(u'|')
                    .contains(held));
        QVERIFY(waitFor(
            [&] {
                const int r = rowOf(v, QStringLiteral("5"));
                return r >= 0 && v->isIdle() &&
                       v->table()->item(r, ProcessesView::ClaimedColumn)->text() ==
                           QStringLiteral("0");
            },
            WindowHarness::kWaitMs));

        // Edit › Undo gives the claim back to the dead worker's row.
        QCOMPARE(h.runAndWait([&] { h.w.undoLastAction(); }), 1);
        QCOMPARE(sqlOn(path, QStringLiteral(
                                 "SELECT job_id FROM solid_queue_claimed_executions ORDER BY 1")),
                 claimedBefore);
        QCOMPARE(sqlOn(path, QStringLiteral(
                                 "SELECT job_id FROM solid_queue_ready_executions ORDER BY 1")),
                 readyBefore);
    }

    void deadDispatcherIsABanner() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, QStringLiteral("formats/solid-queue.sqlite3"));
        beatNow(path, QStringLiteral("1, 2")); // the dispatcher (3) stays silent
        WindowHarness h;
        QVERIFY(h.openAndWait(path));
        // The banner comes without opening the tab.
        QVERIFY(waitFor([&] { return h.w.bannerBar()->hasBanner(QStringLiteral("processes")); },
                        WindowHarness::kWaitMs));
        const QString text = h.w.bannerBar()->bannerText(QStringLiteral("processes"));
        QVERIFY2(text.contains(QStringLiteral(
                     "no live dispatcher: due scheduled jobs are not moved to ready")),
                 qPrintable(text));
        QVERIFY(showAndWait(h));
        QVERIFY(h.w.processesView()->warningsLabel()->text().contains(
            QStringLiteral("no live dispatcher")));
    }

    void formatWithoutProcessesSaysSo() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, QStringLiteral("litequeue-head-mixed.sqlite3"));
        WindowHarness h;
        QVERIFY(h.openAndWait(path));
        QVERIFY(showAndWait(h));
        ProcessesView* v = h.w.processesView();
        const QString line = v->statusLabel()->text();
        QVERIFY2(line.contains(QStringLiteral("record no")), qPrintable(line));
        QVERIFY(!v->table()->isVisibleTo(v));
        QVERIFY(!v->releaseAction()->isEnabled());
        QVERIFY(!h.w.bannerBar()->hasBanner(QStringLiteral("processes")));
    }
};

QTEST_MAIN(TestProcessesView)
#include "tst_processesview.moc"
