// SPDX-License-Identifier: MIT
#include "ui/mainwindow.h"

#include "core/audit.h"
#include "core/error.h"
#include "core/queue.h"
#include "ui/aboutdialog.h"
#include "ui/bannerbar.h"
#include "ui/dashboardwidget.h"
#include "ui/enqueuedialog.h"
#include "ui/fleetmodel.h"
#include "ui/messagedetailpane.h"
#include "ui/prunedialog.h"
#include "ui/queuesidebar.h"
#include "ui/runasync.h"
#include "ui/uiresources.h"
#include "ui/uitext.h"

#include <unistd.h>

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressDialog>
#include <QScreen>
#include <QScrollBar>
#include <QSettings>
#include <QSpinBox>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTimeZone>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>

#include <QElapsedTimer>
#include <QLoggingCategory>

#include <atomic>

Q_LOGGING_CATEGORY(lcWindow, "lq.ui.window")

namespace lq::ui {

using core::Action;
using core::Target;

namespace {

constexpr int kMaxRecent = 10;
constexpr std::size_t kProgressThreshold = 2000;

QSettings settings() {
    return QSettings(QStringLiteral("LiteQueue"), QStringLiteral("lqadmin"));
}

QString actionTitle(Action a) {
    switch (a) {
    case Action::Retry:
        return MainWindow::tr("Retry");
    case Action::MarkFailed:
        return MainWindow::tr("Mark failed");
    case Action::Release:
        return MainWindow::tr("Release");
    case Action::Reschedule:
        return MainWindow::tr("Reschedule");
    case Action::Delete:
        return MainWindow::tr("Delete");
    case Action::Prune:
        return MainWindow::tr("Prune");
    case Action::Enqueue:
        return MainWindow::tr("Enqueue");
    case Action::Vacuum:
        return MainWindow::tr("Vacuum");
    case Action::Upgrade:
        return MainWindow::tr("Upgrade");
    }
    return {};
}

std::string currentUser() {
    return toStd(qEnvironmentVariable("USER"));
}

QString errorMessage(const std::exception& e) {
    return QString::fromUtf8(e.what());
}

MainWindow::ActionReport reportFrom(const QString& title, const core::ActionResult& r) {
    MainWindow::ActionReport rep;
    rep.title = title;
    rep.applied = qint64(r.applied.size());
    rep.skipped = qint64(r.skipped.size());
    rep.cancelled = r.cancelled;
    for (const auto& a : r.applied) {
        rep.appliedIds << fromStd(a.before.messageId);
    }
    for (const auto& s : r.skipped) {
        rep.skippedLines << fromStd(s.messageId) + QStringLiteral(": ") + fromStd(s.reason);
    }
    return rep;
}

} // namespace

QString MainWindow::ActionReport::summary() const {
    if (!error.isEmpty()) {
        return tr("%1 failed: %2").arg(title, error);
    }
    QString s = tr("%1: %2 applied, %3 skipped").arg(title).arg(applied).arg(skipped);
    if (cancelled) {
        s += tr(" (cancelled)");
    }
    return s;
}

struct MainWindow::OpenResult {
    quint64 generation = 0;
    QString path;
    std::shared_ptr<core::Queue> queue;
    core::FormatInfo info;
    bool readOnly = false;
    QString error;
    qint64 elapsedMs = 0;
};

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
    , m_model(new MessageModel(this))
    , m_fleet(new FleetModel(this)) {
    initResources();
    setWindowIcon(QIcon(QStringLiteral(":/icons/lqadmin.svg")));
    setAcceptDrops(true);
    createActions();
    createWidgets();
    createMenus();
    restoreSettings();
    updateTitle();
    updateActions();
    updateStatusBar();
}

MainWindow::~MainWindow() = default;

QAction* MainWindow::action(const QString& name) const {
    return m_actions.value(name);
}

void MainWindow::createActions() {
    auto make = [this](const QString& name, const QString& text, const QString& icon = {},
                       const QKeySequence& key = {}) {
        auto* a = new QAction(text, this);
        a->setObjectName(name);
        if (!icon.isEmpty()) {
            a->setIcon(QIcon(QStringLiteral(":/icons/") + icon + QStringLiteral(".svg")));
        }
        if (!key.isEmpty()) {
            a->setShortcut(key);
        }
        m_actions.insert(name, a);
        return a;
    };
    connect(
        make(QStringLiteral("open"), tr("&Open\u2026"), QStringLiteral("open"), QKeySequence::Open),
        &QAction::triggered, this, [this] {
            const QString start = m_path.isEmpty() ? QString() : QFileInfo(m_path).absolutePath();
            const QString f = QFileDialog::getOpenFileName(
                this, tr("Open a queue file"), start,
                tr("SQLite queues (*.sqlite3 *.sqlite *.db *.queue);;All files (*)"));
            if (!f.isEmpty()) {
                openFile(f);
            }
        });
    connect(make(QStringLiteral("watchFolder"), tr("&Watch folder\u2026"), QStringLiteral("open"),
                 QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O)),
            &QAction::triggered, this, [this] {
                const QString start =
                    m_path.isEmpty() ? QDir::homePath() : QFileInfo(m_path).absolutePath();
                const QString dir = QFileDialog::getExistingDirectory(
                    this, tr("Watch a folder of queue files"), start);
                if (!dir.isEmpty()) {
                    watchFolder(dir);
                }
            });
    connect(make(QStringLiteral("reopen"), tr("Re&open"), {}), &QAction::triggered, this,
            &MainWindow::reopen);
    connect(make(QStringLiteral("quit"), tr("&Quit"), {}, QKeySequence::Quit), &QAction::triggered,
            this, &QWidget::close);
    auto* ro = make(QStringLiteral("readOnly"), tr("&Read-only"), QStringLiteral("readonly"));
    ro->setCheckable(true);
    ro->setToolTip(tr("Open the file without ever writing to it"));
    connect(ro, &QAction::triggered, this, [this](bool on) {
        if (!m_path.isEmpty()) {
            openWith(m_path, on, m_table);
        }
    });

    connect(make(QStringLiteral("retry"), tr("&Retry"), QStringLiteral("retry"),
                 QKeySequence(Qt::CTRL | Qt::Key_R)),
            &QAction::triggered, this, &MainWindow::retrySelected);
    connect(make(QStringLiteral("markFailed"), tr("Mark &failed"), QStringLiteral("fail"),
                 QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F)),
            &QAction::triggered, this, &MainWindow::markFailedSelected);
    auto* release = make(QStringLiteral("release"), tr("Re&lease"), QStringLiteral("retry"),
                         QKeySequence(Qt::CTRL | Qt::Key_L));
    release->setToolTip(tr("jobs-lease: end the lease and make the job due now"));
    connect(release, &QAction::triggered, this, &MainWindow::releaseSelected);
    auto* reschedule = make(QStringLiteral("reschedule"), tr("Re&schedule\u2026"), {},
                            QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
    reschedule->setToolTip(tr("jobs-lease: run the job again after a delay"));
    connect(reschedule, &QAction::triggered, this, [this] {
        bool ok = false;
        const int s = QInputDialog::getInt(this, tr("Reschedule"),
                                           tr("Run the selected jobs again in (seconds):"), 60, 0,
                                           365 * 86400, 10, &ok);
        if (ok) {
            rescheduleSelected(double(s));
        }
    });
    auto* del = make(QStringLiteral("delete"), tr("&Delete"), QStringLiteral("prune"),
                     QKeySequence::Delete);
    del->setToolTip(tr("jobs-lease: delete the job (the seed's finish())"));
    connect(del, &QAction::triggered, this, &MainWindow::deleteSelected);
    connect(make(QStringLiteral("retryExpired"), tr("Retry e&xpired\u2026"),
                 QStringLiteral("retry"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R)),
            &QAction::triggered, this, [this] {
                bool ok = false;
                const int s = QInputDialog::getInt(
                    this, tr("Retry expired"),
                    tr("Retry every LOCKED message whose lock is older than (seconds):"),
                    m_stuckSpin->value(), 1, 365 * 86400, 60, &ok);
                if (ok) {
                    retryExpired(double(s));
                }
            });
    connect(make(QStringLiteral("prune"), tr("&Prune\u2026"), QStringLiteral("prune"),
                 QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P)),
            &QAction::triggered, this, [this] {
                if (!checkWritable()) {
                    return;
                }
                PruneDialog dlg(this);
                if (dlg.exec() == QDialog::Accepted) {
                    prune(dlg.olderThanSeconds(), dlg.includeFailed());
                }
            });
    connect(make(QStringLiteral("vacuum"), tr("&Vacuum"), QStringLiteral("vacuum")),
            &QAction::triggered, this, &MainWindow::vacuum);
    connect(make(QStringLiteral("enqueue"), tr("&Enqueue\u2026"), QStringLiteral("enqueue"),
                 QKeySequence(Qt::CTRL | Qt::Key_E)),
            &QAction::triggered, this, [this] {
                if (!checkWritable()) {
                    return;
                }
                EnqueueDialog dlg(this);
                if (dlg.exec() == QDialog::Accepted) {
                    enqueue(dlg.data(), dlg.idempotencyKey());
                }
            });
    connect(make(QStringLiteral("upgrade"), tr("&Upgrade file\u2026"), QStringLiteral("upgrade")),
            &QAction::triggered, this, &MainWindow::upgradeFile);
    connect(make(QStringLiteral("undo"), tr("&Undo last action"), QStringLiteral("undo"),
                 QKeySequence::Undo),
            &QAction::triggered, this, &MainWindow::undoLastAction);
    auto* all = make(QStringLiteral("applyToAll"), tr("Apply to &all matching the filter"));
    all->setCheckable(true);
    all->setToolTip(tr("Retry and Mark failed act on every message matching the status filter "
                       "and search, not only the selection"));
    connect(make(QStringLiteral("refresh"), tr("Re&fresh"), QStringLiteral("refresh"),
                 QKeySequence::Refresh),
            &QAction::triggered, this, &MainWindow::refresh);
    auto* live = make(QStringLiteral("live"), tr("&Live refresh"));
    live->setCheckable(true);
    live->setChecked(true);
    connect(live, &QAction::toggled, m_model, &MessageModel::setLiveRefresh);
    connect(make(QStringLiteral("backlogThreshold"), tr("&Backlog alert after\u2026")),
            &QAction::triggered, this, [this] {
                bool ok = false;
                const int s = QInputDialog::getInt(
                    this, tr("Backlog alert"),
                    tr("Mark a queue in the sidebar when its oldest READY message waits longer "
                       "than (seconds):"),
                    m_fleet->backlogThresholdSeconds(), 1, 365 * 86400, 60, &ok);
                if (ok) {
                    m_fleet->setBacklogThresholdSeconds(s);
                    settings().setValue(QStringLiteral("fleet/backlogThresholdSeconds"), s);
                }
            });
    auto* utc = make(QStringLiteral("utc"), tr("Show times in &UTC"));
    utc->setCheckable(true);
    connect(utc, &QAction::toggled, this, [this](bool on) {
        m_model->setUtc(on);
        if (m_detail) {
            m_detail->setUtc(on);
            m_dashboard->setUtc(on);
        }
    });
    connect(make(QStringLiteral("find"), tr("&Search"), {}, QKeySequence::Find),
            &QAction::triggered, this, [this] {
                m_search->setFocus();
                m_search->selectAll();
            });
    connect(make(QStringLiteral("copyId"), tr("&Copy message id"), {}, QKeySequence::Copy),
            &QAction::triggered, this, [this] {
                QStringList ids;
                const QModelIndexList rows = m_view->selectionModel()->selectedRows();
                for (const QModelIndex& i : rows) {
                    if (const MessageRow* r = m_model->rowAt(i.row())) {
                        ids << fromStd(r->msg.messageId);
                    }
                }
                QApplication::clipboard()->setText(ids.join(u'\n'));
            });
    connect(make(QStringLiteral("about"), tr("&About LiteQueue Admin")), &QAction::triggered, this,
            [this] { AboutDialog(this).exec(); });
    connect(make(QStringLiteral("aboutQt"), tr("About &Qt")), &QAction::triggered, qApp,
            &QApplication::aboutQt);
}

void MainWindow::createMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(action(QStringLiteral("open")));
    file->addAction(action(QStringLiteral("watchFolder")));
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    file->addAction(action(QStringLiteral("reopen")));
    file->addSeparator();
    file->addAction(action(QStringLiteral("readOnly")));
    file->addSeparator();
    file->addAction(action(QStringLiteral("quit")));

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    edit->addAction(action(QStringLiteral("undo")));
    edit->addSeparator();
    edit->addAction(action(QStringLiteral("copyId")));
    edit->addAction(action(QStringLiteral("find")));

    QMenu* actions = menuBar()->addMenu(tr("&Actions"));
    for (const char* n : {"retry", "markFailed", "retryExpired"}) {
        actions->addAction(action(QString::fromLatin1(n)));
    }
    actions->addSeparator();
    for (const char* n : {"release", "reschedule", "delete"}) {
        actions->addAction(action(QString::fromLatin1(n)));
    }
    actions->addAction(action(QStringLiteral("applyToAll")));
    actions->addSeparator();
    for (const char* n : {"enqueue", "prune", "vacuum", "upgrade"}) {
        actions->addAction(action(QString::fromLatin1(n)));
    }
    actions->addSeparator();
    actions->addAction(action(QStringLiteral("undo")));

    QMenu* view = menuBar()->addMenu(tr("&View"));
    view->addAction(action(QStringLiteral("refresh")));
    view->addAction(action(QStringLiteral("live")));
    view->addAction(action(QStringLiteral("utc")));
    view->addAction(action(QStringLiteral("backlogThreshold")));
    view->addSeparator();
    for (const char* n : {"queuesDock", "detailDock"}) {
        if (auto* dock = findChild<QDockWidget*>(QString::fromLatin1(n))) {
            view->addAction(dock->toggleViewAction());
        }
    }

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(action(QStringLiteral("about")));
    help->addAction(action(QStringLiteral("aboutQt")));

    QToolBar* tb = addToolBar(tr("Actions"));
    tb->setObjectName(QStringLiteral("mainToolBar"));
    tb->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    tb->setIconSize(QSize(20, 20));
    tb->addAction(action(QStringLiteral("open")));
    tb->addSeparator();
    for (const char* n : {"retry", "markFailed", "retryExpired", "release", "reschedule", "delete",
                          "prune", "vacuum", "enqueue", "undo"}) {
        tb->addAction(action(QString::fromLatin1(n)));
    }
    tb->addSeparator();
    tb->addAction(action(QStringLiteral("refresh")));
    tb->addAction(action(QStringLiteral("readOnly")));
}

void MainWindow::createWidgets() {
    auto* central = new QWidget(this);
    auto* layout = new QVBoxLayout(central);
    layout->setContentsMargins(4, 4, 4, 0);
    layout->setSpacing(4);

    m_banners = new BannerBar(central);
    layout->addWidget(m_banners);

    // Two views of the open queue: its messages and its timing dashboard.
    m_tabs = new QTabWidget(central);
    m_tabs->setObjectName(QStringLiteral("viewTabs"));
    m_tabs->setDocumentMode(true);
    auto* messagesPage = new QWidget(m_tabs);
    auto* pageLayout = new QVBoxLayout(messagesPage);
    pageLayout->setContentsMargins(0, 4, 0, 0);
    pageLayout->setSpacing(4);

    auto* filterRow = new QHBoxLayout;
    m_filterBar = new StatusFilterBar(central);
    filterRow->addWidget(m_filterBar);
    filterRow->addStretch(1);
    m_search = new QLineEdit(central);
    m_search->setObjectName(QStringLiteral("search"));
    m_search->setPlaceholderText(tr("Search id, idempotency key, payload"));
    m_search->setClearButtonEnabled(true);
    m_search->setMinimumWidth(260);
    filterRow->addWidget(m_search);
    auto* stuckLabel = new QLabel(tr("Stuck after"), central);
    filterRow->addWidget(stuckLabel);
    m_stuckSpin = new QSpinBox(central);
    m_stuckSpin->setObjectName(QStringLiteral("stuckThreshold"));
    m_stuckSpin->setRange(1, 30 * 86400);
    m_stuckSpin->setValue(300);
    m_stuckSpin->setSuffix(tr(" s"));
    m_stuckSpin->setToolTip(tr("A LOCKED message whose lock is older than this is shown as stuck"));
    stuckLabel->setBuddy(m_stuckSpin);
    filterRow->addWidget(m_stuckSpin);
    pageLayout->addLayout(filterRow);

    // What the dashboard narrowed the table to (a time range, a histogram
    // bar), with a way back to every message.
    m_narrowRow = new QWidget(messagesPage);
    auto* narrowLayout = new QHBoxLayout(m_narrowRow);
    narrowLayout->setContentsMargins(0, 0, 0, 0);
    m_narrowLabel = new QLabel(m_narrowRow);
    m_narrowLabel->setTextFormat(Qt::PlainText);
    m_narrowLabel->setObjectName(QStringLiteral("narrowLabel"));
    auto* clearNarrow = new QToolButton(m_narrowRow);
    clearNarrow->setText(tr("Show all messages"));
    clearNarrow->setObjectName(QStringLiteral("clearNarrow"));
    narrowLayout->addWidget(m_narrowLabel);
    narrowLayout->addWidget(clearNarrow);
    narrowLayout->addStretch(1);
    m_narrowRow->setVisible(false);
    pageLayout->addWidget(m_narrowRow);
    connect(clearNarrow, &QToolButton::clicked, this, [this] {
        m_rangeFrom.reset();
        m_rangeTo.reset();
        m_band.reset();
        applyFilter();
    });

    m_view = new QTableView(central);
    m_view->setObjectName(QStringLiteral("messageTable"));
    m_view->setModel(m_model);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_view->setAlternatingRowColors(true);
    m_view->setWordWrap(false);
    m_view->setTextElideMode(Qt::ElideRight);
    m_view->verticalHeader()->setVisible(false);
    m_view->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 8);
    m_view->horizontalHeader()->setHighlightSections(false);
    m_view->horizontalHeader()->setSortIndicator(MessageModel::MessageId, Qt::AscendingOrder);
    m_view->horizontalHeader()->setSortIndicatorShown(true);
    m_view->setSortingEnabled(true);
    m_view->setContextMenuPolicy(Qt::CustomContextMenu);
    m_view->setIconSize(QSize(14, 14));
    const QFontMetrics fm(m_view->font());
    const int digit = fm.horizontalAdvance(QLatin1Char('0'));
    const int timeWidth = fm.horizontalAdvance(QStringLiteral("03-14 09:00:09Z")) + 16;
    QHeaderView* hh = m_view->horizontalHeader();
    hh->resizeSection(MessageModel::MessageId, digit * 37 + 16);
    hh->resizeSection(MessageModel::Status, fm.horizontalAdvance(QStringLiteral("LOCKED")) + 56);
    hh->resizeSection(MessageModel::Claim, digit * 6 + 12);
    hh->resizeSection(MessageModel::IdempotencyKey, digit * 11);
    hh->resizeSection(MessageModel::Payload, digit * 28);
    hh->resizeSection(MessageModel::Enqueued, timeWidth);
    hh->resizeSection(MessageModel::Claimed, timeWidth);
    hh->resizeSection(MessageModel::Finished, timeWidth);
    hh->resizeSection(MessageModel::Wait, digit * 9);
    hh->resizeSection(MessageModel::Processing, fm.horizontalAdvance(tr("Processing")) + 24);
    hh->resizeSection(MessageModel::Age, digit * 9);
    hh->setStretchLastSection(true);
    pageLayout->addWidget(m_view, 1);
    m_tabs->addTab(messagesPage, QIcon(QStringLiteral(":/icons/list.svg")), tr("&Messages"));

    m_dashboard = new DashboardWidget(m_tabs);
    m_dashboard->setObjectName(QStringLiteral("dashboard"));
    m_tabs->addTab(m_dashboard, QIcon(QStringLiteral(":/icons/chart.svg")), tr("&Dashboard"));
    layout->addWidget(m_tabs, 1);
    setCentralWidget(central);
    connect(m_dashboard, &DashboardWidget::timeRangeChanged, this,
            [this](std::optional<qint64> from, std::optional<qint64> to) {
                m_rangeFrom = from;
                m_rangeTo = to;
                applyFilter();
            });
    connect(m_dashboard, &DashboardWidget::histogramBarClicked, this,
            [this](const core::Filter& f) {
                // The bar's messages, in the table: its band and the range.
                m_band = f;
                m_rangeFrom = f.inTimeFrom;
                m_rangeTo = f.inTimeTo;
                m_filterBar->setChoice(StatusFilterBar::All);
                applyFilter();
                m_tabs->setCurrentIndex(0);
            });

    m_detail = new MessageDetailPane(this);
    m_detail->setObjectName(QStringLiteral("detailPane"));
    auto* dock = new QDockWidget(tr("Message"), this);
    dock->setObjectName(QStringLiteral("detailDock"));
    dock->setWidget(m_detail);
    dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetClosable |
                      QDockWidget::DockWidgetFloatable);
    addDockWidget(Qt::BottomDockWidgetArea, dock);
    // The message detail belongs to the table: it makes room for the charts
    // while the dashboard is shown, and comes back with the table.
    connect(m_tabs, &QTabWidget::currentChanged, this, [this, dock](int index) {
        if (index == 1) {
            m_detailWasVisible = dock->isVisible();
            dock->hide();
        } else if (m_detailWasVisible) {
            dock->show();
        }
    });

    m_sidebar = new QueueSidebar(m_fleet, this);
    m_sidebar->setObjectName(QStringLiteral("queueSidebar"));
    auto* queuesDock = new QDockWidget(tr("Queues"), this);
    queuesDock->setObjectName(QStringLiteral("queuesDock"));
    queuesDock->setWidget(m_sidebar);
    queuesDock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetClosable |
                            QDockWidget::DockWidgetFloatable);
    addDockWidget(Qt::LeftDockWidgetArea, queuesDock);
    connect(m_sidebar, &QueueSidebar::queueActivated, this,
            [this](const QString& path, const QString& table) {
                openQueue(path, table);
                emit queueActivated(path, table);
            });
    connect(m_sidebar, &QueueSidebar::watchFolderRequested, action(QStringLiteral("watchFolder")),
            &QAction::trigger);
    connect(m_fleet, &QAbstractItemModel::rowsInserted, this, [this] {
        if (m_queue) {
            m_sidebar->setCurrent(m_path, fromStd(m_info.table));
        }
    });

    m_formatLabel = new QLabel(this);
    m_journalLabel = new QLabel(this);
    m_walLabel = new QLabel(this);
    m_rowsLabel = new QLabel(this);
    m_refreshLabel = new QLabel(this);
    for (QLabel* l : {m_rowsLabel, m_formatLabel, m_journalLabel, m_walLabel, m_refreshLabel}) {
        l->setTextFormat(Qt::PlainText);
        statusBar()->addPermanentWidget(l);
    }

    // Wiring.
    m_searchDebounce.setSingleShot(true);
    m_searchDebounce.setInterval(250);
    connect(&m_searchDebounce, &QTimer::timeout, this, &MainWindow::applyFilter);
    connect(m_search, &QLineEdit::textChanged, this, [this] { m_searchDebounce.start(); });
    connect(m_filterBar, &StatusFilterBar::filterChanged, this, &MainWindow::applyFilter);
    connect(m_stuckSpin, &QSpinBox::valueChanged, this, [this](int s) {
        m_fleet->setStuckThresholdSeconds(s);
        m_model->setStuckThresholdSeconds(s);
        m_detail->setStuckThresholdSeconds(s);
        m_dashboard->setStuckThreshold(qint64(s) * core::kNsPerSecond);
        if (m_filterBar->choice() == StatusFilterBar::Stuck) {
            applyFilter();
        }
    });
    connect(hh, &QHeaderView::sortIndicatorChanged, this, [this, hh](int col, Qt::SortOrder o) {
        if (!MessageModel::isSortable(col)) {
            // Payload and key have no order in the file: keep the previous sort.
            QSignalBlocker block(hh);
            hh->setSortIndicator(m_sortColumn, m_sortOrder);
            return;
        }
        m_sortColumn = col;
        m_sortOrder = o;
    });
    connect(m_model, &MessageModel::countsChanged, this, [this](const core::Counts& c) {
        m_filterBar->setCounts(c);
        updateStatusBar();
    });
    // The dashboard recomputes when the file changed (it skips the work while
    // its tab is hidden and catches up when shown).
    connect(m_model, &MessageModel::dataVersionChanged, m_dashboard, &DashboardWidget::refresh);
    connect(m_model, &MessageModel::refreshed, this, &MainWindow::updateStatusBar);
    connect(m_model, &MessageModel::orderingReset, this, &MainWindow::updateStatusBar);
    connect(m_model, &MessageModel::errorOccurred, this,
            [this](const QString& e) { showError(e, false); });
    connect(m_model, &MessageModel::fileStateChanged, this, &MainWindow::onFileStateChanged);
    connect(m_model, &QAbstractItemModel::modelAboutToBeReset, this, &MainWindow::rememberCurrent);
    connect(m_model, &QAbstractItemModel::modelReset, this, &MainWindow::restoreCurrent);
    connect(m_model, &MessageModel::located, this, [this](const QString& id, int row) {
        if (id != m_restoreId || row < 0) {
            return;
        }
        m_restoreId.clear();
        const QModelIndex idx = m_model->index(row, MessageModel::MessageId);
        m_view->selectionModel()->setCurrentIndex(idx, QItemSelectionModel::ClearAndSelect |
                                                           QItemSelectionModel::Rows);
        m_view->scrollTo(idx, QAbstractItemView::PositionAtCenter);
    });
    connect(m_model, &QAbstractItemModel::dataChanged, this,
            [this](const QModelIndex& tl, const QModelIndex& br) {
                if (m_firstPagePending) {
                    const int top = std::max(0, m_view->rowAt(0));
                    if (m_model->rowAt(top)) {
                        m_firstPagePending = false;
                        const qint64 ms = m_openClock.elapsed();
                        qCInfo(lcWindow).noquote()
                            << "first page of" << m_path << "shown" << ms << "ms after open ("
                            << m_model->rowCount() << "rows)";
                        statusBar()->showMessage(
                            tr("Opened %1: first page in %2 ms").arg(m_path).arg(ms), 8000);
                    }
                }
                const QModelIndex cur = m_view->currentIndex();
                if (cur.isValid() && cur.row() >= tl.row() && cur.row() <= br.row()) {
                    onCurrentChanged();
                }
            });
    connect(m_model, &QAbstractItemModel::rowsRemoved, this, &MainWindow::onCurrentChanged);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &MainWindow::onCurrentChanged);
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &MainWindow::updateActions);
    connect(m_view, &QWidget::customContextMenuRequested, this, &MainWindow::showContextMenu);
    connect(m_detail, &MessageDetailPane::errorOccurred, this,
            [this](const QString& e) { showError(e, false); });
}

void MainWindow::restoreSettings() {
    QSettings s = settings();
    if (!restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray())) {
        QSize size(1400, 900);
        if (QScreen* screen = QGuiApplication::primaryScreen()) {
            size = size.boundedTo(screen->availableSize());
        }
        resize(size);
    }
    if (!restoreState(s.value(QStringLiteral("window/state")).toByteArray())) {
        if (auto* dock = findChild<QDockWidget*>(QStringLiteral("detailDock"))) {
            resizeDocks({dock}, {height() / 3}, Qt::Vertical);
        }
        if (auto* dock = findChild<QDockWidget*>(QStringLiteral("queuesDock"))) {
            resizeDocks({dock}, {290}, Qt::Horizontal);
        }
    }
    m_fleet->setBacklogThresholdSeconds(
        s.value(QStringLiteral("fleet/backlogThresholdSeconds"), 600).toInt());
    m_recent = s.value(QStringLiteral("recentFiles")).toStringList();
    // Column widths and order; the sort always starts in arrival order.
    QHeaderView* hh = m_view->horizontalHeader();
    if (hh->restoreState(s.value(QStringLiteral("table/header")).toByteArray())) {
        QSignalBlocker block(hh);
        hh->setSortIndicator(MessageModel::MessageId, Qt::AscendingOrder);
    }
    m_stuckSpin->setValue(s.value(QStringLiteral("stuckThresholdSeconds"), 300).toInt());
    action(QStringLiteral("utc"))->setChecked(s.value(QStringLiteral("utc"), false).toBool());
    rebuildRecentMenu();
}

void MainWindow::saveSettings() {
    QSettings s = settings();
    s.setValue(QStringLiteral("window/geometry"), saveGeometry());
    // The dashboard tab hides the detail dock for room; what is saved is the
    // operator's own choice, not that.
    auto* dock = findChild<QDockWidget*>(QStringLiteral("detailDock"));
    const bool hiddenForDashboard = dock && m_tabs->currentIndex() == 1 && m_detailWasVisible;
    if (hiddenForDashboard) {
        dock->show();
    }
    s.setValue(QStringLiteral("window/state"), saveState());
    if (hiddenForDashboard) {
        dock->hide();
    }
    s.setValue(QStringLiteral("table/header"), m_view->horizontalHeader()->saveState());
    s.setValue(QStringLiteral("recentFiles"), m_recent);
    s.setValue(QStringLiteral("stuckThresholdSeconds"), m_stuckSpin->value());
    s.setValue(QStringLiteral("utc"), action(QStringLiteral("utc"))->isChecked());
}

void MainWindow::closeEvent(QCloseEvent* event) {
    saveSettings();
    QMainWindow::closeEvent(event);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (event->mimeData()->hasUrls()) {
        const QList<QUrl> urls = event->mimeData()->urls();
        for (const QUrl& u : urls) {
            if (u.isLocalFile()) {
                event->acceptProposedAction();
                return;
            }
        }
    }
}

void MainWindow::dropEvent(QDropEvent* event) {
    QStringList paths;
    const QList<QUrl> urls = event->mimeData()->urls();
    for (const QUrl& u : urls) {
        if (u.isLocalFile()) {
            paths << u.toLocalFile();
        }
    }
    if (!paths.isEmpty()) {
        event->acceptProposedAction();
        openFiles(paths);
    }
}

void MainWindow::addRecent(const QString& path) {
    m_recent.removeAll(path);
    m_recent.prepend(path);
    while (m_recent.size() > kMaxRecent) {
        m_recent.removeLast();
    }
    rebuildRecentMenu();
    settings().setValue(QStringLiteral("recentFiles"), m_recent);
}

void MainWindow::rebuildRecentMenu() {
    m_recentMenu->clear();
    for (const QString& p : std::as_const(m_recent)) {
        QAction* a = m_recentMenu->addAction(
            QFileInfo(p).fileName() + QStringLiteral("  \u2014  ") + QFileInfo(p).absolutePath());
        connect(a, &QAction::triggered, this, [this, p] { openFile(p); });
    }
    m_recentMenu->setEnabled(!m_recent.isEmpty());
}

void MainWindow::selectMessage(const QString& messageId) {
    if (!m_queue || m_busyJobs > 0) {
        m_pendingSelect = messageId;
        return;
    }
    m_restoreId = messageId;
    if (m_model->hasOrdering()) {
        m_model->locate(messageId);
    }
}

void MainWindow::openFiles(const QStringList& paths) {
    if (paths.isEmpty()) {
        return;
    }
    // Every file is listed in the sidebar (and the recent menu); the first
    // is shown.
    for (qsizetype i = paths.size() - 1; i >= 1; --i) {
        const QFileInfo fi(paths.at(i));
        if (fi.isDir()) {
            watchFolder(fi.absoluteFilePath());
        } else {
            m_fleet->addFile(fi.absoluteFilePath());
            addRecent(fi.absoluteFilePath());
        }
    }
    openFile(paths.first());
}

void MainWindow::watchFolder(const QString& dir) {
    const QFileInfo fi(dir);
    if (!fi.isDir()) {
        showError(tr("%1 is not a folder. Pick a folder that holds queue files.").arg(dir));
        return;
    }
    m_fleet->watchFolder(fi.absoluteFilePath());
    statusBar()->showMessage(tr("Watching %1 for queue files").arg(fi.absoluteFilePath()), 8000);
}

void MainWindow::openQueue(const QString& path, const QString& table) {
    // No stat here (a sidebar click): the worker's open says what is wrong.
    const QString abs = QFileInfo(path).absoluteFilePath();
    if (abs == m_path && (table.isEmpty() || table == fromStd(m_info.table)) && m_queue) {
        return;
    }
    openWith(abs, false, table);
}

void MainWindow::openFile(const QString& path) {
    // No file-system checks here: the worker's open says precisely what is
    // wrong with the path (missing, a directory, a link loop, ...), and the
    // file joins the sidebar once it opened.
    m_addToSidebarOnOpen = true;
    openWith(QFileInfo(path).absoluteFilePath(), false);
}

void MainWindow::reopen() {
    if (!m_path.isEmpty()) {
        openWith(m_path, action(QStringLiteral("readOnly"))->isChecked(), m_table);
    }
}

void MainWindow::openWith(const QString& path, bool readOnly, const QString& table) {
    const quint64 gen = ++m_openGeneration;
    ++m_busyJobs;
    m_openClock.start();
    statusBar()->showMessage(tr("Opening %1\u2026").arg(path));
    QApplication::setOverrideCursor(Qt::BusyCursor);
    runAsync(
        this,
        [path, readOnly, gen, table]() -> OpenResult {
            OpenResult r;
            r.generation = gen;
            r.path = path;
            QElapsedTimer t;
            t.start();
            try {
                core::OpenOptions o;
                // Read-only when asked, and by default when we could not
                // write the file anyway.
                o.readOnly = readOnly || ::access(toStd(path).c_str(), W_OK) != 0;
                o.table = toStd(table);
                std::unique_ptr<core::Queue> q = core::Queue::open(toStd(path), o);
                r.info = q->info();
                r.readOnly = q->readOnly();
                r.queue = std::shared_ptr<core::Queue>(std::move(q));
            } catch (const std::exception& e) {
                r.error = errorMessage(e);
            }
            r.elapsedMs = t.elapsed();
            return r;
        },
        [this](OpenResult r) {
            --m_busyJobs;
            QApplication::restoreOverrideCursor();
            if (r.generation != m_openGeneration) {
                return;
            }
            onOpened(std::move(r));
        });
}

void MainWindow::onOpened(OpenResult&& r) {
    if (!r.error.isEmpty()) {
        // lqcore's messages already name the file; keep the current one open.
        showError(tr("Cannot open %1:\n%2").arg(QFileInfo(r.path).fileName(), r.error));
        return;
    }
    const bool samePath = r.path == m_path;
    if (std::exchange(m_addToSidebarOnOpen, false)) {
        m_fleet->addFile(r.path);
    }
    m_queue = std::move(r.queue);
    m_info = r.info;
    m_queueReadOnly = r.readOnly;
    m_path = r.path;
    m_table = fromStd(m_info.table);
    {
        QSignalBlocker block(action(QStringLiteral("readOnly")));
        action(QStringLiteral("readOnly"))->setChecked(m_queueReadOnly);
    }
    if (!samePath) {
        m_restoreId = m_pendingSelect;
        m_pendingSelect.clear();
    } else {
        rememberCurrent();
    }
    if (!samePath) {
        m_filterBar->setChoice(StatusFilterBar::All);
    }
    m_filterBar->setFormat(m_info.format);
    applyColumnSet();
    m_detail->setQueue(m_queue);
    if (!samePath) {
        m_rangeFrom.reset();
        m_rangeTo.reset();
        m_band.reset();
    }
    m_dashboard->setQueue(m_queue);
    applyFilter(); // before setQueue: one ordering job, not two
    m_model->setQueue(m_queue, m_path);
    addRecent(m_path);
    m_sidebar->setCurrent(m_path, m_table);
    m_firstPagePending = true;
    updateTitle();
    updateBanners();
    updateActions();
    updateStatusBar();
}

bool MainWindow::isReady() const {
    return m_queue && m_model->hasOrdering() && m_model->isIdle() && m_busyJobs == 0;
}

QString MainWindow::fileName() const {
    return QFileInfo(m_path).fileName();
}

void MainWindow::updateTitle() {
    if (m_path.isEmpty()) {
        setWindowTitle(tr("LiteQueue Admin"));
        return;
    }
    QString t = fileName();
    if (m_info.format == core::Format::LitequeueMulti) {
        t += QStringLiteral(" \u203a ") + m_table;
    }
    if (m_queueReadOnly) {
        t += tr(" [read-only]");
    }
    setWindowTitle(t + QStringLiteral(" \u2014 ") + tr("LiteQueue Admin"));
    setWindowFilePath(m_path);
}

void MainWindow::updateBanners() {
    m_banners->removeBanner(QStringLiteral("readonly"));
    m_banners->removeBanner(QStringLiteral("format"));
    for (const QString& k : m_banners->keys()) {
        if (k.startsWith(QStringLiteral("warning"))) {
            m_banners->removeBanner(k);
        }
    }
    if (!m_queue) {
        return;
    }
    if (m_info.formatReadOnly()) {
        m_banners->setBanner(QStringLiteral("readonly"), BannerBar::Level::Warning,
                             tr("Read-only: %1").arg(fromStd(m_info.readOnlyReason)));
    } else if (m_queueReadOnly) {
        const bool writable = QFileInfo(m_path).isWritable();
        m_banners->setBanner(
            QStringLiteral("readonly"), BannerBar::Level::Info,
            writable ? tr("Read-only mode: actions are off. Turn off File › Read-only to change "
                          "the queue.")
                     : tr("Read-only: you cannot write to %1 (file permissions).").arg(m_path));
    }
    const bool upgradable = !m_queueReadOnly && !m_info.formatReadOnly();
    auto upgradeButton = [this] { upgradeFile(); };
    if (m_info.format == core::Format::LitequeueLegacy) {
        m_banners->setBanner(
            QStringLiteral("format"), BannerBar::Level::Info,
            tr("Legacy litequeue file (0.6\u20130.12): no claim ids, so actions check lock_time "
               "as the claim token. Upgrading to 0.14 adds claim ids and idempotency keys."),
            upgradable ? tr("Upgrade\u2026") : QString(), upgradeButton);
    } else if (m_info.format == core::Format::Litequeue013) {
        m_banners->setBanner(QStringLiteral("format"), BannerBar::Level::Info,
                             tr("litequeue 0.13 file (times in seconds). Upgrading to 0.14 "
                                "converts the times to nanoseconds."),
                             upgradable ? tr("Upgrade\u2026") : QString(), upgradeButton);
    }
    int i = 0;
    for (const std::string& w : m_info.warnings) {
        m_banners->setBanner(QStringLiteral("warning%1").arg(i++), BannerBar::Level::Warning,
                             fromStd(w));
    }
}

void MainWindow::onFileStateChanged(MessageModel::FileState state) {
    switch (state) {
    case MessageModel::FileState::Ok:
        m_banners->removeBanner(QStringLiteral("file"));
        break;
    case MessageModel::FileState::Missing:
        m_banners->setBanner(QStringLiteral("file"), BannerBar::Level::Error,
                             tr("%1 was deleted. The table shows what was last read.").arg(m_path));
        break;
    case MessageModel::FileState::Replaced:
        m_banners->setBanner(
            QStringLiteral("file"), BannerBar::Level::Error,
            tr("%1 was replaced by another file. The table shows the old one.").arg(m_path),
            tr("Reopen"), [this] { reopen(); });
        break;
    }
}

void MainWindow::updateStatusBar() {
    if (!m_queue) {
        m_formatLabel->setText(tr("No file"));
        m_journalLabel->clear();
        m_walLabel->clear();
        m_rowsLabel->clear();
        m_refreshLabel->clear();
        return;
    }
    const QLocale locale;
    m_rowsLabel->setText(tr("%1 shown").arg(locale.toString(m_model->rowCount())));
    m_formatLabel->setText(QString::fromLatin1(core::formatId(m_info.format)));
    m_journalLabel->setText(tr("journal: %1").arg(fromStd(m_info.journalMode)));
    m_walLabel->setText(tr("WAL %1").arg(humanBytes(m_model->walBytes())));
    const QDateTime last = m_model->lastRefresh();
    m_refreshLabel->setText(last.isValid()
                                ? tr("refreshed %1").arg(last.toString(QStringLiteral("HH:mm:ss")))
                                : tr("loading\u2026"));
}

void MainWindow::updateActions() {
    const bool open = m_queue != nullptr;
    const bool writable = open && !m_queueReadOnly;
    const bool litequeue = open && m_info.format != core::Format::JobsLease;
    const bool rows = open && (applyToAllMatching() || m_view->selectionModel()->hasSelection());
    const bool jobs = open && m_info.format == core::Format::JobsLease;
    action(QStringLiteral("retry"))->setEnabled(writable && litequeue && rows);
    action(QStringLiteral("markFailed"))->setEnabled(writable && litequeue && rows);
    action(QStringLiteral("release"))->setEnabled(writable && jobs && rows);
    action(QStringLiteral("reschedule"))->setEnabled(writable && jobs && rows);
    action(QStringLiteral("delete"))->setEnabled(writable && jobs && rows);
    action(QStringLiteral("retryExpired"))->setEnabled(writable && litequeue);
    action(QStringLiteral("prune"))->setEnabled(writable && litequeue);
    action(QStringLiteral("vacuum"))->setEnabled(writable);
    action(QStringLiteral("enqueue"))->setEnabled(writable && litequeue);
    action(QStringLiteral("upgrade"))
        ->setEnabled(writable && (m_info.format == core::Format::LitequeueLegacy ||
                                  m_info.format == core::Format::Litequeue013));
    action(QStringLiteral("undo"))->setEnabled(writable);
    action(QStringLiteral("reopen"))->setEnabled(open);
    action(QStringLiteral("refresh"))->setEnabled(open);
    action(QStringLiteral("readOnly"))->setEnabled(open);
}

void MainWindow::applyColumnSet() {
    // jobs-lease rows have no key, no finish time and no latency history.
    const bool jobs = m_info.format == core::Format::JobsLease;
    for (int c : {MessageModel::IdempotencyKey, MessageModel::Wait, MessageModel::Processing}) {
        m_view->setColumnHidden(c, jobs);
    }
}

QString MainWindow::auditWrite(const std::string& path, Action action,
                               std::vector<core::AppliedRow> applied, const std::string& note) {
    core::AuditEntry e;
    e.when = core::systemNowNs();
    e.queuePath = path;
    e.action = action;
    e.user = currentUser();
    e.tool = "lqadmin";
    e.applied = std::move(applied);
    e.note = note;
    try {
        core::AuditLog().append(e);
        return {};
    } catch (const std::exception& ex) {
        return tr("done, but the audit log could not be written: %1").arg(errorMessage(ex));
    }
}

void MainWindow::applyFilter() {
    core::Filter f;
    StatusFilterBar::applyTo(m_filterBar->choice(), f);
    f.inTimeFrom = m_rangeFrom;
    f.inTimeTo = m_rangeTo;
    if (m_band) {
        f.metric = m_band->metric;
        f.metricLo = m_band->metricLo;
        f.metricHi = m_band->metricHi;
    }
    updateNarrowRow();
    f.search = toStd(m_search->text());
    f.stuckAfterNs = core::TimeNs(m_stuckSpin->value()) * core::kNsPerSecond;
    m_model->setStuckThresholdSeconds(m_stuckSpin->value());
    m_model->setFilter(f);
}

void MainWindow::updateNarrowRow() {
    QStringList parts;
    const bool utc = action(QStringLiteral("utc"))->isChecked();
    const auto when = [utc](qint64 t) { return formatInstant(t, utc, false); };
    if (m_rangeFrom || m_rangeTo) {
        parts << tr("enqueued %1 – %2")
                     .arg(m_rangeFrom ? when(*m_rangeFrom) : tr("start"),
                          m_rangeTo ? when(*m_rangeTo) : tr("now"));
    }
    if (m_band) {
        static const char* names[] = {"", "wait", "processing", "total", "time to failure"};
        const auto metric = static_cast<int>(m_band->metric);
        const QString lo = m_band->metricLo <= 0 ? tr("0") : humanDuration(m_band->metricLo);
        const QString hi = m_band->metricHi == std::numeric_limits<qint64>::max()
                               ? tr("∞")
                               : humanDuration(m_band->metricHi);
        parts << tr("%1 from %2 to %3")
                     .arg(QString::fromLatin1(names[std::clamp(metric, 0, 4)]), lo, hi);
    }
    m_narrowLabel->setText(
        tr("Narrowed by the dashboard: %1").arg(parts.join(QStringLiteral("; "))));
    m_narrowRow->setVisible(!parts.isEmpty());
}

void MainWindow::rememberCurrent() {
    const QModelIndex cur = m_view->currentIndex();
    if (cur.isValid()) {
        if (const MessageRow* r = m_model->rowAt(cur.row())) {
            m_restoreId = fromStd(r->msg.messageId);
        }
    }
    m_restoreScroll = m_view->verticalScrollBar()->value();
}

void MainWindow::restoreCurrent() {
    const int scroll = m_restoreScroll;
    QTimer::singleShot(0, this, [this, scroll] { m_view->verticalScrollBar()->setValue(scroll); });
    if (!m_restoreId.isEmpty() && m_model->hasOrdering()) {
        m_model->locate(m_restoreId);
    }
    onCurrentChanged();
}

void MainWindow::onCurrentChanged() {
    const QModelIndex cur = m_view->currentIndex();
    m_detail->showRow(cur.isValid() ? m_model->rowAt(cur.row()) : nullptr);
}

void MainWindow::showContextMenu(const QPoint& pos) {
    QMenu menu(this);
    if (m_info.format == core::Format::JobsLease) {
        for (const char* n : {"release", "reschedule", "delete"}) {
            menu.addAction(action(QString::fromLatin1(n)));
        }
    } else {
        menu.addAction(action(QStringLiteral("retry")));
        menu.addAction(action(QStringLiteral("markFailed")));
    }
    menu.addSeparator();
    menu.addAction(action(QStringLiteral("copyId")));
    menu.addAction(action(QStringLiteral("applyToAll")));
    menu.exec(m_view->viewport()->mapToGlobal(pos));
}

void MainWindow::setApplyToAllMatching(bool on) {
    action(QStringLiteral("applyToAll"))->setChecked(on);
    updateActions();
}

bool MainWindow::applyToAllMatching() const {
    return action(QStringLiteral("applyToAll"))->isChecked();
}

bool MainWindow::readOnlyMode() const {
    return m_queueReadOnly;
}

void MainWindow::setReadOnlyMode(bool on) {
    if (!m_path.isEmpty() && on != m_queueReadOnly) {
        action(QStringLiteral("readOnly"))->setChecked(on);
        openWith(m_path, on, m_table);
    }
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

bool MainWindow::checkWritable() {
    if (!m_queue) {
        showError(tr("Open a queue file first (File › Open)."));
        return false;
    }
    if (m_queueReadOnly) {
        showError(m_info.formatReadOnly()
                      ? tr("%1 is read-only: %2").arg(fileName(), fromStd(m_info.readOnlyReason))
                      : tr("%1 is open read-only. Turn off File › Read-only to change it.")
                            .arg(fileName()));
        return false;
    }
    if (m_busyJobs > 0) {
        showError(tr("Another action on %1 is still running.").arg(fileName()), false);
        return false;
    }
    return true;
}

bool MainWindow::confirm(const QString& text, qint64 count) {
    // Refresh pauses while the operator decides, so the count confirmed is
    // the count shown.
    const bool live = m_model->liveRefresh();
    m_model->setLiveRefresh(false);
    bool ok = false;
    if (m_confirm) {
        ok = m_confirm(text, count);
    } else {
        QMessageBox box(QMessageBox::Question, tr("Confirm"), text,
                        QMessageBox::Ok | QMessageBox::Cancel, this);
        box.setTextFormat(Qt::PlainText);
        box.setDefaultButton(QMessageBox::Cancel);
        ok = box.exec() == QMessageBox::Ok;
    }
    m_model->setLiveRefresh(live);
    return ok;
}

void MainWindow::prepareTargets(Action action, TargetsReady ready) {
    Q_UNUSED(action);
    if (applyToAllMatching()) {
        core::Filter f = m_model->filter();
        f.now = core::systemNowNs(); // the filter is fixed at this moment
        ++m_busyJobs;
        runAsync(
            this,
            [q = m_queue, f]() -> std::pair<std::vector<Target>, QString> {
                try {
                    return {q->targetsFor(f), {}};
                } catch (const std::exception& e) {
                    return {{}, errorMessage(e)};
                }
            },
            [this, ready](std::pair<std::vector<Target>, QString> r) {
                --m_busyJobs;
                if (!r.second.isEmpty()) {
                    showError(r.second);
                    return;
                }
                ready(std::move(r.first));
            });
        return;
    }
    // The selection, with the tokens of the rows as they were shown.
    std::vector<Target> targets;
    std::vector<std::int64_t> unloaded;
    const QModelIndexList rows = m_view->selectionModel()->selectedRows();
    for (const QModelIndex& i : rows) {
        if (const MessageRow* r = m_model->rowAt(i.row())) {
            targets.push_back({r->msg.messageId, r->msg.token});
        } else if (m_model->rowIdAt(i.row()) >= 0) {
            unloaded.push_back(m_model->rowIdAt(i.row()));
        }
    }
    if (unloaded.empty()) {
        ready(std::move(targets));
        return;
    }
    // Rows selected but never shown (a shift-click over pages): read their
    // current tokens.
    ++m_busyJobs;
    runAsync(
        this,
        [q = m_queue, targets = std::move(targets),
         unloaded]() mutable -> std::pair<std::vector<Target>, QString> {
            try {
                for (const core::Message& m : q->fetchRowids(unloaded)) {
                    targets.push_back({m.messageId, m.token});
                }
                return {std::move(targets), {}};
            } catch (const std::exception& e) {
                return {{}, errorMessage(e)};
            }
        },
        [this, ready](std::pair<std::vector<Target>, QString> r) {
            --m_busyJobs;
            if (!r.second.isEmpty()) {
                showError(r.second);
                return;
            }
            ready(std::move(r.first));
        });
}

void MainWindow::runRowAction(Action a, double delaySeconds) {
    if (!checkWritable()) {
        return;
    }
    const bool jobs = m_info.format == core::Format::JobsLease;
    const bool jobsAction = a == Action::Release || a == Action::Reschedule || a == Action::Delete;
    if (jobs != jobsAction) {
        showError(
            jobs
                ? tr("%1 is a jobs-lease queue: use Release, Reschedule or Delete.").arg(fileName())
                : tr("%1 applies to jobs-lease queues only.").arg(actionTitle(a)),
            false);
        return;
    }
    if (!applyToAllMatching() && !m_view->selectionModel()->hasSelection()) {
        showError(tr("Select messages first, or choose Actions › Apply to all matching the "
                     "filter."),
                  false);
        return;
    }
    const bool all = applyToAllMatching();
    // Pause refresh from the moment the targets are taken.
    m_model->setLiveRefresh(false);
    prepareTargets(a, [this, a, all, delaySeconds](std::vector<Target> targets) {
        m_model->setLiveRefresh(action(QStringLiteral("live"))->isChecked());
        const QString title = actionTitle(a);
        if (targets.empty()) {
            ActionReport rep;
            rep.title = title;
            rep.error = tr("no message matches");
            finishReport(rep);
            return;
        }
        const qint64 n = qint64(targets.size());
        const QString scope =
            all ? tr("every message matching the current filter") : tr("the selected messages");
        QString text =
            tr("%1 %2 message(s) (%3) in %4?").arg(title, QLocale().toString(n), scope, fileName());
        if (a == Action::Reschedule) {
            text = tr("Reschedule %1 job(s) (%2) in %3 to run in %4?")
                       .arg(QLocale().toString(n), scope, fileName(),
                            humanDuration(core::secondsToNs(delaySeconds)));
        } else if (a == Action::Delete) {
            text = tr("Delete %1 job(s) (%2) from %3? Undo can restore them.")
                       .arg(QLocale().toString(n), scope, fileName());
        }
        if (!confirm(text, n)) {
            return;
        }
        applyTargets(a, std::move(targets), title, 500, delaySeconds);
    });
}

void MainWindow::retrySelected() {
    // "Retry now" on a jobs-lease file is its release.
    runRowAction(m_info.format == core::Format::JobsLease ? Action::Release : Action::Retry);
}

void MainWindow::releaseSelected() {
    runRowAction(Action::Release);
}

void MainWindow::rescheduleSelected(double delaySeconds) {
    runRowAction(Action::Reschedule, delaySeconds);
}

void MainWindow::deleteSelected() {
    runRowAction(Action::Delete);
}

void MainWindow::markFailedSelected() {
    runRowAction(Action::MarkFailed);
}

void MainWindow::applyTargets(Action a, std::vector<Target> targets, const QString& title,
                              std::size_t chunkSize, double delaySeconds) {
    auto cancel = std::make_shared<std::atomic_bool>(false);
    QPointer<QProgressDialog> progress;
    if (targets.size() >= kProgressThreshold) {
        progress = new QProgressDialog(tr("%1 in %2\u2026").arg(title, fileName()), tr("Cancel"), 0,
                                       int(targets.size()), this);
        progress->setWindowModality(Qt::WindowModal);
        progress->setMinimumDuration(300);
        progress->setAutoClose(false);
        progress->setAutoReset(false);
        connect(progress, &QProgressDialog::canceled, this, [cancel] { cancel->store(true); });
    }
    ++m_busyJobs;
    QPointer<MainWindow> self(this);
    auto work = [q = m_queue, a, targets = std::move(targets), cancel, chunkSize, progress,
                 path = toStd(m_path), self,
                 delaySeconds]() -> std::pair<core::ActionResult, QString> {
        try {
            core::ActionOptions o;
            o.delaySeconds = delaySeconds;
            o.cancel = cancel.get();
            o.chunkSize = std::max<std::size_t>(1, chunkSize);
            o.progress = [progress, self](std::size_t done, std::size_t) {
                if (!self) {
                    return;
                }
                QMetaObject::invokeMethod(
                    self.data(),
                    [progress, done] {
                        if (progress) {
                            progress->setValue(int(done));
                        }
                    },
                    Qt::QueuedConnection);
            };
            core::ActionResult r = q->apply(a, targets, o);
            if (!r.applied.empty()) {
                core::AuditEntry e;
                e.when = core::systemNowNs();
                e.queuePath = path;
                e.action = a;
                e.user = currentUser();
                e.tool = "lqadmin";
                e.applied = r.applied;
                e.skipped = std::int64_t(r.skipped.size());
                try {
                    core::AuditLog().append(e);
                } catch (const std::exception& ex) {
                    return {std::move(r), QObject::tr("applied, but the audit log could not be "
                                                      "written: %1")
                                              .arg(errorMessage(ex))};
                }
            }
            return {std::move(r), {}};
        } catch (const std::exception& e) {
            return {{}, errorMessage(e)};
        }
    };
    runAsync(this, std::move(work),
             [this, title, progress](std::pair<core::ActionResult, QString> r) {
                 --m_busyJobs;
                 if (progress) {
                     progress->close();
                     progress->deleteLater();
                 }
                 ActionReport rep = reportFrom(title, r.first);
                 rep.error = r.second;
                 finishReport(rep);
                 m_model->refreshNow();
             });
}

void MainWindow::finishReport(const ActionReport& report) {
    m_lastReport = report;
    ++m_reportCount;
    statusBar()->showMessage(report.summary(), 15000);
    if (!report.error.isEmpty()) {
        m_lastError = report.summary();
    }
    if (m_report) {
        m_report(report);
        return;
    }
    auto* box =
        new QMessageBox(report.error.isEmpty() ? QMessageBox::Information : QMessageBox::Warning,
                        report.title, report.summary(), QMessageBox::Ok, this);
    box->setTextFormat(Qt::PlainText);
    QStringList details;
    if (!report.appliedIds.isEmpty()) {
        details << tr("Applied (%1):").arg(report.applied);
        details << report.appliedIds.mid(0, 1000);
    }
    if (!report.skippedLines.isEmpty()) {
        details << tr("Skipped (%1):").arg(report.skipped);
        details << report.skippedLines.mid(0, 1000);
    }
    if (!details.isEmpty()) {
        box->setDetailedText(details.join(u'\n'));
    }
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setModal(false);
    box->show();
}

void MainWindow::retryExpired(double thresholdSeconds) {
    if (!checkWritable()) {
        return;
    }
    core::Filter f;
    f.states = {core::State::Locked};
    f.stuckOnly = true;
    f.stuckAfterNs = core::secondsToNs(thresholdSeconds);
    f.now = core::systemNowNs();
    ++m_busyJobs;
    runAsync(
        this,
        [q = m_queue, f]() -> std::pair<std::vector<Target>, QString> {
            try {
                return {q->targetsFor(f), {}};
            } catch (const std::exception& e) {
                return {{}, errorMessage(e)};
            }
        },
        [this, thresholdSeconds](std::pair<std::vector<Target>, QString> r) {
            --m_busyJobs;
            const QString title = tr("Retry expired");
            if (!r.second.isEmpty()) {
                showError(r.second);
                return;
            }
            if (r.first.empty()) {
                ActionReport rep;
                rep.title = title;
                rep.error = tr("no LOCKED message is older than %1")
                                .arg(humanDuration(core::secondsToNs(thresholdSeconds)));
                finishReport(rep);
                return;
            }
            const qint64 n = qint64(r.first.size());
            if (!confirm(tr("Retry %1 LOCKED message(s) whose lock is older than %2 in %3? Their "
                            "workers lose them.")
                             .arg(QLocale().toString(n),
                                  humanDuration(core::secondsToNs(thresholdSeconds)), fileName()),
                         n)) {
                return;
            }
            // One chunk: atomic, as retry_expired is.
            applyTargets(Action::Retry, std::move(r.first), title, r.first.size());
        });
}

void MainWindow::prune(std::optional<double> olderThanSeconds, bool includeFailed) {
    if (!checkWritable()) {
        return;
    }
    core::Filter f;
    f.states = {core::State::Done};
    if (includeFailed) {
        f.states.push_back(core::State::Failed);
    }
    const core::TimeNs now = core::systemNowNs();
    f.now = now;
    if (olderThanSeconds) {
        f.doneBefore = now - core::secondsToNs(*olderThanSeconds);
    }
    ++m_busyJobs;
    runAsync(
        this,
        [q = m_queue, f]() -> std::pair<std::vector<Target>, QString> {
            try {
                return {q->targetsFor(f), {}};
            } catch (const std::exception& e) {
                return {{}, errorMessage(e)};
            }
        },
        [this, olderThanSeconds, includeFailed](std::pair<std::vector<Target>, QString> r) {
            --m_busyJobs;
            const QString title = tr("Prune");
            if (!r.second.isEmpty()) {
                showError(r.second);
                return;
            }
            if (r.first.empty()) {
                ActionReport rep;
                rep.title = title;
                rep.error = tr("nothing to prune");
                finishReport(rep);
                return;
            }
            const qint64 n = qint64(r.first.size());
            const QString what = includeFailed ? tr("DONE and FAILED") : tr("DONE");
            const QString when = olderThanSeconds
                                     ? tr(" finished more than %1 ago")
                                           .arg(humanDuration(core::secondsToNs(*olderThanSeconds)))
                                     : QString();
            if (!confirm(tr("Delete %1 %2 message(s)%3 from %4?")
                             .arg(QLocale().toString(n), what, when, fileName()),
                         n)) {
                return;
            }
            applyTargets(Action::Prune, std::move(r.first), title);
        });
}

void MainWindow::vacuum() {
    if (!checkWritable()) {
        return;
    }
    if (!confirm(tr("Vacuum %1? SQLite rewrites the whole file; writers wait until it is done.")
                     .arg(fileName()),
                 -1)) {
        return;
    }
    ++m_busyJobs;
    QApplication::setOverrideCursor(Qt::BusyCursor);
    runAsync(
        this,
        [q = m_queue,
         path = toStd(m_path)]() -> std::pair<std::pair<std::int64_t, std::int64_t>, QString> {
            try {
                const auto sizes = q->vacuum();
                const std::string note = "vacuum: " + toStd(humanBytes(sizes.first)) + " -> " +
                                         toStd(humanBytes(sizes.second));
                return {sizes, auditWrite(path, Action::Vacuum, {}, note)};
            } catch (const std::exception& e) {
                return {{0, 0}, errorMessage(e)};
            }
        },
        [this](std::pair<std::pair<std::int64_t, std::int64_t>, QString> r) {
            --m_busyJobs;
            QApplication::restoreOverrideCursor();
            ActionReport rep;
            rep.title = tr("Vacuum");
            rep.error = r.second;
            finishReport(rep);
            if (r.second.isEmpty()) {
                statusBar()->showMessage(
                    tr("Vacuum: %1 before, %2 after")
                        .arg(humanBytes(r.first.first), humanBytes(r.first.second)),
                    15000);
            }
            // VACUUM may renumber rowids: start over, the current message is kept by id.
            rememberCurrent();
            m_model->setFilter(m_model->filter());
        });
}

void MainWindow::enqueue(const QString& payload, const QString& idempotencyKey) {
    if (!checkWritable()) {
        return;
    }
    ++m_busyJobs;
    std::optional<std::string> key;
    if (!idempotencyKey.isEmpty()) {
        key = toStd(idempotencyKey);
    }
    runAsync(
        this,
        [q = m_queue, d = toStd(payload), key,
         path = toStd(m_path)]() -> std::pair<QString, QString> {
            try {
                bool inserted = false;
                core::Message m = q->put(d, key, &inserted);
                QString auditError;
                if (inserted) {
                    // Undo deletes it while no worker has claimed it.
                    auditError = auditWrite(path, Action::Enqueue, {{m, m}}, {});
                }
                return {fromStd(m.messageId), auditError};
            } catch (const std::exception& e) {
                return {{}, errorMessage(e)};
            }
        },
        [this](std::pair<QString, QString> r) {
            --m_busyJobs;
            ActionReport rep;
            rep.title = tr("Enqueue");
            rep.error = r.second;
            if (!r.first.isEmpty()) {
                rep.applied = 1;
                rep.appliedIds << r.first;
            }
            finishReport(rep);
            m_model->refreshNow();
        });
}

void MainWindow::upgradeFile() {
    if (!checkWritable()) {
        return;
    }
    if (m_info.format != core::Format::LitequeueLegacy &&
        m_info.format != core::Format::Litequeue013) {
        showError(tr("%1 is already in the current format.").arg(fileName()), false);
        return;
    }
    const QString text =
        tr("Upgrade %1 from %2 to litequeue-0.14?\n\nStop every worker that uses this file "
           "first: old litequeue versions cannot use the upgraded file, and LOCKED messages "
           "become READY (their workers hold no claim id).")
            .arg(fileName(), QString::fromLatin1(core::formatId(m_info.format)));
    if (!confirm(text, -1)) {
        return;
    }
    ++m_busyJobs;
    runAsync(
        this,
        [q = m_queue, path = toStd(m_path),
         from = std::string(core::formatId(m_info.format))]() -> QString {
            try {
                q->upgrade();
                return auditWrite(path, Action::Upgrade, {},
                                  "upgrade: " + from + " -> " +
                                      core::formatId(core::Format::Litequeue014));
            } catch (const std::exception& e) {
                return errorMessage(e);
            }
        },
        [this](const QString& error) {
            --m_busyJobs;
            ActionReport rep;
            rep.title = tr("Upgrade");
            rep.error = error;
            finishReport(rep);
            if (error.isEmpty()) {
                reopen(); // the format changed
            }
        });
}

void MainWindow::undoLastAction() {
    if (!checkWritable()) {
        return;
    }
    ++m_busyJobs;
    runAsync(
        this,
        [path = toStd(m_path)]() -> std::pair<std::optional<core::AuditEntry>, QString> {
            try {
                return {core::AuditLog().lastUndoable(path), {}};
            } catch (const std::exception& e) {
                return {std::nullopt, errorMessage(e)};
            }
        },
        [this](std::pair<std::optional<core::AuditEntry>, QString> r) {
            --m_busyJobs;
            const QString title = tr("Undo");
            if (!r.second.isEmpty() || !r.first) {
                ActionReport rep;
                rep.title = title;
                rep.error =
                    r.second.isEmpty() ? tr("nothing to undo in %1").arg(fileName()) : r.second;
                finishReport(rep);
                return;
            }
            core::AuditEntry entry = std::move(*r.first);
            const qint64 n = qint64(entry.applied.size());
            const QString when = formatInstant(entry.when, m_model->utc());
            if (!confirm(
                    tr("Undo %1 of %2 message(s) made at %3 in %4? Rows that changed since "
                       "are left alone.")
                        .arg(actionTitle(entry.action), QLocale().toString(n), when, fileName()),
                    n)) {
                return;
            }
            ++m_busyJobs;
            runAsync(
                this,
                [q = m_queue, entry,
                 path = toStd(m_path)]() -> std::pair<core::ActionResult, QString> {
                    try {
                        core::ActionResult res = q->undo(entry.action, entry.applied);
                        core::AuditEntry e;
                        e.when = core::systemNowNs();
                        e.queuePath = path;
                        e.action = entry.action;
                        e.user = currentUser();
                        e.tool = "lqadmin";
                        e.applied = res.applied;
                        e.skipped = std::int64_t(res.skipped.size());
                        e.undone = true;
                        core::AuditLog().append(e);
                        return {std::move(res), {}};
                    } catch (const std::exception& ex) {
                        return {{}, errorMessage(ex)};
                    }
                },
                [this, title](std::pair<core::ActionResult, QString> res) {
                    --m_busyJobs;
                    ActionReport rep = reportFrom(title, res.first);
                    rep.error = res.second;
                    finishReport(rep);
                    m_model->refreshNow();
                });
        });
}

} // namespace lq::ui
