// SPDX-License-Identifier: MIT
// A Solid Queue file (tests/data/formats/solid-queue.sqlite3) in the main
// window: opened and counted as core counts it, and each offered action
// (retry a failed job, release an abandoned claim, discard a ready job)
// performed from the window and undone back to the same rows.

#include "core/queue.h"
#include "testhelpers.h"
#include "ui/bannerbar.h"
#include "ui/mainwindow.h"
#include "ui/messagedetailpane.h"
#include "ui/messagemodel.h"
#include "ui/statusfilterbar.h"
#include "windowharness.h"

#include <QAction>
#include <QFontMetrics>
#include <QLabel>
#include <QLocale>
#include <QStandardPaths>
#include <QTableView>
#include <QTest>
#include <QToolButton>

#include <sqlite3.h>

using lq::core::Queue;
using lq::core::State;
using lq::ui::MainWindow;
using lq::ui::MessageModel;
using lq::ui::StatusFilterBar;
using namespace lq::test;

namespace {

const QString kFixture = QStringLiteral("formats/solid-queue.sqlite3");

using Harness = WindowHarness;

/// Every job as core reads it: state, execution token and stored row.
QStringList snapshot(const QString& path) {
    QStringList out;
    auto q = Queue::open(path.toStdString());
    for (const auto& m : q->list({}, {}, 0, -1))
        out << QString::fromStdString(m.messageId + " " + m.statusText + " " +
                                      m.tokenText.value_or("") + " " + m.formatRow.value_or("") +
                                      " " + m.data);
    return out;
}

} // namespace

class TestSolidQueueGui : public QObject {
    Q_OBJECT

    QTemporaryDir m_tmp;

    [[nodiscard]] static bool openAndWait(Harness& h, const QString& path) {
        return h.openAndWait(path);
    }

    [[nodiscard]] bool showOnly(Harness& h, StatusFilterBar::Choice c) {
        QToolButton* b = h.w.filterBar()->button(c);
        if (!b)
            return false;
        QTest::mouseClick(b, Qt::LeftButton);
        return true;
    }

    /// Selects the first row once loaded; returns its id ("" if none loaded).
    [[nodiscard]] QString selectFirst(Harness& h) {
        if (!waitFor([&] { return rowLoaded(h.model(), 0); }, 5000))
            return {};
        const QModelIndex idx = h.model()->index(0, 0);
        h.w.view()->selectionModel()->setCurrentIndex(idx, QItemSelectionModel::ClearAndSelect |
                                                               QItemSelectionModel::Rows);
        return idAt(h.model(), 0);
    }

    /// Runs `act` and waits for its report; returns the rows applied (-1 when
    /// no report came or it carried an error).
    [[nodiscard]] static int runAndWait(Harness& h, const std::function<void()>& act) {
        return h.runAndWait(act);
    }

private slots:
    void initTestCase() {
        QVERIFY(m_tmp.isValid());
        QStandardPaths::setTestModeEnabled(true);
        qputenv("LQ_AUDIT_DIR", m_tmp.filePath(QStringLiteral("audit")).toUtf8());
    }

    void opensWithCoreCounts() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, kFixture);
        Harness h;
        QVERIFY(openAndWait(h, path));
        QCOMPARE(h.model()->rowCount(), 22);
        const auto c = Queue::open(path.toStdString())->counts();
        QTRY_COMPARE(h.w.filterBar()->button(StatusFilterBar::Failed)->text(),
                     QStringLiteral("Failed %1").arg(c.failed));
        QVERIFY(showOnly(h, StatusFilterBar::Failed));
        QTRY_COMPARE(h.model()->rowCount(), int(c.failed));
        QVERIFY(showOnly(h, StatusFilterBar::Locked));
        QTRY_COMPARE(h.model()->rowCount(), int(c.locked));
        QVERIFY(showOnly(h, StatusFilterBar::All));
        QTRY_COMPARE(h.model()->rowCount(), 22);
        QVERIFY(h.w.action(QStringLiteral("retry")) != nullptr);
    }

    void eachOfferedActionAndUndo_data() {
        QTest::addColumn<int>("filter");
        QTest::addColumn<QString>("action");
        QTest::addColumn<QString>("stateAfter");
        QTest::newRow("retry failed")
            << int(StatusFilterBar::Failed) << QStringLiteral("retry") << QStringLiteral("ready");
        // Wall-clock now: the fixture's heartbeats are minutes old or more,
        // so the first stuck claim is abandoned by the library's rule.
        QTest::newRow("release abandoned claim")
            << int(StatusFilterBar::Stuck) << QStringLiteral("release") << QStringLiteral("ready");
        QTest::newRow("discard ready")
            << int(StatusFilterBar::Ready) << QStringLiteral("delete") << QString();
    }

    void eachOfferedActionAndUndo() {
        QFETCH(int, filter);
        QFETCH(QString, action);
        QFETCH(QString, stateAfter);
        QTemporaryDir dir;
        const QString path = copyFixture(dir, kFixture);
        const QStringList before = snapshot(path);
        Harness h;
        QVERIFY(openAndWait(h, path));
        const auto c = Queue::open(path.toStdString())->counts();
        const auto choice = StatusFilterBar::Choice(filter);
        const qint64 shown = choice == StatusFilterBar::Failed  ? c.failed
                             : choice == StatusFilterBar::Stuck ? c.stuck
                                                                : c.ready;
        QVERIFY(shown > 0);
        QVERIFY(showOnly(h, choice));
        QTRY_COMPARE(h.model()->rowCount(), int(shown));
        const QString id = selectFirst(h);
        QVERIFY(!id.isEmpty());
        QTRY_VERIFY(h.w.action(action)->isEnabled());
        const int applied = runAndWait(h, [&] {
            if (action == QStringLiteral("retry"))
                h.w.retrySelected();
            else if (action == QStringLiteral("release"))
                h.w.releaseSelected();
            else
                h.w.deleteSelected();
        });
        QCOMPARE(applied, 1);
        const auto after = Queue::open(path.toStdString())->get(id.toStdString());
        if (stateAfter.isEmpty())
            QVERIFY(!after.has_value());
        else
            QCOMPARE(QString::fromStdString(after->statusText), stateAfter);
        QVERIFY(snapshot(path) != before);

        QCOMPARE(runAndWait(h, [&] { h.w.undoLastAction(); }), 1);
        QCOMPARE(snapshot(path), before);
    }

    /// A stuck claim's Status ("LOCKED — locked_expired — stuck: locked for
    /// …") wraps in the detail pane instead of being cut at the column edge,
    /// and its tooltip holds the whole value.
    void detailStatusWraps() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, kFixture);
        Harness h;
        h.w.resize(1000, 800); // a column narrower than the status line
        QVERIFY(openAndWait(h, path));
        const auto c = Queue::open(path.toStdString())->counts();
        QVERIFY(c.stuck > 0);
        QVERIFY(showOnly(h, StatusFilterBar::Stuck));
        QTRY_COMPARE(h.model()->rowCount(), int(c.stuck));
        const QString id = selectFirst(h);
        QVERIFY(!id.isEmpty());
        auto* status = h.w.detailPane()->findChild<QLabel*>(QStringLiteral("field_status"));
        QVERIFY(status);
        QTRY_VERIFY2(status->text().contains(QStringLiteral("stuck")), qPrintable(status->text()));
        QVERIFY(status->wordWrap());
        QVERIFY(status->toolTip().contains(status->text().toHtmlEscaped()));
        const QFontMetrics fm(status->font());
        QVERIFY2(fm.horizontalAdvance(status->text()) > status->width(),
                 "the window is wide enough for the whole line: no wrap to check");
        // Every word is on screen: the label is as tall as its wrapped text.
        QTRY_VERIFY(status->height() >= status->heightForWidth(status->width()));
        QVERIFY(status->heightForWidth(status->width()) > fm.height());
    }

    /// Another process changes only a column of the format's own (a job's
    /// priority): the row on screen follows, as it does for a state change.
    void externalChangeOfAFormatColumnIsShown() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, kFixture);
        Harness h;
        QVERIFY(openAndWait(h, path));
        QVERIFY(waitFor([&] { return rowLoaded(h.model(), 0); }, 5000));
        const QString id = idAt(h.model(), 0);
        const QModelIndex cell = h.model()->index(0, MessageModel::Priority);
        const QString before = h.model()->data(cell).toString();
        QVERIFY(!before.isEmpty() && before != QStringLiteral("77"));
        sqlite3* db = nullptr;
        QCOMPARE(sqlite3_open_v2(path.toUtf8().constData(), &db, SQLITE_OPEN_READWRITE, nullptr),
                 SQLITE_OK);
        const QByteArray sql =
            "UPDATE solid_queue_jobs SET priority = 77 WHERE id = " + id.toUtf8();
        const int rc = sqlite3_exec(db, sql.constData(), nullptr, nullptr, nullptr);
        const int changed = sqlite3_changes(db);
        sqlite3_close(db);
        QCOMPARE(rc, SQLITE_OK);
        QCOMPARE(changed, 1);
        QTRY_COMPARE_WITH_TIMEOUT(h.model()->data(h.model()->index(0, MessageModel::Priority)),
                                  QVariant(QStringLiteral("77")), 5000);
    }

    /// A chip that keeps the message shown keeps it selected (and the pane
    /// on it); one that leaves it out says so in the pane.
    void filterKeepsTheMessageShown() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, kFixture);
        Harness h;
        QVERIFY(openAndWait(h, path));
        const auto c = Queue::open(path.toStdString())->counts();
        QVERIFY(showOnly(h, StatusFilterBar::Failed));
        QTRY_COMPARE(h.model()->rowCount(), int(c.failed));
        const QString id = selectFirst(h);
        QVERIFY(!id.isEmpty());
        auto* pane = h.w.detailPane();
        QTRY_COMPARE(pane->messageId(), id);
        // FAILED and blocked: the failed job is still there, still chosen.
        QToolButton* blocked = h.w.filterBar()->extraButton(QStringLiteral("blocked"));
        QVERIFY(blocked);
        QTest::mouseClick(blocked, Qt::LeftButton);
        QTRY_COMPARE(h.model()->rowCount(), int(c.failed + c.extra.at("blocked")));
        QTRY_VERIFY(h.w.view()->currentIndex().isValid());
        QCOMPARE(idAt(h.model(), h.w.view()->currentIndex().row()), id);
        QCOMPARE(pane->messageId(), id);
        QVERIFY2(pane->notShownNote().isEmpty(), qPrintable(pane->notShownNote()));
        // READY: it is not there; the pane keeps it, marked.
        QVERIFY(showOnly(h, StatusFilterBar::All));
        QVERIFY(showOnly(h, StatusFilterBar::Ready));
        QTRY_COMPARE(h.model()->rowCount(), int(c.ready));
        QTRY_COMPARE(pane->notShownNote(), QStringLiteral("no longer in this filter"));
        QCOMPARE(pane->messageId(), id);
        QVERIFY(!h.w.view()->currentIndex().isValid());
    }

    /// The attention banner follows the counts the chips show: a released
    /// abandoned claim takes one off its stuck number, releasing the rest
    /// leaves the failed ones, and retrying those hides it.
    void attentionBannerFollowsCounts() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, kFixture);
        const auto c = Queue::open(path.toStdString())->counts();
        QVERIFY(c.stuck > 1 && c.failed > 0);
        Harness h;
        QVERIFY(openAndWait(h, path));
        lq::ui::BannerBar* bar = h.w.bannerBar();
        const QString key = QStringLiteral("attention");
        const auto stuckText = [](qint64 n) -> QString {
            return QLocale().toString(n) + QStringLiteral(" stuck message(s)");
        };
        QTRY_VERIFY(bar->hasBanner(key));
        QVERIFY2(bar->bannerText(key).startsWith(stuckText(c.stuck)),
                 qPrintable(bar->bannerText(key)));
        // Solid Queue's own rule, not the operator's "locked longer than".
        QVERIFY2(bar->bannerText(key).contains(QStringLiteral("heartbeat is older than 5 min")),
                 qPrintable(bar->bannerText(key)));

        QVERIFY(showOnly(h, StatusFilterBar::Stuck));
        QTRY_COMPARE(h.model()->rowCount(), int(c.stuck));
        QVERIFY(!selectFirst(h).isEmpty());
        QCOMPARE(runAndWait(h, [&] { h.w.releaseSelected(); }), 1);
        QTRY_VERIFY2(bar->bannerText(key).startsWith(stuckText(c.stuck - 1)),
                     qPrintable(bar->bannerText(key)));

        // The other abandoned claims: only the failed jobs need attention.
        QTRY_COMPARE(h.model()->rowCount(), int(c.stuck - 1));
        QVERIFY(waitFor([&] { return allLoaded(h.model()); }));
        h.w.view()->selectAll();
        QCOMPARE(runAndWait(h, [&] { h.w.releaseSelected(); }), int(c.stuck - 1));
        QTRY_COMPARE(bar->bannerText(key), QStringLiteral("%1 failed message(s) in this queue.")
                                               .arg(QLocale().toString(c.failed)));

        // And none once they are retried.
        QVERIFY(showOnly(h, StatusFilterBar::Failed));
        QTRY_COMPARE(h.model()->rowCount(), int(c.failed));
        QVERIFY(waitFor([&] { return allLoaded(h.model()); }));
        h.w.view()->selectAll();
        QCOMPARE(runAndWait(h, [&] { h.w.retrySelected(); }), int(c.failed));
        QTRY_VERIFY(!bar->hasBanner(key));
        const auto now = Queue::open(path.toStdString())->counts();
        QCOMPARE(now.stuck + now.failed, 0);
    }

    /// Switching read-only reopens the file; the reopen's first poll, before
    /// any counts are read, used to take the attention banner down.
    void attentionBannerStaysOverAReadOnlySwitch() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, kFixture);
        const auto c = Queue::open(path.toStdString())->counts();
        Harness h;
        QVERIFY(openAndWait(h, path));
        lq::ui::BannerBar* bar = h.w.bannerBar();
        const QString key = QStringLiteral("attention");
        QTRY_VERIFY(bar->hasBanner(key));
        const QString before = bar->bannerText(key);
        for (const bool readOnly : {!h.w.readOnlyMode(), h.w.readOnlyMode()}) {
            int polls = 0;
            const auto conn =
                connect(h.model(), &lq::ui::MessageModel::refreshed, this, [&] { ++polls; });
            h.w.setReadOnlyMode(readOnly);
            QVERIFY(waitFor([&] {
                return h.w.isReady() && polls >= 2 && h.model()->counts().stored == c.stored;
            }));
            disconnect(conn);
            QVERIFY2(bar->hasBanner(key), readOnly ? "read-only on" : "read-only off");
            QCOMPARE(bar->bannerText(key), before);
        }
    }
};

QTEST_MAIN(TestSolidQueueGui)
#include "tst_solidqueuegui.moc"
