// SPDX-License-Identifier: MIT
// Pausing a named queue from the window (issue 39): the sidebar row, the
// chip bar and the banner say "paused since …: workers skip it"; Pause and
// Resume write the library's own row with no question asked, and Undo
// (Ctrl+Z) puts the file back; a format that stores no pause keeps the
// actions off with the reason.

#include "testhelpers.h"
#include "ui/bannerbar.h"
#include "ui/fleetmodel.h"
#include "ui/mainwindow.h"
#include "ui/messagespage.h"
#include "ui/queueactionhandler.h"
#include "ui/statusfilterbar.h"
#include "windowharness.h"

#include <QAction>
#include <QLabel>
#include <QStandardPaths>
#include <QTest>

#include <sqlite3.h>

using lq::ui::FleetModel;
using namespace lq::test;

namespace {

/// The rows of solid_queue_pauses, through SQLite itself (not lqcore).
QStringList pausesOf(const QString& path) {
    QStringList out;
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(path.toUtf8().constData(), &db, SQLITE_OPEN_READONLY, nullptr) !=
        SQLITE_OK) {
        sqlite3_close(db);
        return {QStringLiteral("cannot open")};
    }
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db,
                           "SELECT id, queue_name, created_at FROM solid_queue_pauses ORDER BY id",
                           -1, &st, nullptr) == SQLITE_OK) {
        while (sqlite3_step(st) == SQLITE_ROW) {
            QStringList cols;
            for (int i = 0; i < 3; ++i)
                cols << QString::fromUtf8(
                    reinterpret_cast<const char*>(sqlite3_column_text(st, i)));
            out << cols.join(u'|');
        }
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return out;
}

/// The second line of the sidebar row of named queue `queue`.
QString sidebarLine(lq::ui::MainWindow& w, const QString& queue) {
    FleetModel* m = w.fleetModel();
    const int row = m->rowOf(w.currentPath(), w.currentTable(), queue);
    return row < 0 ? QString() : m->index(row).data(FleetModel::SummaryRole).toString();
}

bool sidebarPaused(lq::ui::MainWindow& w, const QString& queue) {
    FleetModel* m = w.fleetModel();
    const int row = m->rowOf(w.currentPath(), w.currentTable(), queue);
    return row >= 0 && m->index(row).data(FleetModel::PausedRole).toBool();
}

QString chipNote(lq::ui::MainWindow& w) {
    auto* note = w.filterBar()->findChild<QLabel*>(QStringLiteral("pausedNote"));
    return note && note->isVisibleTo(w.filterBar()) ? note->text() : QString();
}

} // namespace

class TestPauseQueue : public QObject {
    Q_OBJECT

    QTemporaryDir m_tmp;

private slots:
    void initTestCase() {
        QVERIFY(m_tmp.isValid());
        QStandardPaths::setTestModeEnabled(true);
        qputenv("LQ_AUDIT_DIR", m_tmp.filePath(QStringLiteral("audit")).toUtf8());
    }

    void solidQueuePauseResumeUndo() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, QStringLiteral("formats/solid-queue.sqlite3"));
        const QStringList before = pausesOf(path);
        QCOMPARE(before, QStringList{QStringLiteral("1|reports|2026-11-30 11:59:00.012171")});
        WindowHarness h;
        int asked = 0; // undo asks first, as for every action; pause and resume do not
        QString question;
        h.w.setConfirmHandler([&](const QString& text, qint64) {
            ++asked;
            question = text;
            return true;
        });
        QVERIFY(h.openAndWait(path));
        auto* handler = h.w.actionHandler();
        QAction* pause = handler->pauseAction();
        QAction* resume = handler->resumeAction();

        // The fixture's paused queue, on its sidebar row.
        QVERIFY(waitFor([&] { return sidebarPaused(h.w, QStringLiteral("reports")); },
                        WindowHarness::kWaitMs));
        QVERIFY2(sidebarLine(h.w, QStringLiteral("reports"))
                     .startsWith(QStringLiteral("paused since 2026-")),
                 qPrintable(sidebarLine(h.w, QStringLiteral("reports"))));
        QVERIFY(sidebarLine(h.w, QStringLiteral("reports"))
                    .contains(QStringLiteral(": workers skip it")));
        QVERIFY(!sidebarPaused(h.w, QStringLiteral("default")));
        // The whole file: a pause is per queue.
        QVERIFY(!pause->isEnabled());
        QVERIFY(pause->toolTip().contains(QStringLiteral("named queue")));

        // The queue "default" shown: Pause is offered, Resume is not.
        h.w.messagesPage()->setQueueFilter(QStringLiteral("default"));
        QVERIFY(waitFor([&] { return pause->isEnabled(); }, WindowHarness::kWaitMs));
        QVERIFY(!resume->isEnabled());
        QVERIFY(!h.w.bannerBar()->hasBanner(QStringLiteral("paused")));
        QCOMPARE(h.runAndWait([&] { pause->trigger(); }), 1);
        QCOMPARE(asked, 0); // no confirmation: one row
        const QStringList paused = pausesOf(path);
        QCOMPARE(paused.size(), 2);
        QVERIFY(paused.at(1).startsWith(QStringLiteral("2|default|")));
        QVERIFY(waitFor([&] { return resume->isEnabled() && !pause->isEnabled(); },
                        WindowHarness::kWaitMs));
        QVERIFY(waitFor([&] { return h.w.bannerBar()->hasBanner(QStringLiteral("paused")); },
                        WindowHarness::kWaitMs));
        const QString banner = h.w.bannerBar()->bannerText(QStringLiteral("paused"));
        QVERIFY2(banner.startsWith(QStringLiteral("Queue default is paused since ")) &&
                     banner.contains(QStringLiteral(": workers skip it")),
                 qPrintable(banner));
        QVERIFY(chipNote(h.w).contains(QStringLiteral("paused since ")));
        QVERIFY(waitFor([&] { return sidebarPaused(h.w, QStringLiteral("default")); },
                        WindowHarness::kWaitMs));
        QVERIFY(sidebarLine(h.w, QStringLiteral("default"))
                    .startsWith(QStringLiteral("paused since ")));

        // Edit › Undo: the row is gone again, and so is every sign of it.
        QCOMPARE(h.runAndWait([&] { h.w.undoLastAction(); }), 1);
        QVERIFY2(question.startsWith(QStringLiteral("Undo Pause queue default, made at ")),
                 qPrintable(question)); // the queue it paused, not "1 message(s)"
        QCOMPARE(pausesOf(path), before);
        QVERIFY(waitFor([&] { return pause->isEnabled() && !resume->isEnabled(); },
                        WindowHarness::kWaitMs));
        QVERIFY(waitFor([&] { return !h.w.bannerBar()->hasBanner(QStringLiteral("paused")); },
                        WindowHarness::kWaitMs));
        QVERIFY(chipNote(h.w).isEmpty());
        QVERIFY(waitFor([&] { return !sidebarPaused(h.w, QStringLiteral("default")); },
                        WindowHarness::kWaitMs));

        // The paused queue "reports": Resume, then Undo writes the very row back.
        h.w.messagesPage()->setQueueFilter(QStringLiteral("reports"));
        QVERIFY(waitFor([&] { return resume->isEnabled(); }, WindowHarness::kWaitMs));
        QVERIFY(waitFor([&] { return h.w.bannerBar()->hasBanner(QStringLiteral("paused")); },
                        WindowHarness::kWaitMs));
        const int asks = asked;
        QCOMPARE(h.runAndWait([&] { resume->trigger(); }), 1);
        QCOMPARE(asked, asks);
        QVERIFY(pausesOf(path).isEmpty());
        QVERIFY(waitFor([&] { return !sidebarPaused(h.w, QStringLiteral("reports")); },
                        WindowHarness::kWaitMs));
        QCOMPARE(h.runAndWait([&] { h.w.undoLastAction(); }), 1);
        QCOMPARE(pausesOf(path), before);
        QVERIFY(waitFor([&] { return sidebarPaused(h.w, QStringLiteral("reports")); },
                        WindowHarness::kWaitMs));
    }

    void offNowhereElse() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, QStringLiteral("formats/laravel-database.sqlite3"));
        WindowHarness h;
        QVERIFY(h.openAndWait(path));
        h.w.messagesPage()->setQueueFilter(QStringLiteral("emails"));
        QAction* pause = h.w.actionHandler()->pauseAction();
        QVERIFY(
            waitFor([&] { return pause->toolTip().contains(QStringLiteral("stores no pause")); },
                    WindowHarness::kWaitMs));
        QVERIFY(!pause->isEnabled());
        QVERIFY(!h.w.actionHandler()->resumeAction()->isEnabled());
    }
};

QTEST_MAIN(TestPauseQueue)
#include "tst_pausequeue.moc"
