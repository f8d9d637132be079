// SPDX-License-Identifier: MIT
// The Failures tab (issue 39): failed jobs grouped by error as core groups
// them, a group retried from the view (confirmed with the exact preview)
// moves exactly its jobs, Undo restores the file, and a format that stores
// no error text says so in one line.

#include "core/errors.h"
#include "core/queue.h"
#include "testhelpers.h"
#include "ui/failuresview.h"
#include "ui/mainwindow.h"
#include "ui/messagespage.h"
#include "windowharness.h"

#include <QAction>
#include <QLabel>
#include <QPlainTextEdit>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableWidget>
#include <QTest>

#include <sqlite3.h>

using lq::core::ErrorGroup;
using lq::core::Queue;
using lq::ui::FailuresView;
using namespace lq::test;

namespace {

/// core's groups of the file as it is now.
std::vector<ErrorGroup> coreGroups(const QString& path) {
    auto q = Queue::open(path.toStdString());
    return lq::core::groupFailures(*q);
}

/// A group in one comparable line: class, count, ids, queues, sample.
QStringList described(const std::vector<ErrorGroup>& groups) {
    QStringList out;
    for (const ErrorGroup& g : groups) {
        QStringList ids;
        for (const auto& id : g.messageIds)
            ids << QString::fromStdString(id);
        QStringList queues;
        for (const auto& q : g.queues)
            queues << QString::fromStdString(q);
        out << QStringLiteral("%1 | %2 | %3 | %4 | %5 | %6 | %7")
                   .arg(QString::fromStdString(g.error))
                   .arg(g.count)
                   .arg(ids.join(u','), queues.join(u','))
                   .arg(g.firstFailedAt.value_or(-1))
                   .arg(g.lastFailedAt.value_or(-1))
                   .arg(qHash(QString::fromStdString(g.sample)));
    }
    return out;
}

/// Every row of `table` in `path`, through SQLite itself (not lqcore).
QStringList rowsOf(const QString& path, const char* table) {
    QStringList out;
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(path.toUtf8().constData(), &db, SQLITE_OPEN_READONLY, nullptr) !=
        SQLITE_OK) {
        sqlite3_close(db);
        return {QStringLiteral("cannot open")};
    }
    sqlite3_stmt* st = nullptr;
    const QByteArray sql = QByteArray("SELECT * FROM ") + table + " ORDER BY 1";
    if (sqlite3_prepare_v2(db, sql.constData(), -1, &st, nullptr) == SQLITE_OK) {
        while (sqlite3_step(st) == SQLITE_ROW) {
            QStringList cols;
            for (int i = 0; i < sqlite3_column_count(st); ++i)
                cols << QString::fromUtf8(
                    reinterpret_cast<const char*>(sqlite3_column_text(st, i)));
            out << cols.join(u'|');
        }
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return out;
}

} // namespace

class TestFailuresView : public QObject {
    Q_OBJECT

    QTemporaryDir m_tmp;

    /// Opens the Failures tab (its shortcut's action) and waits for its
    /// first result.
    [[nodiscard]] static bool showAndWait(WindowHarness& h) {
        FailuresView* v = h.w.failuresView();
        constexpr int after = 0;
        h.w.action(QStringLiteral("showFailures"))->trigger();
        return h.w.tabs()->currentWidget() == v &&
               waitFor([&] { return v->resultCount() > after && v->isIdle(); },
                       WindowHarness::kWaitMs);
    }

    /// The view shows exactly core's groups, row by row.
    static void compareWithCore(FailuresView* v, const QString& path) {
        const std::vector<ErrorGroup> expected = coreGroups(path);
        QCOMPARE(described(v->groups()), described(expected));
        QCOMPARE(v->table()->rowCount(), int(expected.size()));
        for (int row = 0; row < int(expected.size()); ++row) {
            const ErrorGroup& g = expected[std::size_t(row)];
            QCOMPARE(v->table()->item(row, FailuresView::CountColumn)->text(),
                     QLocale().toString(qlonglong(g.count)));
            QCOMPARE(v->table()->item(row, FailuresView::ErrorColumn)->text(),
                     g.error.empty() ? QStringLiteral("(no error stored)")
                                     : QString::fromStdString(g.error));
        }
    }

private slots:
    void initTestCase() {
        QVERIFY(m_tmp.isValid());
        QStandardPaths::setTestModeEnabled(true);
        qputenv("LQ_AUDIT_DIR", m_tmp.filePath(QStringLiteral("audit")).toUtf8());
    }

    void laravelGroupRetriedAndUndone() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, QStringLiteral("formats/laravel-database.sqlite3"));
        const QStringList jobsBefore = rowsOf(path, "jobs");
        const QStringList failedBefore = rowsOf(path, "failed_jobs");
        QCOMPARE(failedBefore.size(), 2);
        WindowHarness h;
        QVERIFY(h.openAndWait(path));
        QVERIFY(showAndWait(h));
        FailuresView* v = h.w.failuresView();
        compareWithCore(v, path);

        // The fixture's one group: RuntimeException, 2 jobs, emails and podcasts.
        QCOMPARE(v->groups().size(), std::size_t(1));
        QCOMPARE(v->table()->item(0, FailuresView::ErrorColumn)->text(),
                 QStringLiteral("RuntimeException"));
        QCOMPARE(v->table()->item(0, FailuresView::QueuesColumn)->text(),
                 QStringLiteral("emails, podcasts"));
        QVERIFY(!v->table()->item(0, FailuresView::LastColumn)->text().isEmpty());
        QVERIFY(v->selectedGroup().has_value());
        QVERIFY(v->sampleEdit()->isReadOnly());
        QVERIFY(v->sampleEdit()->toPlainText().startsWith(
            QStringLiteral("RuntimeException: SMTP 554: mailbox for user 3 rejected")));
        QCOMPARE(v->idsEdit()->toPlainText(), QStringLiteral("failed_jobs:2\nfailed_jobs:1"));
        QVERIFY(v->retryGroupAction()->isEnabled());
        QVERIFY(v->deleteGroupAction()->isEnabled());

        // Retry group: the exact preview, then exactly the group's jobs move.
        QString question;
        qint64 asked = 0;
        h.w.setConfirmHandler([&](const QString& text, qint64 n) {
            question = text;
            asked = n;
            return true;
        });
        const int before = v->resultCount();
        QCOMPARE(h.runAndWait([&] { v->retryGroupAction()->trigger(); }), 2);
        QVERIFY2(question.startsWith(QStringLiteral(
                     "Retry 2 failed job(s) with error RuntimeException (queues: emails, "
                     "podcasts)?")),
                 qPrintable(question));
        QCOMPARE(asked, 2);
        QCOMPARE(rowsOf(path, "failed_jobs").size(), 0);
        QCOMPARE(rowsOf(path, "jobs").size(), jobsBefore.size() + 2);
        QVERIFY(coreGroups(path).empty());
        // The view read the file again after the report.
        QVERIFY(waitFor([&] { return v->resultCount() > before && v->isIdle(); },
                        WindowHarness::kWaitMs));
        QCOMPARE(v->table()->rowCount(), 0);
        QCOMPARE(v->statusLabel()->text(), QStringLiteral("No failed jobs"));

        // Edit › Undo reverts it to the same rows.
        QCOMPARE(h.runAndWait([&] { h.w.undoLastAction(); }), 2);
        QCOMPARE(rowsOf(path, "failed_jobs"), failedBefore);
        QCOMPARE(rowsOf(path, "jobs"), jobsBefore);
        QVERIFY(waitFor([&] { return v->groups().size() == 1 && v->isIdle(); },
                        WindowHarness::kWaitMs));
        compareWithCore(v, path);
    }

    void solidQueueGroupsAndRetry() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, QStringLiteral("formats/solid-queue.sqlite3"));
        const QStringList failedBefore = rowsOf(path, "solid_queue_failed_executions");
        const QStringList readyBefore = rowsOf(path, "solid_queue_ready_executions");
        WindowHarness h;
        QVERIFY(h.openAndWait(path));
        QVERIFY(showAndWait(h));
        FailuresView* v = h.w.failuresView();
        compareWithCore(v, path);
        QVERIFY(v->groups().size() >= 2);
        // A JSON error is shown readable, as plain text.
        QVERIFY(v->selectGroup(QStringLiteral("Errno::ENOSPC")));
        QVERIFY(v->sampleEdit()->toPlainText().contains(QStringLiteral("No space left on device")));
        QCOMPARE(v->idsEdit()->toPlainText(), QStringLiteral("8"));

        // Retry only that group: the other failures stay.
        const std::vector<ErrorGroup> groups = coreGroups(path);
        QCOMPARE(h.runAndWait([&] { v->retryGroupAction()->trigger(); }), 1);
        const std::vector<ErrorGroup> after = coreGroups(path);
        QCOMPARE(after.size(), groups.size() - 1);
        QVERIFY(!lq::core::findGroup(after, "Errno::ENOSPC"));
        QCOMPARE(rowsOf(path, "solid_queue_failed_executions").size(), failedBefore.size() - 1);
        QCOMPARE(rowsOf(path, "solid_queue_ready_executions").size(), readyBefore.size() + 1);

        QCOMPARE(h.runAndWait([&] { h.w.undoLastAction(); }), 1);
        QCOMPARE(rowsOf(path, "solid_queue_failed_executions"), failedBefore);
        QCOMPARE(rowsOf(path, "solid_queue_ready_executions"), readyBefore);
        QCOMPARE(described(coreGroups(path)), described(groups));
        QVERIFY(waitFor([&] { return v->groups().size() == groups.size() && v->isIdle(); },
                        WindowHarness::kWaitMs));
        compareWithCore(v, path);

        // Scoped to the named queue the table shows (as a sidebar pick does).
        h.w.messagesPage()->setQueueFilter(QStringLiteral("reports"));
        QVERIFY(waitFor([&] { return v->queue() == QStringLiteral("reports") && v->isIdle(); },
                        WindowHarness::kWaitMs));
        auto q = Queue::open(path.toStdString());
        QCOMPARE(described(v->groups()), described(lq::core::groupFailures(*q, "reports")));
        QCOMPARE(v->groups().size(), std::size_t(1));
        QVERIFY(v->statusLabel()->text().startsWith(
            QStringLiteral("1 failed job(s) in queue reports")));

        // Show jobs: the Messages tab on the failed jobs, the group's job selected.
        QVERIFY(v->selectGroup(QStringLiteral("Errno::ENOSPC")));
        v->showJobsAction()->trigger();
        QCOMPARE(h.w.tabs()->currentWidget(), h.w.messagesPage());
        QVERIFY(waitFor(
            [&] {
                return h.w.messagesPage()->selectedMessageIds() == QStringList{QStringLiteral("8")};
            },
            WindowHarness::kWaitMs));
    }

    void formatWithoutErrorTextSaysSo() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, QStringLiteral("litequeue-head-mixed.sqlite3"));
        WindowHarness h;
        QVERIFY(h.openAndWait(path));
        QVERIFY(showAndWait(h));
        FailuresView* v = h.w.failuresView();
        const QString line = v->statusLabel()->text();
        QVERIFY2(line.contains(QStringLiteral("stores no error text")), qPrintable(line));
        QVERIFY(!line.contains(u'\n'));
        QVERIFY(!v->table()->isVisible());
        QVERIFY(!v->retryGroupAction()->isEnabled());
    }
};

QTEST_MAIN(TestFailuresView)
#include "tst_failuresview.moc"
