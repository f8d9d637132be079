// SPDX-License-Identifier: MIT
#pragma once

#include "core/query.h"
#include "ui/messagemodel.h"

#include <QAbstractItemView>
#include <QSet>
#include <QTimer>
#include <QWidget>

#include <optional>

class QAction;
class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QTableView;
class QVBoxLayout;

namespace lq::ui {

class BusyRow;
class EmptyState;

class MessageDetailPane;
class QueueActionHandler;
class QueueDocument;
class RowWindowScroller;
class StatusFilterBar;

/// The Messages tab (compare hotspot's ResultsPage): the status chips, the
/// search and the stuck threshold, what the dashboard narrowed the table to,
/// the message table and the detail pane (which the window docks). It turns
/// its controls into the model's filter, keeps the current message across
/// refreshes and remembers each file's filter, search, sort and columns.
class MessagesPage : public QWidget {
    Q_OBJECT
public:
    MessagesPage(QueueDocument* document, MessageModel* model, QueueActionHandler* actions,
                 QWidget* parent = nullptr);
    ~MessagesPage() override;

    QTableView* view() const { return m_view; }
    /// Scrolls to ordering position `pos` (the model may show a window of the
    /// ordering); the view row it is in, -1 when there is none.
    int showPosition(int pos, QAbstractItemView::ScrollHint hint);
    StatusFilterBar* filterBar() const { return m_filterBar; }
    QLineEdit* searchEdit() const { return m_search; }
    /// The condition on a JSON field of the job (core/jsonwhere.h).
    QLineEdit* whereEdit() const { return m_where; }
    /// The named-queue filter (shown for formats with named queues).
    QComboBox* queueCombo() const { return m_queueCombo; }
    /// The named queue the table is narrowed to ("": all).
    QString queueFilter() const { return m_queue; }
    QSpinBox* stuckSpinBox() const { return m_stuckSpin; }
    /// The detail pane: created here, docked by the window.
    MessageDetailPane* detailPane() const { return m_detail; }

    /// A file was opened: `samePath` keeps the place, the selection and the
    /// narrowing; another file restores its own view settings.
    void documentOpened(bool samePath);
    /// Nothing is shown any more.
    void documentClosed();
    /// Selects (and scrolls to) a message once the table shows it.
    void selectMessage(const QString& messageId);
    void setUtc(bool utc);
    /// The message ids of the selected rows that are loaded.
    QStringList selectedMessageIds() const;
    void focusSearch();
    /// "12 shown", or "3 of 12 shown" while the filter leaves out some of
    /// the file's (or the chosen named queue's) messages.
    QString rowsText() const;
    /// Shows or hides a column this format has, for this file (the header
    /// menu's toggle).
    void setColumnShown(int column, bool shown);
    /// Narrows the table to the named queue `name` ("": every queue), as
    /// picking it in the queue combo does.
    void setQueueFilter(const QString& name);
    /// The dashboard narrowed the table to a time range, or to a histogram
    /// bar's band (within its range).
    void narrowToRange(std::optional<qint64> from, std::optional<qint64> to);
    void narrowToBand(const core::Filter& band);
    /// Keeps the current message by id across a change that restarts the
    /// ordering (a vacuum).
    void rememberCurrent();

signals:
    /// The stuck threshold changed (seconds).
    void stuckThresholdChanged(int seconds);
    /// The first page of a newly opened file is on screen.
    void firstPageShown(qint64 msSinceOpen);

protected:
    /// Ctrl+End while only a reset's first page is shown (m_endPending).
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    /// The Stuck after box: enabled where the operator's threshold is the
    /// rule, with a tooltip that says which rule counts.
    void updateStuckThreshold();
    /// After an open, the first rows in the model: firstPageShown().
    void checkFirstPage();
    void createWidgets();
    void connectModel();
    void applyFilter();
    /// The row of the JSON field filter (core/jsonwhere.h) under the chips.
    void createWhereRow(QVBoxLayout* pageLayout);
    /// Shows it (focused) or hides it, dropping its condition.
    void showWhereRow(bool show);
    /// The JSON condition typed, "" while it does not parse (marked so).
    std::string whereCondition();
    void updateNarrowRow();
    void applyColumnSet();
    /// Whether the open file's format has what `column` shows.
    bool formatHasColumn(int column) const;
    void showHeaderMenu(const QPoint& pos);
    /// Reads the file's queue names in a worker and fills the queue combo.
    void fetchQueueNames();
    void fillQueueCombo(const QStringList& names);
    void restoreCurrent();
    void onCurrentChanged();
    void showContextMenu(const QPoint& pos);
    /// The filter, search, sort and columns of this file, kept per file.
    /// The id column fitted to the first rows, once per file seen anew.
    void fitIdColumn();
    void rememberView();
    void restoreView();
    /// What the table says when it shows no rows (EmptyState).
    void updateEmptyState();

    QueueDocument* m_doc;
    MessageModel* m_model;
    QueueActionHandler* m_actions;

    StatusFilterBar* m_filterBar = nullptr;
    QLineEdit* m_search = nullptr;
    QLineEdit* m_where = nullptr;
    QWidget* m_whereRow = nullptr;
    QAction* m_whereAction = nullptr;
    QString m_whereHelp;
    QComboBox* m_queueCombo = nullptr;
    QString m_queue;              ///< the chosen named queue ("": all)
    QStringList m_queueNames;     ///< as the file last listed them
    bool m_fetchingNames = false; ///< a queueNames() job is running
    QSpinBox* m_stuckSpin = nullptr;
    QWidget* m_narrowRow = nullptr;
    QLabel* m_narrowLabel = nullptr;
    BusyRow* m_busyRow = nullptr;
    QTableView* m_view = nullptr;
    EmptyState* m_empty = nullptr;
    QString m_openError; ///< the last failed open, while no file is open
    MessageDetailPane* m_detail = nullptr;
    QTimer m_searchDebounce;

    std::optional<qint64> m_rangeFrom, m_rangeTo; ///< from the dashboard's time range
    std::optional<core::Filter> m_band;           ///< a clicked histogram bar
    bool m_utc = false;
    bool m_firstPagePending = false;
    /// Ctrl+End was pressed while the rows shown were a reset's first page:
    /// the last row is the ordering's, once it is there.
    bool m_endPending = false;
    QString m_restoreId;     ///< current message across a model reset
    QString m_pendingSelect; ///< selectMessage() before the file was open
    int m_restoreScroll = 0;
    int m_restorePosition = 0; ///< ordering position at the top, across a reset
    RowWindowScroller* m_scroller = nullptr;
    bool m_topOnNextReset = false; ///< a new filter opens at the top
    bool m_keepTop = false;        ///< m_restoreId is selected without scrolling to it
    bool m_restoringView = false;  ///< restoreView() is setting the widgets
    bool m_fitIdColumn = false;    ///< size the id column to the first rows
    int m_sortColumn = MessageModel::MessageId;
    QSet<int> m_userHidden; ///< columns the operator hid in this file
    Qt::SortOrder m_sortOrder = Qt::AscendingOrder;
};

} // namespace lq::ui
