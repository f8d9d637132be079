// SPDX-License-Identifier: MIT
#pragma once

#include "core/query.h"
#include "ui/messagemodel.h"
#include "ui/queueactionhandler.h"
#include "ui/statusfilterbar.h"

#include <QMainWindow>

#include <optional>
#include <vector>

class QAction;
class QLabel;
class QLineEdit;
class QMenu;
class QSpinBox;
class QTableView;
class QTabWidget;
class QDockWidget;

namespace lq::ui {

class BannerBar;
class DashboardWidget;
class FailuresView;
class ProcessesView;
class RecurringView;
class QueuesView;
class FleetModel;
class MessageDetailPane;
class MessagesPage;
class NamedQueueFilter;
class QueueBanners;
class QueueDocument;
class QueueSidebar;

/// The lqadmin main window. It assembles the parts and owns none of their
/// work: the open queue is a QueueDocument, its operator workflows and their
/// actions a QueueActionHandler, the tabs are pages (MessagesPage, the
/// dashboard), the sidebar lists the queues (files opened and watched
/// folders, with live counts and health). The window keeps the menus, the
/// settings, the banners and the status bar that say what state the file is
/// in.
///
/// Every queue call runs in a worker; the window only ever holds results.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    /// Asked before every write: the question and the exact number of
    /// messages it touches (-1 when not about messages). Return true to go
    /// ahead. Tests install one instead of clicking modal dialogs.
    using ConfirmHandler = QueueActionHandler::ConfirmHandler;
    using SimpleConfirmHandler = QueueActionHandler::SimpleConfirmHandler;
    using ActionReport = lq::ui::ActionReport;
    using ReportHandler = QueueActionHandler::ReportHandler;

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
    QString currentPath() const;
    QString currentTable() const;
    /// Selects (and scrolls to) a message once the table shows it.
    void selectMessage(const QString& messageId);
    /// A queue is open and its first ordering is shown.
    bool isReady() const;
    /// An open or an action is still running.
    bool isBusy() const;
    QStringList recentFiles() const { return m_recent; }

    MessageModel* model() const { return m_model; }
    /// What a named queue's row in the sidebar narrowed the table to.
    NamedQueueFilter* namedQueueFilter() const { return m_namedQueue; }
    QTableView* view() const;
    MessageDetailPane* detailPane() const;
    StatusFilterBar* filterBar() const;
    BannerBar* bannerBar() const { return m_banners; }
    QLineEdit* searchEdit() const;
    QSpinBox* stuckSpinBox() const;
    /// An action by object name, for tests; the code uses typed members.
    QAction* action(const QString& name) const;
    QueueDocument* document() const { return m_doc; }
    QueueActionHandler* actionHandler() const { return m_handler; }
    MessagesPage* messagesPage() const { return m_messages; }
    FleetModel* fleetModel() const { return m_fleet; }
    DashboardWidget* dashboard() const { return m_dashboard; }
    /// The Failures tab: failed jobs grouped by error.
    FailuresView* failuresView() const { return m_failures; }
    /// The Processes tab: the file's workers, alive or dead.
    ProcessesView* processesView() const { return m_processes; }
    /// The Recurring tab: the file's recurring tasks; run one now.
    RecurringView* recurringView() const { return m_recurring; }
    /// The Queues tab: one row per named queue (counts, throughput, wait).
    QueuesView* queuesView() const { return m_queues; }
    QTabWidget* tabs() const { return m_tabs; }
    QueueSidebar* sidebar() const { return m_sidebar; }

    void setConfirmHandler(ConfirmHandler handler);
    void setConfirmHandler(SimpleConfirmHandler handler);
    void setReportHandler(ReportHandler handler);
    ActionReport lastReport() const;
    int reportCount() const;
    QString lastError() const { return m_lastError; }

    bool readOnlyMode() const;
    /// The file was deleted, replaced or moved since it was opened: every
    /// write action is off until it is reopened.
    bool fileGone() const;
    void setReadOnlyMode(bool on);
    /// The Read-only toggle's text says its state ("Read-only: on").
    void showReadOnlyState();

signals:
    /// A queue was picked in the sidebar (the window opens it too).
    void queueActivated(const QString& path, const QString& table);

public slots:
    void retrySelected();
    void markFailedSelected();
    /// Lease queues: release the selected jobs (run now), reschedule them
    /// `delay` from now, or delete them (the seed's finish()).
    void releaseSelected();
    void rescheduleSelected(std::chrono::nanoseconds delay);
    void deleteSelected();
    void retryExpired(std::chrono::nanoseconds threshold);
    void prune(std::optional<std::chrono::nanoseconds> olderThan, bool includeFailed);
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
    void createActions();
    void createMenus();
    void createWidgets();
    void connectParts();
    void restoreSettings();
    void saveSettings();
    void addRecent(const QString& path);
    void rebuildRecentMenu();
    void openWith(const QString& path, bool readOnly, const QString& table = {});
    void onOpened(bool samePath);
    void updateTitle();
    void updateStatusBar();
    void updateActions();
    void onFileStateChanged(MessageModel::FileState state);
    void showError(const QString& text, bool dialog = true);

    QueueDocument* m_doc;
    MessageModel* m_model;
    NamedQueueFilter* m_namedQueue = nullptr;
    FleetModel* m_fleet;
    QueueActionHandler* m_handler;
    QueueSidebar* m_sidebar = nullptr;
    QTabWidget* m_tabs = nullptr;
    MessagesPage* m_messages = nullptr;
    DashboardWidget* m_dashboard = nullptr;
    FailuresView* m_failures = nullptr;
    ProcessesView* m_processes = nullptr;
    RecurringView* m_recurring = nullptr;
    QueuesView* m_queues = nullptr;
    QDockWidget* m_detailDock = nullptr;
    QDockWidget* m_queuesDock = nullptr;
    bool m_detailWasVisible = true;
    bool m_addToSidebarOnOpen = false;
    BannerBar* m_banners = nullptr;
    QueueBanners* m_queueBanners = nullptr;

    QLabel* m_formatLabel = nullptr;
    QLabel* m_journalLabel = nullptr;
    QLabel* m_walLabel = nullptr;
    QLabel* m_rowsLabel = nullptr;
    QLabel* m_refreshLabel = nullptr;

    // The window's own actions (the operator actions are the handler's).
    QAction* m_open = nullptr;
    QAction* m_watchFolder = nullptr;
    QAction* m_openRemote = nullptr;
    QAction* m_openDatabase = nullptr;
    QAction* m_reopen = nullptr;
    QAction* m_queueSettings = nullptr; ///< Queue settings… (queuesettingsdialog.h)
    QAction* m_quit = nullptr;
    QAction* m_readOnly = nullptr;
    QAction* m_refresh = nullptr;
    QAction* m_live = nullptr;
    QAction* m_backlogThreshold = nullptr;
    QAction* m_utc = nullptr;
    QAction* m_find = nullptr;
    QAction* m_copyId = nullptr;
    QAction* m_about = nullptr;
    QAction* m_aboutQt = nullptr;
    QAction* m_gettingStarted = nullptr;
    QAction* m_shortcuts = nullptr;
    QAction* m_showMessages = nullptr;
    QAction* m_showDashboard = nullptr;
    QAction* m_showFailures = nullptr;
    QAction* m_showProcesses = nullptr;
    QAction* m_showRecurring = nullptr;
    QAction* m_showQueues = nullptr;
    QAction* m_focusSidebar = nullptr;
    std::vector<QAction*> m_filterActions; ///< Ctrl+1 … Ctrl+9
    QMenu* m_recentMenu = nullptr;
    QStringList m_recent;

    QString m_lastError;
};

} // namespace lq::ui
