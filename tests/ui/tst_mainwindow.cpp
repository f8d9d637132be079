// SPDX-License-Identifier: MIT
// The main window driven on fixture copies: open, filter, search, actions
// with their compare-and-swap guard, prune with a cutoff, live refresh with
// the selection kept, plain-text display of hostile payloads, undo.

#include "core/formats/queueformat.h"
#include "core/queue.h"
#include "testhelpers.h"
#include "ui/actionreport.h"
#include "ui/bannerbar.h"
#include "ui/dashboardwidget.h"
#include "ui/mainwindow.h"
#include "ui/messagedetailpane.h"
#include "ui/messagemodel.h"
#include "ui/messagespage.h"
#include "ui/prunedialog.h"
#include "ui/queuesidebar.h"
#include "ui/statusfilterbar.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QComboBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QLocale>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTest>
#include <QToolBar>
#include <QToolButton>

#include <algorithm>
#include <cstdio>

using lq::core::Queue;
using lq::core::State;
using lq::ui::MainWindow;
using lq::ui::MessageModel;
using lq::ui::StatusFilterBar;
using namespace lq::test;

namespace {

const QString kMixed = QStringLiteral("litequeue-head-mixed.sqlite3");

/// A window with the test hooks: confirmations answered yes (and recorded),
/// reports recorded instead of shown.
struct Harness {
    MainWindow w;
    QStringList questions;
    QList<qint64> counts;
    bool answer = true;

    Harness() {
        w.setConfirmHandler([this](const QString& text, qint64 count) {
            questions << text;
            counts << count;
            return answer;
        });
        w.setReportHandler([](const MainWindow::ActionReport&) {});
        w.resize(1200, 800);
        w.show();
    }
    MessageModel* model() const { return w.model(); }
};

/// Opens `path` and waits until the window shows it, ready.
[[nodiscard]] bool openAndWait(Harness& h, const QString& path) {
    h.w.openFile(path);
    // A condition waited for, not a speed check: see WindowHarness::kWaitMs.
    return waitFor([&] { return h.w.isReady() && h.w.currentPath() == path; }, 30000);
}

[[nodiscard]] bool clickFilter(Harness& h, StatusFilterBar::Choice c) {
    QToolButton* b = h.w.filterBar()->button(c);
    LQ_CHECK(b);
    QTest::mouseClick(b, Qt::LeftButton);
    return true;
}

/// Selects `row` once it is loaded; returns its (id, token), or an empty id
/// when the row never loaded.
[[nodiscard]] std::pair<QString, qint64> selectRow(Harness& h, int row) {
    if (!waitFor([&] { return rowLoaded(h.model(), row); }, 5000)) {
        return {};
    }
    const QModelIndex idx = h.model()->index(row, 0);
    h.w.view()->selectionModel()->setCurrentIndex(idx, QItemSelectionModel::ClearAndSelect |
                                                           QItemSelectionModel::Rows);
    return {idAt(h.model(), row), h.model()->data(idx, MessageModel::TokenRole).toLongLong()};
}

/// The id of the current row when it is also selected, else empty.
QString selectedCurrentId(Harness& h) {
    const QModelIndex cur = h.w.view()->currentIndex();
    if (!cur.isValid() || !h.w.view()->selectionModel()->isRowSelected(cur.row(), {}))
        return {};
    return h.model()->data(h.model()->index(cur.row(), MessageModel::MessageId)).toString();
}

/// Waits until the action started after `before` reports were made has
/// reported and the window is idle again.
[[nodiscard]] bool waitReport(Harness& h, int before) {
    return waitFor([&] { return h.w.reportCount() > before && !h.w.isBusy(); },
                   60000); // generous: ASan on a loaded machine
}

} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void openFilterSearch();
    void ctrlEndBeforeTheOrderingGoesToTheLastRow();
    void statusBarSaysWhenTheFirstRowsCame();
    void aClickShowsTheRowInThePane();
    void retryLockedKeepsClaim();
    void aMessageBackInTheFilterLosesItsMark();
    void staleRetryIsSkipped();
    void pruneWithCutoff();
    void externalChangeKeepsSelection();
    void htmlPayloadShownLiterally();
    void undoRevertsRetry();
    void brokenFileIsAMessage();
    void readOnlyWhenNotWritable();
    void readOnlySwitch();
    void readOnlyFormatShowsReason();
    void commandLineFiles();
    void applyToAllMatchingWithProgress();
    void aFilterWideRetryLeavesTheNextActionOnTheSelection();
    void confirmationsNameWhatTheyTouch();
    void keyboardReachesTheTabsAndTheSidebar();
    void theAttentionBannerNeverMovesTheTable();
    void theReportSaysWhyAndCannotBeClickedThrough();
    void aSmallWindowKeepsTheMainActionsAndTheQueueName();
    void deletedAndReplacedFileBanners();
    void noWritesToADeletedFile();
    void fitsASmallLaptopScreen();
    void countsOfAMillionKeepTheChipsOnOneLine();
    void pruneAgeInMinutes();
    void jobsLeaseFile();
    void upgradeAndVacuum();

private:
    QTemporaryDir m_tmp;
};

void TestMainWindow::initTestCase() {
    QVERIFY(m_tmp.isValid());
    QStandardPaths::setTestModeEnabled(true);
    qputenv("LQ_AUDIT_DIR", m_tmp.filePath(QStringLiteral("audit")).toUtf8());
}

void TestMainWindow::openFilterSearch() {
    QTemporaryDir dir;
    const QString path = copyFixture(dir, kMixed);
    Harness h;
    QAbstractItemModelTester tester(h.model());
    QVERIFY(openAndWait(h, path));
    QVERIFY(h.w.windowTitle().contains(QStringLiteral("litequeue-head-mixed.sqlite3")));
    QCOMPARE(h.model()->rowCount(), 400);
    QTRY_COMPARE(h.w.filterBar()->button(StatusFilterBar::Failed)->text(),
                 QStringLiteral("Failed 20"));
    QCOMPARE(h.w.filterBar()->button(StatusFilterBar::Ready)->text(), QStringLiteral("Ready 58"));
    // While a file's counts are computed the chips say so, not "All 0".
    h.w.filterBar()->setCountsPending();
    QCOMPARE(h.w.filterBar()->button(StatusFilterBar::All)->text(), QStringLiteral("All \u2026"));
    h.model()->refreshNow();
    QTRY_COMPARE(h.w.filterBar()->button(StatusFilterBar::All)->text(), QStringLiteral("All 400"));

    QVERIFY(clickFilter(h, StatusFilterBar::Failed));
    QTRY_COMPARE(h.model()->rowCount(), 20);

    QVERIFY(clickFilter(h, StatusFilterBar::Stuck));
    QTRY_COMPARE(h.model()->rowCount(), 14); // every LOCKED row is hours old

    QVERIFY(clickFilter(h, StatusFilterBar::All));
    QTRY_COMPARE(h.model()->rowCount(), 400);
    QTest::keyClicks(h.w.searchEdit(), QStringLiteral("019593ca-78ca-7241"));
    QTRY_COMPARE(h.model()->rowCount(), 1); // after the 250 ms debounce
    QTRY_VERIFY(rowLoaded(h.model(), 0));
    QCOMPARE(idAt(h.model(), 0), QStringLiteral("019593ca-78ca-7241-b227-738b3bec0225"));
    h.w.searchEdit()->clear();
    QTRY_COMPARE(h.model()->rowCount(), 400);
    // The legacy format is announced, with the upgrade offered.
    QVERIFY(h.w.bannerBar()->hasBanner(QStringLiteral("format")));
    QVERIFY(h.w.recentFiles().contains(path));
    // The hidden Dashboard tab was made ready for its first show, and
    // stays hidden.
    QTRY_VERIFY(!h.w.dashboard()->prepareFirstShow(QSize(800, 600), 1.0));
    QVERIFY(h.w.stuckSpinBox()->isEnabled()); // litequeue: the operator's threshold
    QVERIFY(!h.w.dashboard()->isVisible());
}

void TestMainWindow::ctrlEndBeforeTheOrderingGoesToTheLastRow() {
    // The first page (256 of 400 rows) is shown before the ordering: a
    // Ctrl+End pressed then ends on row 399 once the ordering is there, not
    // on the first page's last row.
    QTemporaryDir dir;
    const QString path = copyFixture(dir, kMixed);
    Harness h;
    bool pressed = false;
    bool provisional = false;
    QObject::connect(h.model(), &MessageModel::firstRowsShown, &h.w, [&] {
        if (std::exchange(pressed, true))
            return;
        provisional = !h.model()->hasOrdering() && h.model()->rowCount() < 400;
        h.w.view()->setFocus();
        QTest::keyClick(h.w.view(), Qt::Key_End, Qt::ControlModifier);
    });
    QVERIFY(openAndWait(h, path));
    QVERIFY(pressed && provisional);
    QTRY_COMPARE(h.model()->rowCount(), 400);
    QTRY_COMPARE(h.w.view()->currentIndex().row(), 399);
    QVERIFY(h.w.view()->selectionModel()->isRowSelected(399, {}));
    // Any key pressed before the ordering came cancels it.
    QTemporaryDir dir2;
    const QString other = copyFixture(dir2, kMixed);
    pressed = false;
    QObject::connect(h.model(), &MessageModel::firstRowsShown, &h.w, [&] {
        if (pressed)
            QTest::keyClick(h.w.view(), Qt::Key_Home, Qt::ControlModifier);
    });
    QVERIFY(openAndWait(h, other));
    QTRY_COMPARE(h.model()->rowCount(), 400);
    // The ordering applied, and every event it posted handled: the key
    // pressed before it still holds.
    QTRY_VERIFY(h.model()->hasOrdering());
    QCoreApplication::sendPostedEvents();
    QCoreApplication::processEvents();
    QCOMPARE(h.w.view()->currentIndex().row(), 0);

    // Ctrl+End from a selected row moves the current cell, not the
    // selection: the pane keeps the selected message, not marked as gone.
    QTRY_VERIFY(rowLoaded(h.model(), 2));
    const QString second = idAt(h.model(), 2);
    h.w.view()->selectRow(2);
    QTRY_COMPARE(h.w.detailPane()->messageId(), second);
    QTest::keyClick(h.w.view(), Qt::Key_End, Qt::ControlModifier);
    QCOMPARE(h.w.view()->currentIndex().row(), 399);
    QCOMPARE(h.w.detailPane()->messageId(), second);
    QVERIFY(h.w.detailPane()->notShownNote().isEmpty());
}

void TestMainWindow::statusBarSaysWhenTheFirstRowsCame() {
    // Said once the first rows are in the table, whether they came as the
    // first page's reset or as blocks after the ordering; not when the
    // whole ordering arrived, and not only at some later poll.
    QTemporaryDir dir;
    const QString path = copyFixture(dir, kMixed);
    Harness h;
    auto* page = h.w.findChild<lq::ui::MessagesPage*>();
    QVERIFY(page);
    QSignalSpy shown(page, &lq::ui::MessagesPage::firstPageShown);
    h.w.openFile(path);
    QTRY_COMPARE(shown.count(), 1);
    QVERIFY(h.model()->rowAt(0));
    QVERIFY2(h.w.statusBar()->currentMessage().contains(QStringLiteral("first rows in")),
             qPrintable(h.w.statusBar()->currentMessage()));
}

void TestMainWindow::aClickShowsTheRowInThePane() {
    // The first click into the table (which gives it the focus) and the
    // next ones each show their row in the detail pane.
    QTemporaryDir dir;
    const QString path = copyFixture(dir, kMixed);
    Harness h;
    QVERIFY(openAndWait(h, path));
    QTRY_VERIFY(rowLoaded(h.model(), 3));
    QTRY_VERIFY(h.model()->hasOrdering());
    h.w.searchEdit()->setFocus();
    QTableView* v = h.w.view();
    for (int row : {1, 3}) {
        const QRect r = v->visualRect(h.model()->index(row, MessageModel::Status));
        QTest::mouseClick(v->viewport(), Qt::LeftButton, {}, r.center());
        QCOMPARE(v->currentIndex().row(), row);
        // At once, not at the next poll's dataChanged: the press makes the
        // row current before it selects it.
        QCOMPARE(h.w.detailPane()->messageId(), idAt(h.model(), row));
    }
}

void TestMainWindow::retryLockedKeepsClaim() {
    QTemporaryDir dir;
    const QString path = copyFixture(dir, kMixed);
    Harness h;
    QVERIFY(openAndWait(h, path));
    QVERIFY(clickFilter(h, StatusFilterBar::Locked));
    QTRY_COMPARE(h.model()->rowCount(), 14);
    const auto [id, token] = selectRow(h, 3);
    QVERIFY(!id.isEmpty());
    {
        auto before = Queue::open(path.toStdString())->get(id.toStdString());
        QVERIFY(before && before->state == State::Locked);
        QCOMPARE(qint64(*before->lockTime), token); // legacy: the token is lock_time
    }
    const int reports = h.w.reportCount();
    h.w.retrySelected();
    QVERIFY(waitReport(h, reports));
    QCOMPARE(h.w.reportCount(), reports + 1);
    QCOMPARE(h.counts.value(0), 1);
    const auto rep = h.w.lastReport();
    QVERIFY2(rep.error.isEmpty(), qPrintable(rep.error));
    QCOMPARE(rep.applied, 1);
    QCOMPARE(rep.skipped, 0);

    auto after = Queue::open(path.toStdString())->get(id.toStdString());
    QVERIFY(after);
    QCOMPARE(after->state, State::Ready);
    QCOMPARE(qint64(after->token), token); // same claim: retry keeps lock_time
    QCOMPARE(after->doneTime.has_value(), false);
    // And the window follows: 13 LOCKED left.
    QTRY_COMPARE_WITH_TIMEOUT(h.model()->rowCount(), 13, 3000);
    // The detail pane keeps the message the operator chose, marked as gone
    // from this filter; it never shows the neighbour that took its row.
    QCOMPARE(h.w.detailPane()->messageId(), id);
    QTRY_VERIFY(!h.w.detailPane()->notShownNote().isEmpty());
    QVERIFY(h.w.detailPane()
                ->fieldText(QStringLiteral("status"))
                .contains(QStringLiteral("no longer in this filter")));
    QVERIFY(!h.w.action(QStringLiteral("retry"))->isEnabled()); // nothing selected

    // Undo brings it back into this filter: chosen again, the pane shows it
    // as the file has it now, no longer marked.
    const int undoReports = h.w.reportCount();
    h.w.undoLastAction();
    QVERIFY(waitReport(h, undoReports));
    QCOMPARE(h.w.lastReport().applied, 1);
    QTRY_COMPARE_WITH_TIMEOUT(h.model()->rowCount(), 14, 3000);
    // The view may first make a neighbour current (not selected); the
    // message comes back once the worker has found its row.
    const auto currentId = [&h] { return selectedCurrentId(h); };
    QTRY_COMPARE_WITH_TIMEOUT(currentId(), id, 10000);
    QTRY_VERIFY(h.w.detailPane()->notShownNote().isEmpty());
    QVERIFY2(h.w.detailPane()->fieldText(QStringLiteral("status")).startsWith(u"LOCKED"),
             qPrintable(h.w.detailPane()->fieldText(QStringLiteral("status"))));
}

void TestMainWindow::aMessageBackInTheFilterLosesItsMark() {
    // A message shown, then the table sorted by another column: while the
    // new ordering is computed the message is not in the table (the pane
    // marks it), then it is found and chosen again, unchanged. The payload
    // line must be the payload's again, not "no longer in this filter"
    // (found under Xvfb on a 1M file).
    QTemporaryDir dir;
    const QString path = copyFixture(dir, kMixed);
    Harness h;
    QVERIFY(openAndWait(h, path));
    QTRY_VERIFY(h.model()->hasOrdering());
    const QString id = selectRow(h, 5).first;
    QVERIFY(!id.isEmpty());
    lq::ui::MessageDetailPane* pane = h.w.detailPane();
    QTRY_COMPARE(pane->messageId(), id);
    // The payload loaded, its line written.
    QTRY_VERIFY(!pane->payloadText().isEmpty());
    QTRY_VERIFY(!pane->isLoading());
    const QString note = pane->payloadNoteText();
    QVERIFY(!note.contains(QStringLiteral("no longer")));
    QSignalSpy marked(h.model(), &QAbstractItemModel::modelReset);
    QHeaderView* header = h.w.view()->horizontalHeader();
    QTest::mouseClick(
        header->viewport(), Qt::LeftButton, {},
        QPoint(header->sectionViewportPosition(MessageModel::Status) + 10, header->height() / 2));
    QTRY_VERIFY(!marked.isEmpty());
    const auto currentId = [&h] { return selectedCurrentId(h); };
    QTRY_COMPARE_WITH_TIMEOUT(currentId(), id, 10000);
    QTRY_VERIFY(pane->notShownNote().isEmpty());
    QTRY_COMPARE(pane->payloadNoteText(), note);
}

void TestMainWindow::staleRetryIsSkipped() {
    QTemporaryDir dir;
    const QString path = copyFixture(dir, kMixed);
    Harness h;
    QVERIFY(openAndWait(h, path));
    QVERIFY(clickFilter(h, StatusFilterBar::Locked));
    QTRY_COMPARE(h.model()->rowCount(), 14);
    const auto [id, token] = selectRow(h, 0);
    QVERIFY(!id.isEmpty());

    // Behind the window's back: another operator retries it and a worker
    // pops it again, so it is LOCKED with another token.
    {
        auto other = Queue::open(path.toStdString());
        QVERIFY(other->retry(id.toStdString(), token));
        bool again = false;
        for (int i = 0; i < 500 && !again; ++i) {
            auto m = other->pop();
            QVERIFY(m);
            again = m->messageId == id.toStdString();
        }
        QVERIFY(again);
        auto now = other->get(id.toStdString());
        QVERIFY(now && now->state == State::Locked && qint64(now->token) != token);
    }
    // The window still shows (and acts on) what it showed.
    const int reports = h.w.reportCount();
    h.w.retrySelected();
    QVERIFY(waitReport(h, reports));
    QCOMPARE(h.w.reportCount(), reports + 1);
    const auto rep = h.w.lastReport();
    QCOMPARE(rep.applied, 0);
    QCOMPARE(rep.skipped, 1);
    QVERIFY2(rep.skippedLines.value(0).startsWith(id), qPrintable(rep.skippedLines.join(u'|')));
    auto still = Queue::open(path.toStdString())->get(id.toStdString());
    QCOMPARE(still->state, State::Locked);
}

void TestMainWindow::pruneWithCutoff() {
    QTemporaryDir dir;
    const QString path = copyFixture(dir, kMixed);
    Harness h;
    QVERIFY(openAndWait(h, path));
    // A cutoff inside the fixture's history (its clock ran in March 2025).
    const lq::core::TimeNs cutoff = 1741943000000000000LL; // 2025-03-14T09:03:20Z
    lq::core::Filter f;
    f.states = {State::Done};
    f.doneBefore = cutoff;
    auto ref = Queue::open(path.toStdString());
    const std::int64_t expected = ref->count(f);
    QVERIFY(expected > 0 && expected < 308);
    const std::chrono::nanoseconds olderThan(lq::core::systemNowNs() - cutoff);

    const int reports = h.w.reportCount();
    h.w.prune(olderThan, /*includeFailed=*/false);
    QVERIFY(waitReport(h, reports));
    QCOMPARE(h.w.reportCount(), reports + 1);
    QCOMPARE(h.counts.value(0), qint64(expected)); // the confirmation named the exact count
    QCOMPARE(h.w.lastReport().applied, qint64(expected));
    auto after = Queue::open(path.toStdString());
    QCOMPARE(after->count(f), std::int64_t(0));
    QCOMPARE(after->doneCount(), std::int64_t(308 - expected));
    QCOMPARE(after->failedCount(), std::int64_t(20)); // kept
    QTRY_COMPARE_WITH_TIMEOUT(h.model()->rowCount(), int(400 - expected), 3000);
}

void TestMainWindow::externalChangeKeepsSelection() {
    QTemporaryDir dir;
    const QString path = copyFixture(dir, kMixed);
    Harness h;
    QVERIFY(openAndWait(h, path));
    const auto [id, token] = selectRow(h, 150);
    QVERIFY(!id.isEmpty());
    Q_UNUSED(token);
    QTRY_COMPARE(h.w.detailPane()->messageId(), id);

    auto other = Queue::open(path.toStdString());
    other->put("from another process");
    const auto popped = other->pop();
    QVERIFY(popped);
    QTRY_COMPARE_WITH_TIMEOUT(h.model()->rowCount(), 401, 1000);
    const QModelIndex cur = h.w.view()->currentIndex();
    QVERIFY(cur.isValid());
    QCOMPARE(idAt(h.model(), cur.row()), id);
    QCOMPARE(h.w.view()->selectionModel()->selectedRows().size(), 1);
    QCOMPARE(h.w.detailPane()->messageId(), id);
}

void TestMainWindow::htmlPayloadShownLiterally() {
    QTemporaryDir dir;
    const QString path = copyFixture(dir, kMixed);
    const QString html = QStringLiteral("<b>x</b><img src=x>");
    Harness h;
    QVERIFY(openAndWait(h, path));
    const int reports = h.w.reportCount();
    h.w.enqueue(html, QString());
    QVERIFY(waitReport(h, reports));
    QCOMPARE(h.w.reportCount(), reports + 1);
    QVERIFY2(h.w.lastReport().error.isEmpty(), qPrintable(h.w.lastReport().error));
    QTest::keyClicks(h.w.searchEdit(), QStringLiteral("<img src"));
    QTRY_COMPARE(h.model()->rowCount(), 1);
    const auto [id, token] = selectRow(h, 0);
    QVERIFY(!id.isEmpty());
    Q_UNUSED(token);
    QTRY_VERIFY(!h.w.detailPane()->isLoading());
    QCOMPARE(h.w.detailPane()->payloadText(), html);
    auto* edit = h.w.detailPane()->findChild<QPlainTextEdit*>(QStringLiteral("payloadText"));
    QVERIFY(edit);
    QCOMPARE(edit->toPlainText(), html);
    QCOMPARE(h.model()->data(h.model()->index(0, MessageModel::Payload)).toString(), html);
    const QString tip =
        h.model()->data(h.model()->index(0, MessageModel::Payload), Qt::ToolTipRole).toString();
    QVERIFY2(tip.contains(html.toHtmlEscaped()), qPrintable(tip));
    QVERIFY(!tip.contains(html));
    // Every label of the pane and the banners shows file data as plain text.
    const auto labels = h.w.findChildren<QLabel*>();
    for (QLabel* l : labels) {
        if (l->objectName().startsWith(QStringLiteral("field_")) ||
            l->objectName() == QStringLiteral("bannerText")) {
            QCOMPARE(l->textFormat(), Qt::PlainText);
        }
    }
}

void TestMainWindow::undoRevertsRetry() {
    QTemporaryDir dir;
    const QString path = copyFixture(dir, kMixed);
    Harness h;
    QVERIFY(openAndWait(h, path));
    QVERIFY(clickFilter(h, StatusFilterBar::Failed));
    QTRY_COMPARE(h.model()->rowCount(), 20);
    const auto [id, token] = selectRow(h, 2);
    QVERIFY(!id.isEmpty());
    int reports = h.w.reportCount();
    h.w.retrySelected();
    QVERIFY(waitReport(h, reports));
    QCOMPARE(h.w.reportCount(), reports + 1);
    QCOMPARE(h.w.lastReport().applied, 1);
    QCOMPARE(Queue::open(path.toStdString())->get(id.toStdString())->state, State::Ready);

    reports = h.w.reportCount();
    h.w.undoLastAction();
    QVERIFY(waitReport(h, reports));
    QCOMPARE(h.w.reportCount(), reports + 1);
    const auto rep = h.w.lastReport();
    QVERIFY2(rep.error.isEmpty(), qPrintable(rep.error));
    QCOMPARE(rep.applied, 1);
    auto back = Queue::open(path.toStdString())->get(id.toStdString());
    QCOMPARE(back->state, State::Failed);
    QCOMPARE(qint64(back->token), token);
    QTRY_COMPARE_WITH_TIMEOUT(h.model()->rowCount(), 20, 3000);

    // Nothing left to undo: said as information, nothing applied.
    reports = h.w.reportCount();
    h.w.undoLastAction();
    QVERIFY(waitReport(h, reports));
    QCOMPARE(h.w.reportCount(), reports + 1);
    QVERIFY(!h.w.lastReport().notice.isEmpty());
    QCOMPARE(h.w.lastReport().applied, 0);
}

void TestMainWindow::brokenFileIsAMessage() {
    QTemporaryDir dir;
    Harness h;
    // The empty table says what to do, then why the last open failed.
    auto* empty = h.w.findChild<QLabel*>(QStringLiteral("emptyState"));
    QVERIFY(empty);
    QVERIFY2(!empty->isHidden() && empty->text().startsWith(QStringLiteral("No queue open")),
             qPrintable(empty->text()));
    for (const char* f : {"not-sqlite.sqlite3", "truncated.sqlite3", "not-a-queue.sqlite3"}) {
        const QString path = copyFixture(dir, QString::fromLatin1(f));
        h.w.openFile(path);
        QTRY_VERIFY(!h.w.isBusy());
        QVERIFY2(h.w.lastError().contains(QString::fromLatin1(f)), qPrintable(h.w.lastError()));
        QVERIFY(h.w.currentPath().isEmpty());
        QVERIFY2(!empty->isHidden() && empty->text().startsWith(QStringLiteral("Cannot open ") +
                                                                QString::fromLatin1(f)),
                 qPrintable(empty->text()));
    }
    // An open file with rows shows no empty state; a search that matches
    // nothing says so.
    QVERIFY(openAndWait(h, copyFixture(dir, kMixed)));
    QTRY_VERIFY(empty->isHidden());
    auto* search = h.w.findChild<QLineEdit*>(QStringLiteral("search"));
    QVERIFY(search);
    search->setText(QStringLiteral("no-message-has-this-text-zq"));
    QTRY_VERIFY2(!empty->isHidden() &&
                     empty->text().startsWith(QStringLiteral("No messages match this filter")),
                 qPrintable(empty->text()));
    search->clear();
    QTRY_VERIFY(empty->isHidden());
    h.w.openFile(dir.filePath(QStringLiteral("missing.sqlite3")));
    QTRY_VERIFY(h.w.lastError().contains(QStringLiteral("missing.sqlite3")));
    QVERIFY(h.w.lastError().contains(QStringLiteral("no such file")));
    QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("missing.sqlite3"))));
}

void TestMainWindow::readOnlyWhenNotWritable() {
    QTemporaryDir dir;
    const QString path = copyFixture(dir, QStringLiteral("litequeue-head-maxsize.sqlite3"));
    QFile::setPermissions(path, QFile::ReadOwner);
    if (QFileInfo(path).isWritable()) {
        QSKIP("running as a user who can write read-only files (root)");
    }
    Harness h;
    QVERIFY(openAndWait(h, path));
    QVERIFY(h.w.readOnlyMode());
    QVERIFY(h.w.bannerBar()->hasBanner(QStringLiteral("readonly")));
    QVERIFY(!h.w.action(QStringLiteral("retry"))->isEnabled());
}

void TestMainWindow::readOnlySwitch() {
    QTemporaryDir dir;
    const QString path = copyFixture(dir, kMixed);
    Harness h;
    QVERIFY(openAndWait(h, path));
    QVERIFY(!h.w.readOnlyMode());
    // The toggle says its state.
    QCOMPARE(h.w.action(QStringLiteral("readOnly"))->text().remove(u'&'),
             QStringLiteral("Read-only: off"));
    h.w.setReadOnlyMode(true); // reopens the file read-only
    QTRY_VERIFY(h.w.readOnlyMode() && h.w.isReady());
    QCOMPARE(h.w.action(QStringLiteral("readOnly"))->text().remove(u'&'),
             QStringLiteral("Read-only: on"));
    QVERIFY(h.w.windowTitle().contains(QStringLiteral("read-only")));
    QVERIFY(h.w.bannerBar()->hasBanner(QStringLiteral("readonly")));
    QVERIFY(!h.w.action(QStringLiteral("enqueue"))->isEnabled());
    h.w.enqueue(QStringLiteral("refused"), {});
    QVERIFY2(h.w.lastError().contains(QStringLiteral("read-only")), qPrintable(h.w.lastError()));
    QCOMPARE(Queue::open(path.toStdString())->storedCount(), std::int64_t(400));
    h.w.setReadOnlyMode(false);
    QTRY_VERIFY(!h.w.readOnlyMode() && h.w.isReady());
    QVERIFY(!h.w.bannerBar()->hasBanner(QStringLiteral("readonly")));
}

void TestMainWindow::readOnlyFormatShowsReason() {
    QTemporaryDir dir;
    const QString path = copyFixture(dir, QStringLiteral("litequeue-oldmulti.sqlite3"));
    Harness h;
    QVERIFY(openAndWait(h, path));
    QVERIFY(h.w.readOnlyMode());
    QVERIFY(h.w.bannerBar()->hasBanner(QStringLiteral("readonly")));
    QVERIFY2(h.w.bannerBar()->bannerText(QStringLiteral("readonly")).size() > 12,
             qPrintable(h.w.bannerBar()->bannerText(QStringLiteral("readonly"))));
    QVERIFY(h.model()->rowCount() > 0);
}

void TestMainWindow::commandLineFiles() {
    QTemporaryDir dir;
    const QString a = copyFixture(dir, QStringLiteral("litequeue-head-maxsize.sqlite3"));
    const QString b = copyFixture(dir, QStringLiteral("litequeue-head-empty.sqlite3"));
    Harness h;
    h.w.openFiles({a, b});
    QTRY_VERIFY(h.w.isReady());
    QCOMPARE(h.w.currentPath(), QFileInfo(a).absoluteFilePath());
    QCOMPARE(h.model()->rowCount(), 37);
    QVERIFY(h.w.recentFiles().contains(QFileInfo(b).absoluteFilePath()));
}

void TestMainWindow::applyToAllMatchingWithProgress() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("many.sqlite3"));
    {
        auto q = Queue::create(path.toStdString());
        std::vector<lq::core::PutItem> items(3000);
        for (std::size_t i = 0; i < items.size(); ++i) {
            items[i].data = "job " + std::to_string(i);
        }
        q->putMany(items);
        auto tx = q->transaction();
        while (auto m = q->pop()) {
            q->markFailed(m->messageId, m->claimId);
        }
        tx->commit();
    }
    Harness h;
    QVERIFY(openAndWait(h, path));
    QVERIFY(clickFilter(h, StatusFilterBar::Failed));
    QTRY_COMPARE(h.model()->rowCount(), 3000);
    QList<lq::ui::ConfirmRequest> asked;
    h.w.setConfirmHandler([&](lq::ui::ConfirmRequest& r) {
        r.wholeFilter = r.scopeOffered; // the filter, chosen in the confirmation
        asked << r;
        return true;
    });
    QVERIFY(!selectRow(h, 0).first.isEmpty());
    const int reports = h.w.reportCount();
    h.w.retrySelected();
    QVERIFY(waitReport(h, reports));
    QCOMPARE(h.w.reportCount(), reports + 1);
    QCOMPARE(asked.value(0).filterCount, qint64(3000));
    QCOMPARE(h.w.lastReport().applied, qint64(3000));
    QCOMPARE(Queue::open(path.toStdString())->readyCount(), std::int64_t(3000));
    QTRY_COMPARE_WITH_TIMEOUT(h.model()->rowCount(), 0, 3000);
    QTRY_COMPARE(h.w.filterBar()->button(StatusFilterBar::Ready)->text(),
                 QStringLiteral("Ready ") + QLocale().toString(3000));
}

// The trap: a scope that stayed on after one use turned the next action on
// one selected job into an action on the whole filter. The scope is chosen
// in each confirmation, the selection by default, and is never remembered.
void TestMainWindow::aFilterWideRetryLeavesTheNextActionOnTheSelection() {
    QTemporaryDir dir;
    const QString path = copyFixture(dir, kMixed);
    Harness h;
    QList<lq::ui::ConfirmRequest> asked;
    bool chooseFilter = true;
    h.w.setConfirmHandler([&](lq::ui::ConfirmRequest& r) {
        asked << r;
        if (r.scopeOffered && chooseFilter) {
            r.wholeFilter = true;
        }
        return true;
    });
    QVERIFY(openAndWait(h, path));
    QVERIFY(clickFilter(h, StatusFilterBar::Failed));
    QTRY_COMPARE(h.model()->rowCount(), 20);
    QVERIFY(!selectRow(h, 0).first.isEmpty());
    int reports = h.w.reportCount();
    h.w.retrySelected(); // one row selected, the filter chosen in the confirmation
    QVERIFY(waitReport(h, reports));
    QCOMPARE(asked.size(), 1);
    QVERIFY(asked[0].scopeOffered);
    QVERIFY(!asked[0].wholeFilter); // the selection was the default
    QCOMPARE(asked[0].selectionCount, qint64(1));
    QCOMPARE(asked[0].filterCount, qint64(20));
    QCOMPARE(h.w.lastReport().applied, qint64(20));

    // Then one job of the whole file, selected, and Mark failed: the
    // confirmation is about that one job, whatever the last action chose.
    chooseFilter = false;
    QVERIFY(clickFilter(h, StatusFilterBar::Ready));
    QTRY_VERIFY(h.model()->rowCount() > 1);
    const auto [id, token] = selectRow(h, 0);
    QVERIFY(!id.isEmpty());
    const qint64 readyBefore = Queue::open(path.toStdString())->readyCount();
    reports = h.w.reportCount();
    h.w.markFailedSelected();
    QVERIFY(waitReport(h, reports));
    QCOMPARE(asked.size(), 2);
    QVERIFY(!asked[1].wholeFilter);
    QCOMPARE(asked[1].count, qint64(1));
    QVERIFY2(asked[1].text.contains(id), qPrintable(asked[1].text));
    QCOMPARE(h.w.lastReport().applied, qint64(1));
    QCOMPARE(Queue::open(path.toStdString())->readyCount(), readyBefore - 1);
    QVERIFY(h.w.findChild<QAction*>(QStringLiteral("applyToAll")) == nullptr);
}

// What a confirmation names: the selected ids with their state, the filter
// in words, and for prune every state it deletes.
void TestMainWindow::confirmationsNameWhatTheyTouch() {
    QTemporaryDir dir;
    const QString path = copyFixture(dir, kMixed);
    Harness h;
    QList<lq::ui::ConfirmRequest> asked;
    h.w.setConfirmHandler([&](lq::ui::ConfirmRequest& r) {
        asked << r;
        return false; // answered Cancel: nothing is written
    });
    QVERIFY(openAndWait(h, path));
    QVERIFY(clickFilter(h, StatusFilterBar::Locked));
    QTRY_COMPARE(h.model()->rowCount(), 14);
    QItemSelectionModel* sel = h.w.view()->selectionModel();
    QVERIFY(waitFor([&] { return rowLoaded(h.model(), 4); }, 5000));
    QStringList ids;
    for (int row = 0; row < 5; ++row) {
        sel->select(h.model()->index(row, 0),
                    QItemSelectionModel::Select | QItemSelectionModel::Rows);
        ids << idAt(h.model(), row);
    }
    const QByteArray before = [&] {
        QFile f(path);
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    }();
    h.w.retrySelected();
    QTRY_COMPARE(asked.size(), 1);
    const lq::ui::ConfirmRequest& r = asked[0];
    QCOMPARE(r.count, qint64(5));
    for (int i = 0; i < 3; ++i) {
        QVERIFY2(r.text.contains(ids[i]), qPrintable(r.text));
    }
    QVERIFY2(!r.text.contains(ids[3]), qPrintable(r.text));
    QVERIFY2(r.text.contains(QStringLiteral("and 2 more")), qPrintable(r.text));
    QVERIFY2(r.text.contains(QStringLiteral("LOCKED")), qPrintable(r.text));
    QVERIFY2(r.filterText.contains(QStringLiteral("state LOCKED")), qPrintable(r.filterText));
    QVERIFY2(r.filterText.contains(QStringLiteral("14 job(s)")), qPrintable(r.filterText));
    QTRY_VERIFY(!h.w.isBusy());
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll(), before);
    // The action that makes a job due now says so.
    auto* runNow = h.w.findChild<QAction*>(QStringLiteral("release"));
    QVERIFY(runNow);
    QCOMPARE(runNow->text().remove(u'&'), QStringLiteral("Run now"));
}

// Ctrl+Shift+D and Ctrl+Shift+M switch tabs, F6 puts the focus in the queue
// sidebar; the shortcuts list names them.
void TestMainWindow::keyboardReachesTheTabsAndTheSidebar() {
    QTemporaryDir dir;
    const QString path = copyFixture(dir, kMixed);
    Harness h;
    QVERIFY(openAndWait(h, path));
    h.w.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&h.w));
    QTest::keySequence(&h.w, QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_D));
    QCOMPARE(h.w.tabs()->currentWidget(), static_cast<QWidget*>(h.w.dashboard()));
    QTest::keySequence(&h.w, QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_M));
    QCOMPARE(h.w.tabs()->currentWidget(), static_cast<QWidget*>(h.w.messagesPage()));
    QTest::keySequence(&h.w, QKeySequence(Qt::Key_F6));
    QTRY_VERIFY(h.w.sidebar()->view()->hasFocus());
}

// The attention banner's place is kept from the open on: the first rows are
// painted where they stay when it comes, follows the counts, or goes.
void TestMainWindow::theAttentionBannerNeverMovesTheTable() {
    QTemporaryDir dir;
    const QString path = copyFixture(dir, kMixed);
    Harness h;
    const auto tableTop = [&h] {
        QCoreApplication::sendPostedEvents(); // pending relayouts
        return h.w.view()->mapTo(&h.w, QPoint(0, 0)).y();
    };
    int atFirstRows = -1;
    QObject::connect(h.model(), &MessageModel::firstRowsShown, &h.w,
                     [&] { atFirstRows = tableTop(); });
    QVERIFY(openAndWait(h, path));
    lq::ui::BannerBar* bar = h.w.bannerBar();
    const QString key = QStringLiteral("attention");
    QTRY_VERIFY(bar->hasBanner(key));
    QVERIFY(atFirstRows >= 0);
    QCOMPARE(tableTop(), atFirstRows);
    bar->removeBanner(key); // nothing needs attention any more
    QVERIFY(!bar->hasBanner(key));
    QCOMPARE(tableTop(), atFirstRows);
}

// A report is modal to the window (never left behind to come back stale)
// and says why rows were skipped in its text, not only under Show Details.
void TestMainWindow::theReportSaysWhyAndCannotBeClickedThrough() {
    QWidget parent;
    parent.show();
    lq::ui::ActionReport rep;
    rep.title = QStringLiteral("Retry");
    rep.applied = 1;
    rep.skipped = 4;
    rep.skippedLines = {QStringLiteral("7: is concurrency-limited (concurrency_key set)"),
                        QStringLiteral("8: gone"), QStringLiteral("9: gone"),
                        QStringLiteral("10: gone")};
    lq::ui::showReportDialog(rep, &parent);
    auto* box = parent.findChild<QMessageBox*>(QStringLiteral("actionReport"));
    QVERIFY(box);
    QCOMPARE(box->windowModality(), Qt::WindowModal);
    QVERIFY2(box->informativeText().contains(QStringLiteral("is concurrency-limited")),
             qPrintable(box->informativeText()));
    QVERIFY(box->informativeText().contains(QStringLiteral("and 1 more")));
    box->close();
}

// At 1024x700 the toolbar keeps the actions on the selection and Undo in
// view (the rest go behind its overflow button) and the queue combo shows
// its longest name whole.
void TestMainWindow::aSmallWindowKeepsTheMainActionsAndTheQueueName() {
    QTemporaryDir dir;
    const QString path = copyFixture(dir, QStringLiteral("formats/oban-lite.sqlite3"));
    Harness h;
    h.w.resize(1024, 700);
    QVERIFY(openAndWait(h, path));
    QCoreApplication::sendPostedEvents();
    auto* tb = h.w.findChild<QToolBar*>(QStringLiteral("mainToolBar"));
    QVERIFY(tb);
    for (const char* name : {"open", "retry", "markFailed", "release", "delete", "undo"}) {
        QAction* a = h.w.action(QString::fromLatin1(name));
        QVERIFY2(a, name);
        QWidget* b = tb->widgetForAction(a);
        QVERIFY2(b && b->isVisible(), name);
        QVERIFY2(tb->rect().contains(b->geometry()), name);
    }
    auto* combo = h.w.findChild<QComboBox*>(QStringLiteral("queueFilter"));
    QVERIFY(combo && combo->isVisible());
    QVERIFY2(
        combo->width() >= combo->sizeHint().width(),
        qPrintable(QStringLiteral("%1 < %2").arg(combo->width()).arg(combo->sizeHint().width())));
}

void TestMainWindow::deletedAndReplacedFileBanners() {
    QTemporaryDir dir;
    const QString path = copyFixture(dir, QStringLiteral("litequeue-head-maxsize.sqlite3"));
    const QString other = dir.filePath(QStringLiteral("other.sqlite3"));
    QVERIFY(QFile::copy(path, other));
    Harness h;
    QVERIFY(openAndWait(h, path));
    QVERIFY(!h.w.bannerBar()->hasBanner(QStringLiteral("file")));
    // Atomic replacement (rename over it), as a deploy script would do.
    QVERIFY(::rename(other.toLocal8Bit().constData(), path.toLocal8Bit().constData()) == 0);
    QTRY_VERIFY_WITH_TIMEOUT(h.w.bannerBar()->hasBanner(QStringLiteral("file")), 4000);
    QVERIFY(
        h.w.bannerBar()->bannerText(QStringLiteral("file")).contains(QStringLiteral("replaced")));
    h.w.reopen();
    QTRY_VERIFY_WITH_TIMEOUT(!h.w.bannerBar()->hasBanner(QStringLiteral("file")), 4000);
    QTRY_VERIFY(h.w.isReady() && h.model()->rowCount() == 37);
    QVERIFY(QFile::remove(path));
    QTRY_VERIFY_WITH_TIMEOUT(h.w.bannerBar()->hasBanner(QStringLiteral("file")), 4000);
    QVERIFY(
        h.w.bannerBar()->bannerText(QStringLiteral("file")).contains(QStringLiteral("deleted")));
    QCOMPARE(h.model()->rowCount(), 37); // still showing what was read
}

void TestMainWindow::noWritesToADeletedFile() {
    // The fault: with the banner saying the file was deleted, Retry
    // expired…, Prune…, Vacuum and Enqueue… stayed enabled, and Retry
    // expired ran against the deleted file.
    QTemporaryDir dir;
    const QString path = copyFixture(dir, kMixed);
    Harness h;
    QVERIFY(openAndWait(h, path));
    const QStringList writes = {QStringLiteral("retryExpired"), QStringLiteral("prune"),
                                QStringLiteral("vacuum"), QStringLiteral("enqueue"),
                                QStringLiteral("undo")};
    for (const QString& name : writes) {
        QVERIFY2(h.w.action(name)->isEnabled(), qPrintable(name));
    }
    // Keep the deleted file's inode alive, as a worker holding it open would.
    QFile held(path);
    QVERIFY(held.open(QIODevice::ReadOnly));
    QVERIFY(QFile::remove(path));
    QTRY_VERIFY_WITH_TIMEOUT(h.w.bannerBar()->hasBanner(QStringLiteral("file")), 4000);
    QVERIFY(h.w.fileGone());
    for (const QString& name : writes) {
        QVERIFY2(!h.w.action(name)->isEnabled(), qPrintable(name));
    }
    QVERIFY(!h.w.action(QStringLiteral("retry"))->isEnabled());
    QVERIFY(h.w.action(QStringLiteral("reopen"))->isEnabled());
    // Called anyway (a shortcut, a script): refused, nothing asked, nothing written.
    const int asked = h.questions.size();
    h.w.retryExpired(std::chrono::seconds(1));
    QCOMPARE(h.questions.size(), asked);
    QVERIFY(h.w.lastError().contains(QStringLiteral("deleted")));
    QVERIFY(!QFile::exists(path));
}

void TestMainWindow::fitsASmallLaptopScreen() {
    // A 1366x768 laptop with room to spare (the window could not be made
    // smaller than 1016x584, and then cut the chips: "eady 1,27").
    QTemporaryDir dir;
    const QString path = copyFixture(dir, kMixed);
    Harness h;
    QVERIFY(openAndWait(h, path));
    const QSize min = h.w.minimumSizeHint().expandedTo(h.w.minimumSize());
    // (With two banners shown: the legacy format and the attention banner.)
    QVERIFY2(min.width() <= 1000 && min.height() <= 680,
             qPrintable(QStringLiteral("%1x%2").arg(min.width()).arg(min.height())));
    // Narrow, the chips wrap instead of squashing their labels.
    h.w.resize(900, 600);
    QTRY_VERIFY(h.w.filterBar()->button(StatusFilterBar::Failed)->isVisible());
    for (auto c : {StatusFilterBar::All, StatusFilterBar::Ready, StatusFilterBar::Locked,
                   StatusFilterBar::Stuck, StatusFilterBar::Done, StatusFilterBar::Failed}) {
        QToolButton* b = h.w.filterBar()->button(c);
        QVERIFY2(b->width() >= b->sizeHint().width(), qPrintable(b->text()));
    }
}

void TestMainWindow::countsOfAMillionKeepTheChipsOnOneLine() {
    // The chips take the room they need and the search box the rest: at
    // lqadmin's default width seven-digit counts do not wrap them, so the table below
    // does not move (and repaint whole) when the counts of a big file come.
    QTemporaryDir dir;
    const QString path = copyFixture(dir, kMixed);
    Harness h;
    QVERIFY(openAndWait(h, path));
    // The page as wide as in lqadmin's default window under a desktop
    // (1,096 px: here the docks take more of the harness's 1,400).
    h.w.resize(h.w.width() + 1096 - h.w.messagesPage()->width(), h.w.height());
    QTRY_COMPARE(h.w.messagesPage()->width(), 1096);
    StatusFilterBar* bar = h.w.filterBar();
    const int barHeight = bar->height();
    QVERIFY(barHeight < 2 * bar->button(StatusFilterBar::All)->height()); // one line
    lq::core::Counts big;
    big.ready = 1'283'415;
    big.locked = 1'204;
    big.stuck = 1'204;
    big.done = 8'466'092;
    big.failed = 1'021'084;
    big.stored = big.ready + big.locked + big.done + big.failed;
    bar->setCounts(big);
    QTRY_COMPARE(bar->button(StatusFilterBar::Done)->text().contains(QStringLiteral("466")), true);
    QApplication::processEvents(); // the layout request
    QApplication::processEvents();
    const int y = bar->button(StatusFilterBar::All)->y();
    for (auto c : {StatusFilterBar::Ready, StatusFilterBar::Locked, StatusFilterBar::Stuck,
                   StatusFilterBar::Done, StatusFilterBar::Failed}) {
        QToolButton* b = bar->button(c);
        QVERIFY2(b->y() == y && b->width() >= b->sizeHint().width(),
                 qPrintable(QStringLiteral("%1 at y %2 (the first chip at %3)")
                                .arg(b->text())
                                .arg(b->y())
                                .arg(y)));
    }
    QCOMPARE(bar->height(), barHeight); // one line still: the table stays where it is
    QVERIFY(h.w.messagesPage()->findChild<QLineEdit*>(QStringLiteral("search"))->width() >= 160);
}

void TestMainWindow::pruneAgeInMinutes() {
    lq::ui::PruneDialog dlg;
    dlg.setOlderThanSeconds(60); // "1 m" stays one minute
    QCOMPARE(dlg.olderThan().value_or(std::chrono::nanoseconds{-1}),
             std::chrono::nanoseconds(std::chrono::seconds(60)));
    dlg.setOlderThanSeconds(2 * 86400);
    QCOMPARE(dlg.olderThan().value_or(std::chrono::nanoseconds{-1}),
             std::chrono::nanoseconds(std::chrono::hours(48)));
    dlg.setOlderThanSeconds(std::nullopt);
    QVERIFY(!dlg.olderThan());
    // On a format whose library prunes by its own rule, the dialog says so.
    const auto* oban = lq::core::QueueFormat::byId("oban-lite");
    QVERIFY(oban);
    dlg.setLibraryRule(QString::fromStdString(oban->pruneText()));
    const auto labels = dlg.findChildren<QLabel*>();
    QVERIFY(std::any_of(labels.begin(), labels.end(), [](const QLabel* l) {
        return l->text().contains(QStringLiteral("Oban's Pruner"));
    }));
}

void TestMainWindow::jobsLeaseFile() {
    QTemporaryDir dir;
    const QString path = copyFixture(dir, QStringLiteral("seed-jobs-leases.sqlite3"));
    Harness h;
    QVERIFY(openAndWait(h, path));
    QCOMPARE(h.model()->rowCount(), 16);
    QVERIFY(h.w.filterBar()->button(StatusFilterBar::Scheduled)->isVisibleTo(&h.w));
    QVERIFY(!h.w.filterBar()->button(StatusFilterBar::Done)->isVisibleTo(&h.w));
    QTRY_VERIFY(allLoaded(h.model()));
}

void TestMainWindow::upgradeAndVacuum() {
    QTemporaryDir dir;
    const QString path = copyFixture(dir, kMixed);
    Harness h;
    QVERIFY(openAndWait(h, path));
    QVERIFY(h.w.bannerBar()->hasBanner(QStringLiteral("format")));
    int reports = h.w.reportCount();
    h.w.upgradeFile();
    QVERIFY(waitReport(h, reports));
    QCOMPARE(h.w.reportCount(), reports + 1);
    QVERIFY2(h.w.lastReport().error.isEmpty(), qPrintable(h.w.lastReport().error));
    QVERIFY(h.questions.value(0).contains(QStringLiteral("Stop every worker")));
    // Reopened as 0.14: no legacy banner, LOCKED rows became READY.
    QTRY_VERIFY_WITH_TIMEOUT(!h.w.bannerBar()->hasBanner(QStringLiteral("format")), 5000);
    QTRY_VERIFY(h.w.isReady());
    QCOMPARE(Queue::open(path.toStdString())->info().format,
             lq::core::QueueFormat::byId("litequeue-0.14"));
    QTRY_COMPARE(h.model()->counts().locked, std::int64_t(0));
    QCOMPARE(h.model()->rowCount(), 400);

    reports = h.w.reportCount();
    h.w.vacuum();
    QVERIFY(waitReport(h, reports));
    QCOMPARE(h.w.reportCount(), reports + 1);
    QVERIFY2(h.w.lastReport().error.isEmpty(), qPrintable(h.w.lastReport().error));
    QTRY_VERIFY(h.w.isReady());
    QCOMPARE(h.model()->rowCount(), 400);
}

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
