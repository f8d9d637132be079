// SPDX-License-Identifier: MIT
#include "ui/rowwindowscroller.h"

#include "ui/messagemodel.h"

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QKeyEvent>
#include <QPointer>
#include <QScopedValueRollback>
#include <QScrollBar>
#include <QTableView>
#include <QTimer>

#include <algorithm>
#include <utility>

namespace lq::ui {

RowWindowScroller::RowWindowScroller(QTableView* view, MessageModel* model, QWidget* barParent)
    : QObject(view)
    , m_view(view)
    , m_viewport(view->viewport())
    , m_model(model)
    , m_bar(new QScrollBar(Qt::Vertical, barParent)) {
    m_bar->setObjectName(QStringLiteral("rowWindowBar"));
    // The view's own bar spans the window only, and switching between the
    // two laid the page out again and repainted the whole table (6-12 ms on
    // the UI thread) whenever an ordering crossed the window's size.
    view->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_bar->setEnabled(false);
    connect(model, &QAbstractItemModel::modelReset, this, &RowWindowScroller::sync);
    connect(model, &QAbstractItemModel::layoutChanged, this, &RowWindowScroller::sync);
    connect(model, &QAbstractItemModel::rowsInserted, this, &RowWindowScroller::sync);
    connect(model, &QAbstractItemModel::rowsRemoved, this, &RowWindowScroller::sync);
    // An ordering that only confirms its first page changes no rows.
    connect(model, &MessageModel::orderingReset, this, &RowWindowScroller::sync);
    connect(view->verticalScrollBar(), &QScrollBar::valueChanged, this,
            &RowWindowScroller::onViewScrolled);
    connect(view->verticalScrollBar(), &QScrollBar::rangeChanged, this, &RowWindowScroller::sync);
    connect(m_bar, &QScrollBar::valueChanged, this, &RowWindowScroller::onBarMoved);
    view->installEventFilter(this);
    view->viewport()->installEventFilter(this);
    // A live peek re-reads the rows on screen, none while the table is
    // hidden behind another tab.
    model->setShownRows([v = QPointer<QTableView>(view)]() -> std::pair<int, int> {
        if (!v || !v->isVisible())
            return {0, -1};
        const int first = std::max(0, v->rowAt(0));
        const int last = v->rowAt(v->viewport()->height() - 1);
        return {first, last < 0 ? v->model()->rowCount() - 1 : last};
    });
}

int RowWindowScroller::visibleRows() const {
    return std::max(1, m_view->viewport()->height() / rowHeight());
}

int RowWindowScroller::rowHeight() const {
    return std::max(1, m_view->verticalHeader()->defaultSectionSize());
}

int RowWindowScroller::viewTop() const {
    // From the view's own bar, not rowAt(): right after a layout change the
    // view may not have laid its rows out again yet. Rows are of one height.
    const int v = m_view->verticalScrollBar()->value();
    return m_view->verticalScrollMode() == QAbstractItemView::ScrollPerItem ? v : v / rowHeight();
}

void RowWindowScroller::setViewTop(int row) {
    const QScopedValueRollback guard(m_moving, true);
    m_view->verticalScrollBar()->setValue(
        m_view->verticalScrollMode() == QAbstractItemView::ScrollPerItem ? row : row * rowHeight());
    const QScopedValueRollback sync(m_syncing, true);
    m_bar->setValue(topPosition());
}

int RowWindowScroller::topPosition() const {
    return m_model->windowStart() + viewTop();
}

void RowWindowScroller::sync() {
    const QScopedValueRollback guard(m_syncing, true);
    const int visible = visibleRows();
    const int last = std::max(0, m_model->orderedRows() - visible);
    // A reset's first page, shown ahead of its ordering, says nothing of the
    // ordering's length: the range only grows until the ordering is in (a
    // sort of a million rows would shrink it to a page and back).
    m_bar->setRange(0, m_model->isProvisional() ? std::max(last, m_bar->maximum()) : last);
    m_bar->setEnabled(m_bar->maximum() > 0);
    m_bar->setPageStep(visible);
    m_bar->setSingleStep(m_view->verticalScrollBar()->singleStep());
    m_bar->setValue(topPosition());
}

void RowWindowScroller::onViewScrolled() {
    if (m_moving) {
        return;
    }
    {
        const QScopedValueRollback guard(m_syncing, true);
        m_bar->setValue(topPosition());
    }
    // Near an edge of the window with rows beyond it: the window moves in
    // the next turn, not inside the view's own scrolling.
    const int top = viewTop();
    const int margin = m_model->windowRows() / 4;
    const bool nearTop = top < margin && m_model->windowStart() > 0;
    const bool nearEnd = top + visibleRows() > m_model->rowCount() - margin &&
                         m_model->windowStart() + m_model->rowCount() < m_model->orderedRows();
    if ((nearTop || nearEnd) && !m_recentrePending) {
        m_recentrePending = true;
        QTimer::singleShot(0, this, &RowWindowScroller::recentre);
    }
}

void RowWindowScroller::recentre() {
    m_recentrePending = false;
    if (!m_model->isWindowed()) {
        return;
    }
    const int top = topPosition();
    const QScopedValueRollback guard(m_moving, true);
    m_model->setWindowStart(top - m_model->windowRows() / 2);
    setViewTop(top - m_model->windowStart());
}

void RowWindowScroller::onBarMoved(int value) {
    if (m_syncing) {
        return;
    }
    const int start = m_model->windowStart();
    const QScopedValueRollback guard(m_moving, true);
    if (value < start || value + visibleRows() > start + m_model->rowCount()) {
        m_model->setWindowStart(value - m_model->windowRows() / 2);
    }
    setViewTop(value - m_model->windowStart());
}

int RowWindowScroller::showPosition(int pos, QAbstractItemView::ScrollHint hint) {
    const int row = m_model->rowOfPosition(pos);
    if (row < 0) {
        return row;
    }
    m_view->scrollTo(m_model->index(row, std::max(0, m_view->currentIndex().column())), hint);
    // Right after the window moved, the view's layout is pending and its
    // scrollTo() may not move it: a later recentre then took the stale top
    // and the last row of a million was never shown. Rows are of one
    // height, so the top row that shows `row` is known here.
    const int visible = visibleRows();
    const int top = viewTop();
    int want = top;
    switch (hint) {
    case QAbstractItemView::PositionAtTop:
        want = row;
        break;
    case QAbstractItemView::PositionAtBottom:
        want = row - visible + 1;
        break;
    case QAbstractItemView::PositionAtCenter:
        want = row - visible / 2;
        break;
    case QAbstractItemView::EnsureVisible:
        want = row < top ? row : row >= top + visible ? row - visible + 1 : top;
        break;
    }
    want = std::clamp(want, 0, std::max(0, m_model->rowCount() - visible));
    if (want != top) {
        setViewTop(want);
    }
    return row;
}

bool RowWindowScroller::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_view && event->type() == QEvent::KeyPress && m_model->isWindowed()) {
        // The view would go to the first or last row of the window: the
        // ordering's first or last row instead.
        const auto* key = static_cast<QKeyEvent*>(event);
        if (key->modifiers() == Qt::ControlModifier &&
            (key->key() == Qt::Key_Home || key->key() == Qt::Key_End)) {
            const int row =
                m_model->rowOfPosition(key->key() == Qt::Key_Home ? 0 : m_model->orderedRows() - 1);
            const QModelIndex to =
                m_model->index(row, std::max(0, m_view->currentIndex().column()));
            m_view->selectionModel()->setCurrentIndex(to, QItemSelectionModel::ClearAndSelect |
                                                              QItemSelectionModel::Rows);
            m_view->scrollTo(to);
            return true;
        }
    } else if (watched == m_viewport && event->type() == QEvent::Resize) {
        sync();
    }
    return QObject::eventFilter(watched, event);
}

} // namespace lq::ui
