// SPDX-License-Identifier: MIT
#include "ui/mainwindow.h"

#include "core/backend.h"
#include "core/formats/queueformat.h"
#include "core/remote/client.h"
#include "ui/aboutdialog.h"
#include "ui/bannerbar.h"
#include "ui/dashboardwidget.h"
#include "ui/failuresview.h"
#include "ui/fleetmodel.h"
#include "ui/gettingstarted.h"
#include "ui/messagedetailpane.h"
#include "ui/messagespage.h"
#include "ui/namedqueuefilter.h"
#include "ui/opendatabasedialog.h"
#include "ui/openremotedialog.h"
#include "ui/pagetabs.h"
#include "ui/pausedqueues.h"
#include "ui/processesview.h"
#include "ui/queuebanners.h"
#include "ui/queuedocument.h"
#include "ui/queuesettingsdialog.h"
#include "ui/queuesidebar.h"
#include "ui/queuesview.h"
#include "ui/recurringview.h"

#include "ui/runasync.h"
#include "ui/settingsstore.h"
#include "ui/uiresources.h"
#include "ui/uitext.h"
#include <QListView>

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLocale>
#include <QLoggingCategory>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QSpinBox>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>

#include <algorithm>
#include <memory>

Q_LOGGING_CATEGORY(lcWindow, "lq.ui.window")

namespace lq::ui {

namespace {
/// After an ordering, until the hidden Dashboard tab prepares its first show.
constexpr int kPrepareDashboardMs = 200;
} // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
    , m_doc(new QueueDocument(this))
    , m_model(new MessageModel(this))
    , m_fleet(new FleetModel(this))
    , m_handler(new QueueActionHandler(m_doc, m_model, this)) {
    initResources();
    useInteractiveSlice(); // the thread that runs the windows
    workPool();            // its threads start now, not beside the first open's paint
    setWindowIcon(QIcon(QStringLiteral(":/icons/lqadmin.svg")));
    setAcceptDrops(true);
    createActions();
    createWidgets();
    createMenus();
    connectParts();
    restoreSettings();
    updateTitle();
    updateActions();
    updateStatusBar();
}

MainWindow::~MainWindow() = default;

QAction* MainWindow::action(const QString& name) const {
    return findChild<QAction*>(name);
}

void MainWindow::createActions() {
    auto make = [this](const char* name, const QString& text, const char* icon = nullptr,
                       const QKeySequence& key = {}) {
        return makeAction(this, name, text, icon, key);
    };
    m_open = make("open", tr("&Open\u2026"), "open", QKeySequence::Open);
    connect(m_open, &QAction::triggered, this, [this] {
        const QString path = m_doc->path();
        const QString start = path.isEmpty() ? QString() : QFileInfo(path).absolutePath();
        const QString f = QFileDialog::getOpenFileName(
            this, tr("Open a queue file"), start,
            tr("SQLite queues (*.sqlite3 *.sqlite *.db *.queue);;All files (*)"));
        if (!f.isEmpty()) {
            openFile(f);
        }
    });
    m_openRemote = make("openRemote", tr("Open &Remote\u2026"), "open");
    connect(m_openRemote, &QAction::triggered, this, [this] {
        OpenRemoteDialog d(this);
        if (d.exec() == QDialog::Accepted && !d.url().isEmpty()) {
            openFile(d.url());
        }
    });
    m_openDatabase = make("openDatabase", tr("Open Data&base\u2026"), "open");
    connect(m_openDatabase, &QAction::triggered, this, [this] {
        OpenDatabaseDialog d(this);
        if (d.exec() == QDialog::Accepted && !d.url().isEmpty()) {
            OpenDatabaseDialog::remember(d.url());
            openFile(d.url());
        }
    });
    m_watchFolder = make("watchFolder", tr("&Watch folder\u2026"), "open",
                         QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    connect(m_watchFolder, &QAction::triggered, this, [this] {
        const QString path = m_doc->path();
        const QString start = path.isEmpty() ? QDir::homePath() : QFileInfo(path).absolutePath();
        const QString dir =
            QFileDialog::getExistingDirectory(this, tr("Watch a folder of queue files"), start);
        if (!dir.isEmpty()) {
            watchFolder(dir);
        }
    });
    m_reopen = make("reopen", tr("Re&open"));
    connect(m_reopen, &QAction::triggered, this, &MainWindow::reopen);
    m_queueSettings = createQueueSettingsAction(m_doc, this, [this] { reopen(); });
    m_quit = make("quit", tr("&Quit"), nullptr, QKeySequence::Quit);
    connect(m_quit, &QAction::triggered, this, &QWidget::close);
    m_readOnly = make("readOnly", tr("&Read-only: off"), "readonly");
    m_readOnly->setCheckable(true);
    m_readOnly->setToolTip(tr("Open the file without ever writing to it"));
    // A toggle that says its state, whichever way the style draws it.
    connect(m_readOnly, &QAction::toggled, this, &MainWindow::showReadOnlyState);
    connect(m_readOnly, &QAction::triggered, this, [this](bool on) {
        if (m_doc->isOpen() || !m_doc->path().isEmpty()) {
            openWith(m_doc->path(), on, m_doc->table());
        }
    });
    m_refresh = make("refresh", tr("Re&fresh"), "refresh", QKeySequence::Refresh);
    connect(m_refresh, &QAction::triggered, this, &MainWindow::refresh);
    m_live = make("live", tr("&Live refresh"));
    m_live->setCheckable(true);
    m_live->setChecked(true);
    connect(m_live, &QAction::toggled, m_model, &MessageModel::setLiveRefresh);
    m_backlogThreshold = make("backlogThreshold", tr("&Backlog alert after\u2026"));
    connect(m_backlogThreshold, &QAction::triggered, this, [this] {
        bool ok = false;
        const int s = QInputDialog::getInt(
            this, tr("Backlog alert"),
            tr("Mark a queue in the sidebar when its oldest READY message waits longer "
               "than (seconds):"),
            m_fleet->backlogThresholdSeconds(), 1, 365 * 86400, 60, &ok);
        if (ok) {
            m_fleet->setBacklogThresholdSeconds(s);
            settings::setValue(QStringLiteral("fleet/backlogThresholdSeconds"), s);
        }
    });
    m_utc = make("utc", tr("Show times in &UTC"));
    m_utc->setCheckable(true);
    m_find = make("find", tr("&Search"), nullptr, QKeySequence::Find);
    m_copyId = make("copyId", tr("&Copy message id"), nullptr, QKeySequence::Copy);
    m_about = make("about", tr("&About LiteQueue Admin"));
    connect(m_about, &QAction::triggered, this, [this] { AboutDialog(this).exec(); });
    m_aboutQt = make("aboutQt", tr("About &Qt"));
    connect(m_aboutQt, &QAction::triggered, qApp, &QApplication::aboutQt);
    m_gettingStarted =
        make("gettingStarted", tr("&Getting started"), nullptr, QKeySequence::HelpContents);
    connect(m_gettingStarted, &QAction::triggered, this, [this] {
        auto* dlg = new GettingStartedDialog(this);
        dlg->setAttribute(Qt::WA_DeleteOnClose);
        dlg->show();
    });
    m_shortcuts = make("shortcuts", tr("&Keyboard shortcuts"));
    connect(m_shortcuts, &QAction::triggered, this, &MainWindow::showShortcuts);
    // The tabs and the sidebar from the keyboard.
    m_showMessages = make("showMessages", tr("Go to &Messages"), nullptr,
                          QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_M));
    connect(m_showMessages, &QAction::triggered, this,
            [this] { m_tabs->setCurrentWidget(m_messages); });
    m_showDashboard = make("showDashboard", tr("Go to &Dashboard"), nullptr,
                           QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_D));
    connect(m_showDashboard, &QAction::triggered, this,
            [this] { m_tabs->setCurrentWidget(m_dashboard); });
    // Ctrl+E is Enqueue.
    m_showFailures = make("showFailures", tr("Go to &Failures"), nullptr,
                          QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    m_showFailures->setToolTip(tr("The failed jobs grouped by error"));
    connect(m_showFailures, &QAction::triggered, this,
            [this] { m_tabs->setCurrentWidget(m_failures); });
    // Ctrl+Shift+P is Prune: W for the workers.
    m_showProcesses = make("showProcesses", tr("Go to &Processes"), nullptr,
                           QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_W));
    m_showProcesses->setToolTip(tr("The worker processes the file records, alive or dead"));
    connect(m_showProcesses, &QAction::triggered, this,
            [this] { m_tabs->setCurrentWidget(m_processes); });
    // Ctrl+Shift+R is Retry expired: T for the timed tasks.
    m_showRecurring = make("showRecurring", tr("Go to Re&curring"), nullptr,
                           QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_T));
    m_showRecurring->setToolTip(tr("The recurring tasks the file records: last, next and missed "
                                   "runs; run one now"));
    connect(m_showRecurring, &QAction::triggered, this,
            [this] { m_tabs->setCurrentWidget(m_recurring); });
    m_showQueues = make("showQueues", tr("Go to Q&ueues"), nullptr,
                        QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Q));
    m_showQueues->setToolTip(tr("Every named queue: counts, throughput and wait"));
    connect(m_showQueues, &QAction::triggered, this,
            [this] { m_tabs->setCurrentWidget(m_queues); });
    m_focusSidebar =
        make("focusSidebar", tr("Go to the &queue sidebar"), nullptr, QKeySequence(Qt::Key_F6));
    connect(m_focusSidebar, &QAction::triggered, this, [this] {
        m_queuesDock->show();
        m_queuesDock->raise();
        m_sidebar->view()->setFocus(Qt::ShortcutFocusReason);
    });
    // Ctrl+1 … Ctrl+9: the status chips, in the order shown.
    for (int n = 1; n <= 9; ++n) {
        QAction* a = make("", tr("Status filter %1").arg(n), nullptr,
                          QKeySequence(QStringLiteral("Ctrl+%1").arg(n)));
        a->setObjectName(QStringLiteral("filter%1").arg(n));
        connect(a, &QAction::triggered, this, [this, n] { filterBar()->clickVisible(n - 1); });
        addAction(a);
        m_filterActions.push_back(a);
    }
}

void MainWindow::showShortcuts() {
    // Listed from the actions themselves, so the list cannot drift.
    QStringList lines;
    const QList<QAction*> all = findChildren<QAction*>();
    for (QAction* a : all) {
        const QKeySequence key = a->shortcut();
        if (key.isEmpty()) {
            continue;
        }
        QString label = a->text();
        label.remove(u'&');
        const auto chip = std::find(m_filterActions.begin(), m_filterActions.end(), a);
        if (chip != m_filterActions.end()) {
            label = tr("Status chip %1 (as shown, left to right)")
                        .arg(chip - m_filterActions.begin() + 1);
        }
        lines << key.toString(QKeySequence::NativeText).leftJustified(18) + label;
    }
    lines.sort();
    auto* box = new QMessageBox(QMessageBox::Information, tr("Keyboard shortcuts"),
                                lines.join(u'\n'), QMessageBox::Ok, this);
    box->setTextFormat(Qt::PlainText);
    box->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->show();
}

void MainWindow::createMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    const QueueActionHandler& h = *m_handler;
    file->addActions({m_open, m_openRemote, m_openDatabase, m_watchFolder});
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    file->addAction(m_reopen);
    file->addSeparator();
    file->addAction(m_readOnly);
    file->addSeparator();
    file->addAction(m_quit);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    edit->addAction(h.undoAction());
    edit->addSeparator();
    edit->addActions({m_copyId, m_find});

    QMenu* actions = menuBar()->addMenu(tr("&Actions"));
    actions->addActions({h.retryAction(), h.markFailedAction(), h.retryExpiredAction()});
    actions->addSeparator();
    actions->addActions({h.releaseAction(), h.rescheduleAction(), h.deleteAction()});
    actions->addSeparator();
    actions->addActions({h.enqueueAction(), h.pruneAction(), h.vacuumAction(), h.upgradeAction()});
    actions->addSeparator();
    actions->addActions({h.pauseAction(), h.resumeAction()});
    actions->addSeparator();
    actions->addAction(m_queueSettings);
    actions->addSeparator();
    actions->addAction(h.undoAction());

    QMenu* view = menuBar()->addMenu(tr("&View"));
    view->addActions({m_refresh, m_live, m_utc, m_backlogThreshold});
    view->addSeparator();
    view->addActions({m_queuesDock->toggleViewAction(), m_detailDock->toggleViewAction()});
    view->addSeparator();
    view->addActions(
        {m_showMessages, m_showDashboard, m_showFailures, m_showProcesses, m_showQueues});
    view->addAction(m_showRecurring);
    view->addAction(m_focusSidebar);

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addActions({m_gettingStarted, m_shortcuts});
    help->addSeparator();
    help->addActions({m_about, m_aboutQt});

    QToolBar* tb = addToolBar(tr("Actions"));
    tb->setObjectName(QStringLiteral("mainToolBar"));
    // The overflow button ("»") of a narrow window.
    if (auto* more = tb->findChild<QWidget*>(QStringLiteral("qt_toolbar_ext_button"))) {
        more->setAccessibleName(tr("More actions"));
    }
    tb->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    tb->setIconSize(QSize(20, 20));
    // The actions on the selection and Undo first: a narrow window (1024 px)
    // puts the last ones behind the overflow button, not these.
    tb->addAction(m_open);
    tb->addSeparator();
    tb->addActions({h.retryAction(), h.markFailedAction(), h.releaseAction(), h.deleteAction(),
                    h.undoAction()});
    tb->addSeparator();
    tb->addActions({h.retryExpiredAction(), h.rescheduleAction(), h.pruneAction(),
                    h.enqueueAction(), h.vacuumAction()});
    tb->addSeparator();
    tb->addActions({m_refresh, m_readOnly});
}

void MainWindow::createWidgets() {
    auto* central = new QWidget(this);
    auto* layout = new QVBoxLayout(central);
    layout->setContentsMargins(4, 4, 4, 0);
    layout->setSpacing(4);

    m_banners = new BannerBar(central);
    layout->addWidget(m_banners);
    m_queueBanners = new QueueBanners(m_banners, m_doc, this);

    // Two pages over the open queue: its messages and its timing dashboard.
    m_tabs = new PageTabs(central);
    m_tabs->setObjectName(QStringLiteral("viewTabs"));
    m_tabs->setDocumentMode(true);
    m_messages = new MessagesPage(m_doc, m_model, m_handler, m_tabs);
    m_messages->addAction(m_copyId); // its context menu offers it
    m_tabs->addTab(m_messages, QIcon(QStringLiteral(":/icons/list.svg")), tr("&Messages"));
    m_dashboard = new DashboardWidget(m_tabs);
    m_dashboard->setObjectName(QStringLiteral("dashboard"));
    m_tabs->addTab(m_dashboard, QIcon(QStringLiteral(":/icons/chart.svg")), tr("&Dashboard"));
    m_failures = new FailuresView(m_doc, m_model, m_handler, m_tabs);
    m_tabs->addTab(m_failures, QIcon(QStringLiteral(":/icons/fail.svg")), tr("&Failures"));
    m_processes = new ProcessesView(m_doc, m_handler, m_tabs);
    m_tabs->addTab(m_processes, tr("P&rocesses"));
    m_recurring = new RecurringView(m_doc, m_handler, m_tabs);
    m_tabs->addTab(m_recurring, tr("Re&curring"));
    m_queues = new QueuesView(m_doc, m_tabs);
    m_tabs->addTab(m_queues, tr("&Queues"));
    layout->addWidget(m_tabs, 1);
    setCentralWidget(central);

    m_detailDock = new QDockWidget(tr("Message"), this);
    m_detailDock->setObjectName(QStringLiteral("detailDock"));
    m_detailDock->setWidget(m_messages->detailPane());
    m_detailDock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetClosable |
                              QDockWidget::DockWidgetFloatable);
    addDockWidget(Qt::BottomDockWidgetArea, m_detailDock);

    m_sidebar = new QueueSidebar(m_fleet, this);
    m_sidebar->setObjectName(QStringLiteral("queueSidebar"));
    m_queuesDock = new QDockWidget(tr("Queues"), this);
    m_queuesDock->setObjectName(QStringLiteral("queuesDock"));
    m_queuesDock->setWidget(m_sidebar);
    m_queuesDock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetClosable |
                              QDockWidget::DockWidgetFloatable);
    addDockWidget(Qt::LeftDockWidgetArea, m_queuesDock);

    m_formatLabel = new QLabel(this);
    m_journalLabel = new QLabel(this);
    m_walLabel = new QLabel(this);
    m_rowsLabel = new QLabel(this);
    m_rowsLabel->setObjectName(QStringLiteral("rowsLabel"));
    m_refreshLabel = new QLabel(this);
    for (QLabel* l : {m_rowsLabel, m_formatLabel, m_journalLabel, m_walLabel, m_refreshLabel}) {
        l->setTextFormat(Qt::PlainText);
        statusBar()->addPermanentWidget(l);
    }
}

void MainWindow::connectParts() {
    // The document: opening, opened, gone.
    connect(m_doc, &QueueDocument::opening, this, [this](const QString& path) {
        statusBar()->showMessage(tr("Opening %1\u2026").arg(path));
        QApplication::setOverrideCursor(Qt::BusyCursor);
    });
    connect(m_doc, &QueueDocument::openSettled, this,
            [] { QApplication::restoreOverrideCursor(); });
    connect(m_doc, &QueueDocument::openFailed, this, [this](const QString& path, const QString& e) {
        // lqcore's messages already name the file; keep the current one open.
        showError(tr("Cannot open %1:\n%2").arg(fromStd(core::shortName(toStd(path))), e));
    });
    connect(m_doc, &QueueDocument::opened, this, [this](bool samePath) {
        if (!samePath)
            m_fleet->clearLiveCounts(); // the sidebar's own counts until the table's
        onOpened(samePath);
    });
    connect(m_doc, &QueueDocument::closed, m_fleet, &FleetModel::clearLiveCounts);
    connect(m_doc, &QueueDocument::fileGoneChanged, this, &MainWindow::updateActions);
    connect(m_doc, &QueueDocument::connectionChanged, this, [this](bool up, const QString& text) {
        m_queueBanners->setConnection(up, text);
        updateActions();
    });

    connect(m_queueBanners, &QueueBanners::upgradeRequested, m_handler,
            &QueueActionHandler::upgradeFile);
    connect(m_queueBanners, &QueueBanners::reopenRequested, this, &MainWindow::reopen);
    connect(m_processes, &ProcessesView::warningsChanged, m_queueBanners,
            &QueueBanners::setProcessWarnings);
    connect(m_queueBanners, &QueueBanners::showProcessesRequested, this,
            [this] { m_tabs->setCurrentWidget(m_processes); });
    connect(m_queueBanners, &QueueBanners::showChoice, this,
            [this](StatusFilterBar::Choice c) { filterBar()->setChoice(c); });

    // The action handler reports through the window.
    connect(m_handler, &QueueActionHandler::errorOccurred, this, &MainWindow::showError);
    connect(m_handler, &QueueActionHandler::reportFinished, this, [this](const ActionReport& r) {
        statusBar()->showMessage(r.summary(), 15000);
        if (!r.error.isEmpty()) {
            m_lastError = r.summary();
        }
        if (r.applied > 0 && m_doc->isOpen()) {
            m_fleet->rescanFile(m_doc->path()); // its named queues' rows too
        }
    });
    connect(m_handler, &QueueActionHandler::reopenRequested, this, &MainWindow::reopen);
    connect(m_handler, &QueueActionHandler::orderingRestarting, m_messages,
            &MessagesPage::rememberCurrent);

    // The pages.
    connect(m_find, &QAction::triggered, m_messages, &MessagesPage::focusSearch);
    connect(m_copyId, &QAction::triggered, this, [this] {
        QApplication::clipboard()->setText(m_messages->selectedMessageIds().join(u'\n'));
    });
    connect(m_utc, &QAction::toggled, this, [this](bool on) {
        m_messages->setUtc(on);
        m_dashboard->setUtc(on);
        m_failures->setUtc(on);
        m_processes->setUtc(on);
        m_recurring->setUtc(on);
    });
    connect(m_messages, &MessagesPage::stuckThresholdChanged, this, [this](int s) {
        settings::setValue(QStringLiteral("stuckThresholdSeconds"), s); // kept at once
        m_fleet->setStuckThresholdSeconds(s);
        m_dashboard->setStuckThreshold(qint64(s) * core::kNsPerSecond);
    });
    connect(m_messages, &MessagesPage::firstPageShown, this, [this](qint64 ms) {
        qCInfo(lcWindow).noquote() << "first page of" << m_doc->path() << "shown" << ms
                                   << "ms after open (" << m_model->rowCount() << "rows)";
        statusBar()->showMessage(tr("Opened %1: first rows in %2 ms").arg(m_doc->path()).arg(ms),
                                 8000);
    });
    connect(m_dashboard, &DashboardWidget::timeRangeChanged, m_messages,
            &MessagesPage::narrowToRange);
    connect(m_dashboard, &DashboardWidget::histogramBarClicked, this,
            [this](const core::Filter& f) {
                m_messages->narrowToBand(f);
                m_tabs->setCurrentIndex(0);
            });
    // The message detail belongs to the table: it makes room for the charts
    // while the dashboard is shown, and comes back with the table.
    connect(m_tabs, &QTabWidget::currentChanged, this,
            [this, onMessages = true](int index) mutable {
                const bool wasOnMessages =
                    std::exchange(onMessages, m_tabs->widget(index) == m_messages);
                if (!onMessages) {
                    if (wasOnMessages)
                        m_detailWasVisible = m_detailDock->isVisible();
                    m_detailDock->hide();
                } else if (m_detailWasVisible) {
                    m_detailDock->show();
                }
            });
    connect(m_messages->detailPane(), &MessageDetailPane::errorOccurred, this,
            [this](const QString& e) { showError(e, false); });
    connect(m_messages->view()->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &MainWindow::updateActions);

    // The sidebar; a named queue's row narrows the table once its file is open.
    m_namedQueue = new NamedQueueFilter(m_sidebar, m_doc, this);
    showPausedQueues(m_doc, m_handler, m_model, m_queueBanners, filterBar(), m_sidebar);
    connect(m_namedQueue, &NamedQueueFilter::queueRequested, m_messages,
            &MessagesPage::setQueueFilter);
    connect(m_sidebar, &QueueSidebar::queueActivated, this,
            [this](const QString& path, const QString& table) {
                openQueue(path, table);
                emit queueActivated(path, table);
            });
    connect(m_sidebar, &QueueSidebar::skippedActivated, this, &MainWindow::showSkipped);
    connect(m_sidebar, &QueueSidebar::watchFolderRequested, m_watchFolder, &QAction::trigger);
    connect(m_fleet, &QAbstractItemModel::rowsInserted, this, [this] {
        if (m_doc->isOpen()) {
            m_sidebar->setCurrent(m_doc->path(), m_doc->table());
        }
    });

    // The model's news; the attention banner follows the counts a poll read.
    connect(m_model, &MessageModel::countsChanged, this, [this](const core::Counts& c) {
        if (m_doc->isOpen() && c.stored > 0 && !c.estimated) {
            // The counts of the model's named queue go to that queue's row
            // (exact ones only: the fleet's figures are always exact).
            m_fleet->setLiveCounts(m_doc->path(), m_doc->table(), fromStd(m_model->filter().queue),
                                   c);
        }
        updateStatusBar();
    });
    // The dashboard recomputes when the file changed (skipped while hidden).
    connect(m_model, &MessageModel::dataVersionChanged, m_dashboard, &DashboardWidget::refreshLive);
    // So do the failures (paced, skipped while hidden), and when the table's
    // named queue changed; an action's report may have moved some.
    connect(m_model, &MessageModel::dataVersionChanged, m_failures, &FailuresView::refreshLive);
    connect(m_model, &MessageModel::orderingReset, m_failures, &FailuresView::followQueue);
    connect(m_handler, &QueueActionHandler::reportFinished, m_failures, &FailuresView::refresh);
    connect(m_model, &MessageModel::dataVersionChanged, m_processes, &ProcessesView::refreshLive);
    connect(m_handler, &QueueActionHandler::reportFinished, m_processes, &ProcessesView::refresh);
    connect(m_model, &MessageModel::dataVersionChanged, m_recurring, &RecurringView::refreshLive);
    connect(m_handler, &QueueActionHandler::reportFinished, m_recurring, &RecurringView::refresh);
    connect(m_model, &MessageModel::dataVersionChanged, m_queues, &QueuesView::refreshLive);
    connect(m_handler, &QueueActionHandler::reportFinished, m_queues, &QueuesView::refresh);
    connect(m_queues, &QueuesView::queueActivated, this, [this](const QString& queue) {
        m_sidebar->setCurrent(m_doc->path(), m_doc->table(), queue);
        m_messages->setQueueFilter(queue);
        m_tabs->setCurrentWidget(m_messages);
    });
    connect(m_failures, &FailuresView::showJobsRequested, this, [this](const QString& id) {
        // The table cannot be narrowed to one group's ids: it shows the
        // failed jobs (every state when the format has failure states of its
        // own) with the group's first job selected, once the new filter's
        // rows are in.
        const StatusFilterBar::Choice c = m_doc->format().failureStates().empty()
                                              ? StatusFilterBar::Failed
                                              : StatusFilterBar::All;
        m_tabs->setCurrentWidget(m_messages);
        if (filterBar()->choice() == c) {
            m_messages->selectMessage(id);
            return;
        }
        auto once = std::make_shared<QMetaObject::Connection>();
        *once = connect(m_model, &QAbstractItemModel::modelReset, this, [this, id, once] {
            disconnect(*once);
            QTimer::singleShot(0, m_messages, [this, id] { m_messages->selectMessage(id); });
        });
        filterBar()->setChoice(c);
    });
    connect(m_model, &MessageModel::refreshed, this, [this] {
        updateStatusBar();
        if (!m_model->counts().estimated) { // an estimate has no stuck count
            m_queueBanners->offerAttention(m_model->counts(), stuckSpinBox()->value());
        }
    });
    connect(m_model, &MessageModel::orderingReset, this, &MainWindow::updateStatusBar);
    // Once the first file's rows are in, the hidden Dashboard tab gets
    // ready for its first show (a few ms then instead of a stall at the
    // show). A moment later, not in the turn the ordering arrives: there it
    // ran back to back with the ordering's handling and the table's repaint,
    // one 12-14 ms stretch of the UI thread.
    auto* prepare = new QTimer(this);
    prepare->setSingleShot(true);
    prepare->setInterval(kPrepareDashboardMs);
    connect(prepare, &QTimer::timeout, m_dashboard, [this] {
        if (QWidget* page = m_tabs->currentWidget(); page && page != m_dashboard)
            m_dashboard->prepareFirstShow(page->size(), devicePixelRatioF());
    });
    connect(m_model, &MessageModel::orderingReset, prepare, [this, prepare] {
        if (!m_dashboard->isPrepared())
            prepare->start();
    });
    connect(m_model, &MessageModel::errorOccurred, this,
            [this](const QString& e) { showError(e, false); });
    connect(m_model, &MessageModel::fileStateChanged, this, &MainWindow::onFileStateChanged);
}

bool MainWindow::isReady() const {
    return m_doc->isOpen() && m_model->hasOrdering() && m_model->isIdle() && !m_doc->isBusy();
}

bool MainWindow::isBusy() const {
    return m_doc->isBusy();
}
QString MainWindow::currentPath() const {
    return m_doc->path();
}
QString MainWindow::currentTable() const {
    return m_doc->table();
}
bool MainWindow::fileGone() const {
    return m_doc->fileGone();
}
QTableView* MainWindow::view() const {
    return m_messages->view();
}
MessageDetailPane* MainWindow::detailPane() const {
    return m_messages->detailPane();
}
StatusFilterBar* MainWindow::filterBar() const {
    return m_messages->filterBar();
}
QLineEdit* MainWindow::searchEdit() const {
    return m_messages->searchEdit();
}
QSpinBox* MainWindow::stuckSpinBox() const {
    return m_messages->stuckSpinBox();
}

void MainWindow::updateTitle() {
    if (m_doc->path().isEmpty()) {
        setWindowTitle(tr("LiteQueue Admin"));
        return;
    }
    QString t = m_doc->fileName();
    if (m_doc->format().multiTable()) {
        t += QStringLiteral(" \u203a ") + m_doc->table();
    }
    if (m_doc->readOnly()) {
        t += tr(" [read-only]");
    }
    setWindowTitle(t + QStringLiteral(" \u2014 ") + tr("LiteQueue Admin"));
    setWindowFilePath(m_doc->path());
}

void MainWindow::onFileStateChanged(MessageModel::FileState state) {
    // A file deleted, replaced or moved while shown is read-only at once:
    // core refuses such a write too (it checks the inode inside the
    // transaction), but the operator should not be offered one.
    m_doc->setFileGone(state != MessageModel::FileState::Ok);
    m_queueBanners->setFileState(state);
    updateActions();
}

void MainWindow::updateStatusBar() {
    if (!m_doc->isOpen()) {
        m_formatLabel->setText(tr("No file"));
        m_journalLabel->clear();
        m_walLabel->clear();
        m_rowsLabel->clear();
        m_refreshLabel->clear();
        return;
    }
    m_rowsLabel->setText(m_messages->rowsText());
    const auto backend = m_doc->backend();
    m_formatLabel->setText(fromStd(backend->formatName()));
    m_journalLabel->setText(fromStd(backend->storageText()));
    m_walLabel->setVisible(backend->isFile());
    m_walLabel->setText(tr("WAL %1").arg(humanBytes(m_model->walBytes())));
    const QDateTime last = m_model->lastRefresh();
    m_refreshLabel->setText(last.isValid()
                                ? tr("refreshed %1").arg(last.toString(QStringLiteral("HH:mm:ss")))
                                : tr("loading\u2026"));
}

void MainWindow::updateActions() {
    m_handler->updateActions();
    const bool open = m_doc->isOpen();
    m_reopen->setEnabled(open);
    m_refresh->setEnabled(open);
    m_readOnly->setEnabled(open);
}

void MainWindow::showReadOnlyState() {
    m_readOnly->setText(m_readOnly->isChecked() ? tr("&Read-only: on") : tr("&Read-only: off"));
}

bool MainWindow::readOnlyMode() const {
    return m_doc->readOnly();
}

void MainWindow::setReadOnlyMode(bool on) {
    if (!m_doc->path().isEmpty() && on != m_doc->readOnly()) {
        m_readOnly->setChecked(on);
        openWith(m_doc->path(), on, m_doc->table());
    }
}

void MainWindow::setConfirmHandler(ConfirmHandler handler) {
    m_handler->setConfirmHandler(std::move(handler));
}

void MainWindow::setConfirmHandler(SimpleConfirmHandler handler) {
    m_handler->setConfirmHandler(std::move(handler));
}

void MainWindow::setReportHandler(ReportHandler handler) {
    m_handler->setReportHandler(std::move(handler));
}

ActionReport MainWindow::lastReport() const {
    return m_handler->lastReport();
}

int MainWindow::reportCount() const {
    return m_handler->reportCount();
}

// The operator workflows are the handler's; these slots keep the window's
// scripting surface (tests, the sidebar's buttons).
void MainWindow::retrySelected() {
    m_handler->retrySelected();
}
void MainWindow::markFailedSelected() {
    m_handler->markFailedSelected();
}
void MainWindow::releaseSelected() {
    m_handler->releaseSelected();
}
void MainWindow::rescheduleSelected(std::chrono::nanoseconds delay) {
    m_handler->rescheduleSelected(delay);
}
void MainWindow::deleteSelected() {
    m_handler->deleteSelected();
}
void MainWindow::retryExpired(std::chrono::nanoseconds threshold) {
    m_handler->retryExpired(threshold);
}
void MainWindow::prune(std::optional<std::chrono::nanoseconds> olderThan, bool includeFailed) {
    m_handler->prune(olderThan, includeFailed);
}
void MainWindow::vacuum() {
    m_handler->vacuum();
}
void MainWindow::enqueue(const QString& payload, const QString& idempotencyKey) {
    m_handler->enqueue(payload, idempotencyKey);
}
void MainWindow::upgradeFile() {
    m_handler->upgradeFile();
}
void MainWindow::undoLastAction() {
    m_handler->undoLastAction();
}

void MainWindow::refresh() {
    m_model->refreshNow();
}

void MainWindow::showError(const QString& text, bool dialog) {
    m_lastError = text;
    statusBar()->showMessage(text, 15000);
    if (!dialog) {
        return;
    }
    auto* box =
        new QMessageBox(QMessageBox::Warning, tr("LiteQueue Admin"), text, QMessageBox::Ok, this);
    box->setTextFormat(Qt::PlainText); // names the file, may quote it
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

} // namespace lq::ui
