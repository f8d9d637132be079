// SPDX-License-Identifier: MIT
#pragma once

#include <QAbstractItemView>
#include <QObject>

class QScrollBar;
class QTableView;

namespace lq::ui {

class MessageModel;

/// The vertical scroll bar of a message table, in place of the view's own:
/// it spans every row of the ordering, where the view's own bar would span
/// the model's window only (MessageModel::kWindowRows). Moving it, or
/// scrolling the view near an edge of the window, moves the window; Ctrl+Home
/// and Ctrl+End go to the ends of the ordering. Always shown, disabled while
/// every row fits the viewport, so the table keeps its width; a reset's first
/// page, shown ahead of its ordering, leaves its range as it was or larger.
class RowWindowScroller : public QObject {
    Q_OBJECT
public:
    /// The bar is a child of `barParent`; the caller places it beside `view`.
    RowWindowScroller(QTableView* view, MessageModel* model, QWidget* barParent);

    QScrollBar* bar() const { return m_bar; }
    /// Ordering position of the row at the top of the viewport.
    int topPosition() const;
    /// Scrolls ordering position `pos` into view (moving the window); the
    /// view row it is shown in, -1 when there is no such position.
    int showPosition(int pos, QAbstractItemView::ScrollHint hint);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    int visibleRows() const;
    int rowHeight() const;
    /// The view row at the top of the viewport, and scrolling it there.
    int viewTop() const;
    void setViewTop(int row);
    /// The bar's range, value and state from the model and the view.
    void sync();
    void onViewScrolled();
    void onBarMoved(int value);
    /// Moves the window around the rows shown, keeping them where they are
    /// on screen.
    void recentre();

    QTableView* m_view;
    /// Compared with, never called: events reach the filter while the view
    /// is being destroyed.
    QWidget* m_viewport;
    MessageModel* m_model;
    QScrollBar* m_bar;
    bool m_syncing = false; ///< setting the bar: not a move of the user's
    bool m_moving = false;  ///< moving the window or the view: not a scroll of the user's
    bool m_recentrePending = false;
};

} // namespace lq::ui
