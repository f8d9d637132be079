// SPDX-License-Identifier: MIT
#pragma once

#include "core/actions.h"
#include "core/format.h"
#include "core/operator.h"
#include "ui/messagemodel.h"
#include "ui/statusfilterbar.h"

#include <QElapsedTimer>
#include <QMainWindow>
#include <QPointer>
#include <QTimer>

#include <functional>
#include <memory>
#include <optional>
#include <vector>

class QAction;
class QLabel;
class QLineEdit;
class QMenu;
class QSpinBox;
class QTableView;
class QTabWidget;

namespace lq::core {
class Queue;
}

namespace lq::ui {

class BannerBar;
class DashboardWidget;
class FleetModel;
class MessageDetailPane;
class QueueSidebar;

/// The lqadmin main window: the sidebar of queues (files opened and watched
/// folders, with live counts and health), the open queue's message table with
/// the status filter and search, the detail pane, the operator actions and
/// the banners and status bar that say what state the file is in.
///
/// Every lqcore call runs in a worker; the window only ever holds results.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    /// Asked before every write: the question and the exact number of
    /// messages it touches (-1 when not about messages). Return true to go
    /// ahead. Tests install one instead of clicking modal dialogs.
    using ConfirmHandler = std::function<bool(const QString& text, qint64 count)>;

    /// What an action did, as shown in the result report.
    struct ActionReport {
        QString title;
        qint64 applied = 0;
        qint64 skipped = 0;
        qint64 notAttempted = 0;
        bool cancelled = false;
        QString error;            ///< what stopped it (nothing applied, or part of it)
        QString notice;           ///< nothing to do: information, not a failure
        QString skippedByReason;  ///< "changed since shown 10, gone 2"
        QStringList appliedIds;   ///< message ids changed
        QStringList skippedLines; ///< "id: reason"
        QStringList noteLines;    ///< "id: restored without its idempotency key ..."
        QString recordId;         ///< the audit record written
        QString summary() const;
    };
    using ReportHandler = std::function<void(const ActionReport&)>;

    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    /// Opens one file (in a worker; the window updates when it is open) and
    /// lists it in the sidebar.
    void openFile(const QString& path);
    /// Lists every file in the sidebar and opens the first.
    void openFiles(const QStringList& paths);
    /// Opens one queue table of a file (a litequeue ≤ 0.9 file holds several;
    /// empty: the file's only queue).
    void openQueue(const QString& path, const QString& table = {});
    /// Lists every queue file of `dir` in the sidebar and follows it.
    void watchFolder(const QString& dir);
    QString currentPath() const { return m_path; }
    QString currentTable() const { return m_table; }
    /// Selects (and scrolls to) a message once the table shows it.
    void selectMessage(const QString& messageId);
    /// A queue is open and its first ordering is shown.
    bool isReady() const;
    /// An open or an action is still running.
    bool isBusy() const { return m_busyJobs > 0; }
    QStringList recentFiles() const { return m_recent; }

    MessageModel* model() const { return m_model; }
    QTableView* view() const { return m_view; }
    MessageDetailPane* detailPane() const { return m_detail; }
    StatusFilterBar* filterBar() const { return m_filterBar; }
    BannerBar* bannerBar() const { return m_banners; }
    QLineEdit* searchEdit() const { return m_search; }
    QSpinBox* stuckSpinBox() const { return m_stuckSpin; }
    QAction* action(const QString& name) const;
    FleetModel* fleetModel() const { return m_fleet; }
    DashboardWidget* dashboard() const { return m_dashboard; }
    QTabWidget* tabs() const { return m_tabs; }
    QueueSidebar* sidebar() const { return m_sidebar; }

    void setConfirmHandler(ConfirmHandler handler) { m_confirm = std::move(handler); }
    void setReportHandler(ReportHandler handler) { m_report = std::move(handler); }
    ActionReport lastReport() const { return m_lastReport; }
    int reportCount() const { return m_reportCount; }
    QString lastError() const { return m_lastError; }

    /// Actions apply to every message matching the filter, not the selection.
    void setApplyToAllMatching(bool on);
    bool applyToAllMatching() const;
    bool readOnlyMode() const;
    /// The file was deleted, replaced or moved since it was opened: every
    /// write action is off until it is reopened.
    bool fileGone() const { return m_fileGone; }
    void setReadOnlyMode(bool on);

signals:
    /// A queue was picked in the sidebar (the window opens it too).
    void queueActivated(const QString& path, const QString& table);

public slots:
    void retrySelected();
    void markFailedSelected();
    /// Lease queues: release the selected jobs (run now), reschedule them
    /// `delaySeconds` from now, or delete them (the seed's finish()).
    void releaseSelected();
    void rescheduleSelected(double delaySeconds);
    void deleteSelected();
    void retryExpired(double thresholdSeconds);
    void prune(std::optional<double> olderThanSeconds, bool includeFailed);
    void vacuum();
    void enqueue(const QString& payload, const QString& idempotencyKey);
    void upgradeFile();
    void undoLastAction();
    void refresh();
    /// Reopens the current file (after it was replaced, or to switch modes).
    void reopen();
    /// Help › Keyboard shortcuts: every action with a shortcut.
    void showShortcuts();
    /// A skipped file picked in the sidebar: no queue is shown, the banner
    /// says why (instead of the previous queue staying on screen).
    void showSkipped(const QString& path, const QString& reason);

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    struct OpenResult;
    using PlanReady = std::function<void(core::Plan plan)>;

    void createActions();
    void createMenus();
    void createWidgets();
    void restoreSettings();
    void saveSettings();
    void addRecent(const QString& path);
    void rebuildRecentMenu();
    void openWith(const QString& path, bool readOnly, const QString& table = {});
    void applyColumnSet();
    void onOpened(OpenResult&& r);
    void updateTitle();
    void updateBanners();
    void updateStatusBar();
    void updateActions();
    void applyFilter();
    void updateNarrowRow();
    void onFileStateChanged(MessageModel::FileState state);
    void onCurrentChanged();
    void rememberCurrent();
    void restoreCurrent();
    void showContextMenu(const QPoint& pos);
    /// The filter, search, sort and columns of this file, kept per file.
    void rememberView();
    void restoreView();
    /// After an open: a banner with one click to the stuck (or failed) messages.
    void offerAttention(const core::Counts& c);

    bool checkWritable();
    bool confirm(const QString& text, qint64 count);
    /// The selection's (id, token) pairs as the user saw them, or every
    /// match of the (pinned) filter when "apply to all" is on; in a worker
    /// when lqcore must be asked.
    void preparePlan(core::Action action, const PlanReady& ready);
    void runRowAction(core::Action action, double delaySeconds = 0);
    /// Runs a confirmed plan (or an undo when `undo` is set) in a worker,
    /// through core::Operator, with progress and cancel for long ones.
    void runPlan(core::Plan plan, const QString& title,
                 std::optional<core::AuditEntry> undo = std::nullopt);

    void finishReport(const ActionReport& report);
    void showError(const QString& text, bool dialog = true);
    QString fileName() const;

    std::shared_ptr<core::Queue> m_queue;
    core::FormatInfo m_info;
    bool m_queueReadOnly = false;
    bool m_fileGone = false; ///< deleted, replaced or moved: every write is off
    QString m_path;
    QString m_table; ///< the queue table asked for (multi files)
    quint64 m_openGeneration = 0;
    int m_busyJobs = 0;
    QElapsedTimer m_openClock;
    bool m_firstPagePending = false;

    MessageModel* m_model;
    FleetModel* m_fleet;
    QueueSidebar* m_sidebar = nullptr;
    QTableView* m_view = nullptr;
    QTabWidget* m_tabs = nullptr;
    DashboardWidget* m_dashboard = nullptr;
    QWidget* m_narrowRow = nullptr;
    QLabel* m_narrowLabel = nullptr;
    std::optional<qint64> m_rangeFrom, m_rangeTo; ///< from the dashboard's time range
    std::optional<core::Filter> m_band;           ///< a clicked histogram bar
    bool m_detailWasVisible = true;
    bool m_addToSidebarOnOpen = false;
    MessageDetailPane* m_detail = nullptr;
    StatusFilterBar* m_filterBar = nullptr;
    BannerBar* m_banners = nullptr;
    QLineEdit* m_search = nullptr;
    QSpinBox* m_stuckSpin = nullptr;
    QTimer m_searchDebounce;

    QLabel* m_formatLabel = nullptr;
    QLabel* m_journalLabel = nullptr;
    QLabel* m_walLabel = nullptr;
    QLabel* m_rowsLabel = nullptr;
    QLabel* m_refreshLabel = nullptr;

    QHash<QString, QAction*> m_actions;
    QMenu* m_recentMenu = nullptr;
    QStringList m_recent;

    ConfirmHandler m_confirm;
    ReportHandler m_report;
    ActionReport m_lastReport;
    int m_reportCount = 0;
    QString m_lastError;

    QString m_restoreId;     ///< current message across a model reset
    QString m_pendingSelect; ///< selectMessage() before the file was open
    int m_restoreScroll = 0;
    bool m_topOnNextReset = false;   ///< a new filter opens at the top
    bool m_restoringView = false;    ///< restoreView() is setting the widgets
    bool m_attentionPending = false; ///< the first counts of a new file decide the banner
    int m_sortColumn = MessageModel::MessageId;
    Qt::SortOrder m_sortOrder = Qt::AscendingOrder;
};

} // namespace lq::ui
