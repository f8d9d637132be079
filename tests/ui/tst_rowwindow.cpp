// SPDX-License-Identifier: MIT
// An ordering longer than the message model's window (MessageModel::
// kWindowRows; here a window of 1,000 rows over 5,000 messages): the page's
// own scroll bar spans every row, keys and scrolling reach every row, the
// selection and the rows on screen stay put while the window moves and while
// another connection changes the queue, and a located message is brought
// into the window.

#include "core/queue.h"
#include "testhelpers.h"
#include "ui/confirmdialog.h"
#include "ui/mainwindow.h"
#include "ui/messagemodel.h"
#include "ui/messagespage.h"
#include "ui/rowcache.h"
#include "ui/statusfilterbar.h"
#include "windowharness.h"

#include <QAbstractItemModelTester>
#include <QItemSelectionModel>
#include <QLineEdit>
#include <QLocale>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

using lq::core::Queue;
using lq::ui::MessageModel;
using namespace lq::test;

namespace {

constexpr int kMessages = 5000;
constexpr int kWindow = 1000;

struct Harness : WindowHarness {
    QScrollBar* bar() const { return w.findChild<QScrollBar*>(QStringLiteral("rowWindowBar")); }
    QTableView* view() const { return w.view(); }
    /// Ordering position of the row at the top of the viewport.
    int top() const { return model()->windowStart() + std::max(0, view()->rowAt(0)); }
    /// The message id at ordering position `pos`, which must be in the window.
    QString idAtPosition(int pos) const {
        const int row = pos - model()->windowStart();
        if (row < 0 || row >= model()->rowCount())
            return QStringLiteral("(position %1 outside the window)").arg(pos);
        if (!waitFor([&] { return rowLoaded(model(), row); }, kWaitMs))
            return QStringLiteral("(row never loaded)");
        return idAt(model(), row);
    }
    /// Ordering position of the current row (-1: none).
    int currentPosition() const {
        const QModelIndex cur = view()->currentIndex();
        return cur.isValid() ? model()->windowStart() + cur.row() : -1;
    }
};

/// Counts the events of one type a widget gets.
class EventCounter : public QObject {
public:
    EventCounter(QObject* target, QEvent::Type type, int* count)
        : m_type(type)
        , m_count(count) {
        target->installEventFilter(this);
    }
    bool eventFilter(QObject* o, QEvent* e) override {
        if (e->type() == m_type)
            ++*m_count;
        return QObject::eventFilter(o, e);
    }

private:
    QEvent::Type m_type;
    int* m_count;
};

} // namespace

class TestRowWindow : public QObject {
    Q_OBJECT

    QTemporaryDir m_tmp;
    QString m_path;
    QStringList m_ids; ///< every message id in rowid order (the table's)

    /// A fresh copy of the 5,000-message queue, open in `h` through a
    /// 1,000-row window.
    [[nodiscard]] bool open(Harness& h, QString* path = nullptr) {
        static int n = 0;
        const QString copy = m_tmp.filePath(QStringLiteral("copy%1.sqlite3").arg(++n));
        // The main file and its WAL (the creating connection may not have
        // checkpointed it).
        for (const QString& suffix : {QString(), QStringLiteral("-wal")})
            if (QFile::exists(m_path + suffix) && !QFile::copy(m_path + suffix, copy + suffix))
                return false;
        if (path)
            *path = copy;
        h.model()->setWindowRows(kWindow);
        if (!h.openAndWait(copy))
            return false;
        if (waitFor([&] { return h.model()->isIdle() && h.model()->orderedRows() == kMessages; },
                    Harness::kWaitMs))
            return true;
        qWarning("%d rows in the ordering, idle %d, stored %lld, %s", h.model()->orderedRows(),
                 h.model()->isIdle(), static_cast<long long>(h.model()->counts().stored),
                 qPrintable(copy));
        return false;
    }

private slots:
    void initTestCase() {
        QVERIFY(m_tmp.isValid());
        qputenv("LQ_AUDIT_DIR", m_tmp.filePath(QStringLiteral("audit")).toUtf8());
        m_path = m_tmp.filePath(QStringLiteral("five-thousand.sqlite3"));
        {
            auto q = Queue::create(m_path.toStdString());
            std::vector<lq::core::PutItem> items(kMessages);
            for (std::size_t i = 0; i < items.size(); ++i)
                items[i].data = "payload " + std::to_string(i);
            q->putMany(items);
            for (const auto& m : q->list({}, {}, 0, -1))
                m_ids << QString::fromStdString(m.messageId);
        }
        QCOMPARE(m_ids.size(), kMessages);
    }

    void barSpansTheOrdering() {
        Harness h;
        QAbstractItemModelTester tester(h.model());
        QVERIFY(open(h));
        QCOMPARE(h.model()->rowCount(), kWindow);
        QVERIFY(h.model()->isWindowed());
        QVERIFY(h.bar() && h.bar()->isVisible());
        QCOMPARE(h.view()->verticalScrollBarPolicy(), Qt::ScrollBarAlwaysOff);
        QVERIFY2(h.bar()->maximum() > kMessages - 100 && h.bar()->maximum() < kMessages,
                 qPrintable(QString::number(h.bar()->maximum())));
        QCOMPARE(h.w.messagesPage()->rowsText(),
                 QStringLiteral("%1 shown").arg(QLocale().toString(kMessages)));
        // The bar anywhere: those rows at the top, the window moved to them.
        for (int pos : {2500, 4200, 10, 4999 - 30}) {
            h.bar()->setValue(pos);
            QTRY_COMPARE(h.top(), pos);
            const QString got = h.idAtPosition(pos);
            QVERIFY2(got == m_ids[pos], qPrintable(QStringLiteral("%1: start %2, shown is at %3")
                                                       .arg(pos)
                                                       .arg(h.model()->windowStart())
                                                       .arg(m_ids.indexOf(got))));
            QVERIFY(pos >= h.model()->windowStart() &&
                    pos < h.model()->windowStart() + h.model()->rowCount());
        }
    }

    void aSortKeepsTheBarsWhileItsFirstPageIsShown() {
        // A reset's first page (a few hundred rows) comes ahead of its
        // ordering; switching to the view's own bar for it and back would lay
        // the page out and repaint the whole table twice per sort.
        Harness h;
        QVERIFY(open(h));
        int hides = 0, policyChanges = 0, firstPages = 0;
        EventCounter barHides(h.bar(), QEvent::Hide, &hides);
        connect(h.model(), &MessageModel::firstRowsShown, this, [&] {
            ++firstPages;
            QVERIFY(h.model()->isProvisional());
            QVERIFY(!h.model()->isWindowed()); // what the bar would have followed
            if (h.view()->verticalScrollBarPolicy() != Qt::ScrollBarAlwaysOff)
                ++policyChanges;
        });
        h.view()->sortByColumn(MessageModel::MessageId, Qt::DescendingOrder);
        QTRY_VERIFY(h.model()->isIdle() && !h.model()->isProvisional() &&
                    h.model()->orderedRows() == kMessages);
        QVERIFY2(firstPages > 0, "the sort showed no first page ahead of its ordering");
        QCOMPARE(hides, 0);
        QCOMPARE(policyChanges, 0);
        QVERIFY(h.bar()->isVisible());
        QCOMPARE(h.view()->verticalScrollBarPolicy(), Qt::ScrollBarAlwaysOff);
        QVERIFY(h.bar()->maximum() > kMessages - 100);
        QCOMPARE(h.idAtPosition(0), m_ids.last());
    }

    void aShortOrderingScrollsWithTheSameBar() {
        // Under the window's size the same bar scrolls the view, and the
        // view's own never shows: the table keeps its width whatever the
        // ordering's length.
        Harness h;
        QVERIFY(open(h));
        QLineEdit* search = h.w.findChild<QLineEdit*>(QStringLiteral("search"));
        QVERIFY(search);
        search->setText(QStringLiteral("payload 12")); // 12, 120-129, 1200-1299: 111 rows
        QTRY_VERIFY(h.model()->isIdle() && !h.model()->isProvisional() &&
                    h.model()->orderedRows() == 111);
        QVERIFY(!h.model()->isWindowed());
        QVERIFY(h.bar()->isVisible() && h.bar()->isEnabled());
        QCOMPARE(h.view()->verticalScrollBarPolicy(), Qt::ScrollBarAlwaysOff);
        const int visible = h.view()->viewport()->height() / h.view()->rowHeight(0);
        QCOMPARE(h.bar()->maximum(), 111 - visible);
        h.bar()->setValue(50);
        QTRY_COMPARE(h.top(), 50);
        QCOMPARE(h.model()->windowStart(), 0);
        h.view()->scrollToTop();
        QTRY_COMPARE(h.bar()->value(), 0);
        search->setText(QStringLiteral("payload 4999"));
        QTRY_VERIFY(h.model()->isIdle() && !h.model()->isProvisional() &&
                    h.model()->orderedRows() == 1);
        QVERIFY(h.bar()->isVisible() && !h.bar()->isEnabled());
    }

    void keysReachTheEnds() {
        Harness h;
        QVERIFY(open(h));
        h.view()->setFocus();
        h.view()->setCurrentIndex(h.model()->index(3, MessageModel::MessageId));
        QTest::keyClick(h.view(), Qt::Key_End, Qt::ControlModifier);
        QTRY_COMPARE(h.currentPosition(), kMessages - 1);
        QCOMPARE(h.idAtPosition(kMessages - 1), m_ids.last());
        QTRY_COMPARE(h.bar()->value(), h.bar()->maximum());
        QTest::keyClick(h.view(), Qt::Key_Home, Qt::ControlModifier);
        QTRY_COMPARE(h.currentPosition(), 0);
        QCOMPARE(h.model()->windowStart(), 0);
        QCOMPARE(h.idAtPosition(0), m_ids.first());
        QTRY_COMPARE(h.bar()->value(), 0);
    }

    void theLastPositionIsShownAsTheOrderingArrives() {
        // A reset's ordering of more than MessageModel::kMaxInsertedRows
        // replaces its first page by a model reset, and the view's scroll
        // range stays the page's until its delayed layout: its own
        // scrollTo() stopped at the page's end, and the window's next
        // recentre took that stale top. At a million rows "the last row"
        // showed rows 738,093 on, and a live change to the row asked for
        // never appeared.
        constexpr int kMany = MessageModel::kMaxInsertedRows + 20000;
        constexpr int kBigWindow = MessageModel::kMaxInsertedRows + 10000;
        const QString path = m_tmp.filePath(QStringLiteral("many.sqlite3"));
        {
            auto q = Queue::create(path.toStdString());
            std::vector<lq::core::PutItem> items(kMany);
            for (std::size_t i = 0; i < items.size(); ++i)
                items[i].data = std::to_string(i);
            q->putMany(items);
        }
        Harness h;
        h.model()->setWindowRows(kBigWindow);
        QVERIFY(h.openAndWait(path));
        QTRY_VERIFY(h.model()->isIdle() && h.model()->orderedRows() == kMany);
        h.w.messagesPage()->showPosition(237, QAbstractItemView::PositionAtTop);
        bool asked = false;
        connect(h.model(), &MessageModel::orderingReset, this, [&] {
            if (!asked && !h.model()->isProvisional() && h.model()->orderedRows() == kMany) {
                asked = true;
                h.w.messagesPage()->showPosition(kMany - 1, QAbstractItemView::PositionAtBottom);
            }
        });
        h.view()->sortByColumn(MessageModel::MessageId, Qt::DescendingOrder);
        QTRY_VERIFY(asked && h.model()->isIdle());
        QTest::qWait(50); // the window's recentring, a later turn
        const int last = kMany - 1 - h.model()->windowStart();
        const QRect shown = h.view()->visualRect(h.model()->index(last, 0));
        QVERIFY2(h.view()->viewport()->rect().intersects(shown),
                 qPrintable(QStringLiteral("top %1, window from %2")
                                .arg(h.top())
                                .arg(h.model()->windowStart())));
        QCOMPARE(h.bar()->value(), h.bar()->maximum());
    }

    void theConfirmationCountsTheWholeFilterBeyondTheWindow() {
        // The confirmation's "every job matching the filter" said the
        // window's 262,144 rows on a million-job file, not the million the
        // action would take.
        Harness h;
        QVERIFY(open(h));
        QList<lq::ui::ConfirmRequest> asked;
        h.w.setConfirmHandler([&](lq::ui::ConfirmRequest& r) {
            asked << r;
            return false; // answered Cancel: nothing written
        });
        h.view()->selectionModel()->setCurrentIndex(h.model()->index(3, MessageModel::MessageId),
                                                    QItemSelectionModel::ClearAndSelect |
                                                        QItemSelectionModel::Rows);
        h.w.retrySelected();
        QTRY_COMPARE(asked.size(), 1);
        QCOMPARE(asked[0].selectionCount, qint64(1));
        QCOMPARE(asked[0].filterCount, qint64(kMessages));
        QVERIFY2(asked[0].filterText.contains(QLocale().toString(kMessages)),
                 qPrintable(asked[0].filterText));
    }

    void offScreenRowsGoStaleUntilReadAgain() {
        // A live peek reads the rows on screen; the file's change makes
        // every other cached row stale, shown as it was until its block is
        // read again (as it comes into view), never left stale for good.
        lq::ui::RowCache cache;
        std::vector<lq::ui::MessageRow> rows(3);
        for (int i = 0; i < 3; ++i)
            rows[std::size_t(i)].msg.rowid = i + 1;
        std::vector<lq::ui::MessageRow> block = rows;
        cache.insertBlock(0, block, {1, 2, 3});
        cache.markStaleExcept({2});
        QVERIFY(cache.isStale(1) && !cache.isStale(2) && cache.isStale(3));
        QVERIFY(cache.find(1) != nullptr); // still shown meanwhile
        QVERIFY(cache.replace(rows[0]));   // a poll read it again
        QVERIFY(!cache.isStale(1) && cache.isStale(3));
        block = rows;
        cache.insertBlock(0, block, {1, 2, 3}); // its block read again
        QVERIFY(!cache.isStale(3));
        cache.markStaleExcept({});
        cache.remove(2);
        QVERIFY(!cache.isStale(2));
        cache.clear();
        QVERIFY(!cache.isStale(1) && !cache.isStale(3));
    }

    void pagingDownCrossesTheWindow() {
        Harness h;
        QVERIFY(open(h));
        h.view()->setFocus();
        h.view()->setCurrentIndex(h.model()->index(0, MessageModel::MessageId));
        // Page Down until well past the first window: each current row is the
        // next part of the ordering, never a jump back into the window.
        int last = 0;
        while (h.currentPosition() < 2 * kWindow) {
            QTest::keyClick(h.view(), Qt::Key_PageDown);
            QCoreApplication::processEvents();
            const int pos = h.currentPosition();
            QVERIFY2(pos > last, qPrintable(QStringLiteral("%1 after %2").arg(pos).arg(last)));
            QCOMPARE(h.idAtPosition(pos), m_ids[pos]);
            last = pos;
        }
        QVERIFY(h.model()->windowStart() > 0);
        QCOMPARE(h.bar()->value(), h.top());
        // And back up to the first row.
        while (h.currentPosition() > 0) {
            QTest::keyClick(h.view(), Qt::Key_PageUp);
            QCoreApplication::processEvents();
            const int pos = h.currentPosition();
            QVERIFY(pos < last);
            QCOMPARE(h.idAtPosition(pos), m_ids[pos]);
            last = pos;
        }
    }

    void selectionAndLiveChangesKeepTheirRows() {
        Harness h;
        QString path;
        QVERIFY(open(h, &path));
        // Only READY messages: a worker's claims remove rows before the ones
        // on screen, its new messages add rows after them.
        h.w.filterBar()->setChoice(lq::ui::StatusFilterBar::Ready);
        QTRY_VERIFY(h.model()->isIdle() && h.model()->orderedRows() == kMessages);
        const int row = h.w.messagesPage()->showPosition(3000, QAbstractItemView::PositionAtTop);
        QVERIFY(row >= 0);
        QTRY_COMPARE(h.top(), 3000);
        const QString topId = h.idAtPosition(3000);
        QCOMPARE(topId, m_ids[3000]);
        h.view()->selectionModel()->setCurrentIndex(
            h.model()->index(row + 5, MessageModel::MessageId),
            QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        QCOMPARE(h.w.messagesPage()->selectedMessageIds(), QStringList{m_ids[3005]});

        QSignalSpy resets(h.model(), &QAbstractItemModel::modelReset);
        {
            auto worker = Queue::open(path.toStdString());
            for (int i = 0; i < 100; ++i)
                QVERIFY(worker->pop());
            for (int i = 0; i < 10; ++i)
                worker->put("late " + std::to_string(i));
        }
        QTRY_COMPARE_WITH_TIMEOUT(h.model()->orderedRows(), kMessages - 100 + 10, 10000);
        QTRY_VERIFY(h.model()->isIdle());
        QCOMPARE(resets.count(), 0);
        // The same messages on screen and selected, 100 positions earlier.
        QCOMPARE(h.top(), 2900);
        QCOMPARE(h.idAtPosition(2900), topId);
        QCOMPARE(h.w.messagesPage()->selectedMessageIds(), QStringList{m_ids[3005]});
        QCOMPARE(h.currentPosition(), 2905);
        QVERIFY(h.bar()->maximum() > kMessages - 90 - 100);
    }

    void locatedMessageIsBroughtIntoTheWindow() {
        Harness h;
        QVERIFY(open(h));
        QCOMPARE(h.model()->windowStart(), 0);
        h.w.messagesPage()->selectMessage(m_ids[4321]);
        QTRY_COMPARE(h.currentPosition(), 4321);
        // Listed once its row is loaded.
        QTRY_COMPARE(h.w.messagesPage()->selectedMessageIds(), QStringList{m_ids[4321]});
        const QRect shown = h.view()->visualRect(h.view()->currentIndex());
        QVERIFY(h.view()->viewport()->rect().intersects(shown));
    }
};

QTEST_MAIN(TestRowWindow)
#include "tst_rowwindow.moc"
