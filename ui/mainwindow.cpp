// SPDX-License-Identifier: MIT
#include "ui/mainwindow.h"

#include "core/audit.h"
#include "core/error.h"
#include "core/formats/queueformat.h"
#include "core/queue.h"
#include "ui/aboutdialog.h"
#include "ui/bannerbar.h"
#include "ui/dashboardwidget.h"
#include "ui/enqueuedialog.h"
#include "ui/fleetmodel.h"
#include "ui/gettingstarted.h"
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
#include <QCryptographicHash>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
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

QSettings settings() {
    return QSettings(QStringLiteral("LiteQueue"), QStringLiteral("lqadmin"));
}

QString errorMessage(const std::exception& e) {
    return QString::fromUtf8(e.what());
}

} // namespace

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
    release->setToolTip(tr("End the lease and make the job due now"));
    connect(release, &QAction::triggered, this, &MainWindow::releaseSelected);
    auto* reschedule = make(QStringLiteral("reschedule"), tr("Re&schedule\u2026"), {},
                            QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
    reschedule->setToolTip(tr("Run the job again after a delay"));
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
    del->setToolTip(tr("Delete the job (as the queue's own finish does)"));
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
    connect(make(QStringLiteral("gettingStarted"), tr("&Getting started"), {},
                 QKeySequence::HelpContents),
            &QAction::triggered, this, [this] {
                auto* dlg = new GettingStartedDialog(this);
                dlg->setAttribute(Qt::WA_DeleteOnClose);
                dlg->show();
            });
    connect(make(QStringLiteral("shortcuts"), tr("&Keyboard shortcuts")), &QAction::triggered, this,
            &MainWindow::showShortcuts);
    // Ctrl+1 … Ctrl+9: the status chips, in the order shown.
    for (int n = 1; n <= 9; ++n) {
        QAction* a = make(QStringLiteral("filter%1").arg(n), tr("Status filter %1").arg(n), {},
                          QKeySequence(QStringLiteral("Ctrl+%1").arg(n)));
        connect(a, &QAction::triggered, this, [this, n] { m_filterBar->clickVisible(n - 1); });
        addAction(a);
    }
}

namespace {

/// Per-file view settings live under a key made from the path.
QString viewKey(const QString& path) {
    return QStringLiteral("files/") +
           QString::fromLatin1(
               QCryptographicHash::hash(path.toUtf8(), QCryptographicHash::Sha1).toHex().left(16));
}

} // namespace

void MainWindow::rememberView() {
    if (m_path.isEmpty() || m_restoringView) {
        return;
    }
    QSettings s = settings();
    s.beginGroup(viewKey(m_path));
    s.setValue(QStringLiteral("path"), m_path);
    s.setValue(QStringLiteral("choice"), int(m_filterBar->choice()));
    s.setValue(QStringLiteral("search"), m_search->text());
    s.setValue(QStringLiteral("sortColumn"), m_sortColumn);
    s.setValue(QStringLiteral("sortOrder"), int(m_sortOrder));
    s.setValue(QStringLiteral("header"), m_view->horizontalHeader()->saveState());
}

void MainWindow::restoreView() {
    QSettings s = settings();
    s.beginGroup(viewKey(m_path));
    if (s.value(QStringLiteral("path")).toString() != m_path) {
        return; // never opened here before
    }
    {
        QSignalBlocker block(m_search);
        m_search->setText(s.value(QStringLiteral("search")).toString());
    }
    const auto choice = StatusFilterBar::Choice(s.value(QStringLiteral("choice"), 0).toInt());
    if (choice >= StatusFilterBar::All && choice <= StatusFilterBar::Expired) {
        QSignalBlocker block(m_filterBar);
        m_filterBar->setChoice(choice);
    }
    QHeaderView* hh = m_view->horizontalHeader();
    hh->restoreState(s.value(QStringLiteral("header")).toByteArray());
    const int col = s.value(QStringLiteral("sortColumn"), int(MessageModel::MessageId)).toInt();
    const auto order = Qt::SortOrder(s.value(QStringLiteral("sortOrder"), 0).toInt());
    if (MessageModel::isSortable(col)) {
        hh->setSortIndicator(col, order);
    }
}

void MainWindow::offerAttention(const core::Counts& c) {
    // Open on what needs attention: one click to the stuck, else the failed.
    if (!m_attentionPending || !m_queue || c.stored == 0) {
        return;
    }
    m_attentionPending = false;
    const QLocale l;
    if (c.stuck > 0) {
        m_banners->setBanner(
            QStringLiteral("attention"), BannerBar::Level::Warning,
            tr("%1 stuck message(s) (locked longer than %2) and %3 failed need "
               "attention.")
                .arg(l.toString(c.stuck),
                     humanDuration(core::TimeNs(m_stuckSpin->value()) * core::kNsPerSecond),
                     l.toString(c.failed)),
            tr("Show stuck"), [this] {
                m_banners->removeBanner(QStringLiteral("attention"));
                m_filterBar->setChoice(StatusFilterBar::Stuck);
            });
    } else if (c.failed > 0) {
        m_banners->setBanner(QStringLiteral("attention"), BannerBar::Level::Info,
                             tr("%1 failed message(s) in this queue.").arg(l.toString(c.failed)),
                             tr("Show failed"), [this] {
                                 m_banners->removeBanner(QStringLiteral("attention"));
                                 m_filterBar->setChoice(StatusFilterBar::Failed);
                             });
    }
}

void MainWindow::showSkipped(const QString& path, const QString& reason) {
    ++m_openGeneration; // an open still running must not land over this
    m_queue.reset();
    m_info = {};
    m_queueReadOnly = false;
    m_fileGone = false;
    m_path.clear();
    m_table.clear();
    m_model->setQueue(nullptr, {});
    m_detail->setQueue(nullptr);
    m_dashboard->setQueue(nullptr);
    for (const QString& k : m_banners->keys()) {
        m_banners->removeBanner(k);
    }
    m_banners->setBanner(QStringLiteral("file"), BannerBar::Level::Warning,
                         tr("%1 is not shown: %2").arg(path, reason));
    updateTitle();
    updateActions();
    updateStatusBar();
}

void MainWindow::showShortcuts() {
    // Listed from the actions themselves, so the list cannot drift.
    QStringList lines;
    for (auto it = m_actions.cbegin(); it != m_actions.cend(); ++it) {
        const QKeySequence key = it.value()->shortcut();
        if (key.isEmpty()) {
            continue;
        }
        QString label = it.value()->text();
        label.remove(u'&');
        if (it.key().startsWith(QStringLiteral("filter"))) {
            label = tr("Status chip %1 (as shown, left to right)").arg(it.key().mid(6));
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
    help->addAction(action(QStringLiteral("gettingStarted")));
    help->addAction(action(QStringLiteral("shortcuts")));
    help->addSeparator();
    help->addAction(action(QStringLiteral("about")));
    help->addAction(action(QStringLiteral("aboutQt")));

    QToolBar* tb = addToolBar(tr("Actions"));
    tb->setObjectName(QStringLiteral("mainToolBar"));
    // The overflow button ("»") of a narrow window.
    if (auto* more = tb->findChild<QWidget*>(QStringLiteral("qt_toolbar_ext_button"))) {
        more->setAccessibleName(tr("More actions"));
    }
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
    // The chips take the room there is and wrap when it runs out.
    QSizePolicy chips(QSizePolicy::Preferred, QSizePolicy::Preferred);
    chips.setHeightForWidth(true);
    m_filterBar->setSizePolicy(chips);
    filterRow->addWidget(m_filterBar, 1);
    m_search = new QLineEdit(central);
    m_search->setObjectName(QStringLiteral("search"));
    m_search->setPlaceholderText(tr("Search id, idempotency key, payload"));
    m_search->setClearButtonEnabled(true);
    m_search->setAccessibleName(tr("Search messages"));
    m_search->setAccessibleDescription(tr("Filters the table by message id, idempotency key or "
                                          "payload (Ctrl+F)"));
    m_search->setMinimumWidth(160);
    filterRow->addWidget(m_search, 1);
    auto* stuckLabel = new QLabel(tr("Stuck after"), central);
    filterRow->addWidget(stuckLabel);
    m_stuckSpin = new QSpinBox(central);
    m_stuckSpin->setObjectName(QStringLiteral("stuckThreshold"));
    m_stuckSpin->setRange(1, 30 * 86400);
    m_stuckSpin->setValue(core::kDefaultStuckAfterSeconds);
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
                // A new range replaces an earlier narrowing instead of
                // stacking on a histogram bar unseen.
                m_band.reset();
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
    connect(m_sidebar, &QueueSidebar::skippedActivated, this, &MainWindow::showSkipped);
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
        settings().setValue(QStringLiteral("stuckThresholdSeconds"), s); // kept at once
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
        rememberView();
    });
    connect(m_model, &MessageModel::countsChanged, this, [this](const core::Counts& c) {
        m_filterBar->setCounts(c);
        if (m_queue && c.stored > 0) {
            m_fleet->setLiveCounts(m_path, m_table, c);
        }
        updateStatusBar();
        offerAttention(c);
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
    m_stuckSpin->setValue(
        s.value(QStringLiteral("stuckThresholdSeconds"), core::kDefaultStuckAfterSeconds).toInt());
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
    m_fileGone = false;
    m_banners->removeBanner(QStringLiteral("file"));
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
        m_restoringView = true;
        m_filterBar->setChoice(StatusFilterBar::All);
        restoreView();
        m_restoringView = false;
        m_attentionPending = true;
    }
    m_filterBar->setStates(core::QueueFormat::of(m_info).states());
    applyColumnSet();
    m_detail->setQueue(m_queue);
    if (!samePath) {
        m_rangeFrom.reset();
        m_rangeTo.reset();
        m_band.reset();
    }
    m_dashboard->setQueue(m_queue);
    applyFilter(); // before setQueue: one ordering job, not two
    if (samePath) {
        m_topOnNextReset = false; // a reopen keeps the place and the selection
    }
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
    if (core::QueueFormat::of(m_info).multiTable()) {
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
    const core::QueueFormat& format = core::QueueFormat::of(m_info);
    if (const std::string notice = format.notice(m_info); !notice.empty()) {
        m_banners->setBanner(
            QStringLiteral("format"), BannerBar::Level::Info, fromStd(notice),
            upgradable && format.offers(Action::Upgrade, m_info) ? tr("Upgrade\u2026") : QString(),
            upgradeButton);
    }
    int i = 0;
    for (const std::string& w : m_info.warnings) {
        m_banners->setBanner(QStringLiteral("warning%1").arg(i++), BannerBar::Level::Warning,
                             fromStd(w));
    }
}

void MainWindow::onFileStateChanged(MessageModel::FileState state) {
    // A file deleted, replaced or moved while shown is read-only at once:
    // core refuses such a write too (it checks the inode inside the
    // transaction), but the operator should not be offered one.
    m_fileGone = state != MessageModel::FileState::Ok;
    switch (state) {
    case MessageModel::FileState::Ok:
        m_banners->removeBanner(QStringLiteral("file"));
        break;
    case MessageModel::FileState::Missing:
        m_banners->setBanner(QStringLiteral("file"), BannerBar::Level::Error,
                             tr("%1 was deleted or moved. The table shows what was last read; "
                                "every action that writes is off.")
                                 .arg(m_path),
                             tr("Reopen"), [this] { reopen(); });
        break;
    case MessageModel::FileState::Replaced:
        m_banners->setBanner(QStringLiteral("file"), BannerBar::Level::Error,
                             tr("%1 was replaced by another file. The table shows the old one; "
                                "every action that writes is off.")
                                 .arg(m_path),
                             tr("Reopen"), [this] { reopen(); });
        break;
    }
    updateActions();
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

namespace {

/// The operator actions and the names of their QActions.
constexpr std::pair<Action, const char*> kOperatorActions[] = {
    {Action::Retry, "retry"},     {Action::MarkFailed, "markFailed"},
    {Action::Release, "release"}, {Action::Reschedule, "reschedule"},
    {Action::Delete, "delete"},   {Action::RetryExpired, "retryExpired"},
    {Action::Prune, "prune"},     {Action::Vacuum, "vacuum"},
    {Action::Enqueue, "enqueue"}, {Action::Upgrade, "upgrade"},
};

} // namespace

void MainWindow::updateActions() {
    const bool open = m_queue != nullptr;
    const bool writable = open && !m_queueReadOnly && !m_fileGone;
    const bool rows = open && (applyToAllMatching() || m_view->selectionModel()->hasSelection());
    // The format says what it offers; a row action also needs rows.
    const core::QueueFormat& format = core::QueueFormat::of(m_info);
    const std::vector<Action> rowActions = format.rowActions();
    for (const auto& [a, name] : kOperatorActions) {
        QAction* qa = action(QString::fromLatin1(name));
        const std::string why = open ? format.whyNot(a, m_info) : std::string();
        const bool perRow = a == Action::Retry || a == Action::MarkFailed ||
                            std::find(rowActions.begin(), rowActions.end(), a) != rowActions.end();
        qa->setEnabled(writable && open && why.empty() && (!perRow || rows));
        // A disabled action says why; an offered one keeps its own tooltip.
        if (!qa->property("lqToolTip").isValid()) {
            qa->setProperty("lqToolTip", qa->toolTip());
        }
        QString tip = why.empty() ? qa->property("lqToolTip").toString() : fromStd(why);
        if (!qa->shortcut().isEmpty()) {
            tip += QStringLiteral(" (") + qa->shortcut().toString(QKeySequence::NativeText) +
                   QLatin1Char(')');
        }
        qa->setToolTip(tip);
    }
    action(QStringLiteral("undo"))->setEnabled(writable);
    action(QStringLiteral("reopen"))->setEnabled(open);
    action(QStringLiteral("refresh"))->setEnabled(open);
    action(QStringLiteral("readOnly"))->setEnabled(open);
}

void MainWindow::applyColumnSet() {
    // A format without history has no finish time and no latency columns;
    // one without keys no key column.
    const core::QueueFormat& format = core::QueueFormat::of(m_info);
    m_view->setColumnHidden(MessageModel::IdempotencyKey, !format.hasKeys(m_info));
    for (int c : {MessageModel::Wait, MessageModel::Processing}) {
        m_view->setColumnHidden(c, !format.keepsHistory());
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
    // A new filter (a search, a status, a drill-down) opens at the top.
    m_topOnNextReset = true;
    rememberView();
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
    if (std::exchange(m_topOnNextReset, false)) {
        m_restoreScroll = 0;
        m_restoreId.clear();
    }
    const int scroll = m_restoreScroll;
    QTimer::singleShot(0, this, [this, scroll] { m_view->verticalScrollBar()->setValue(scroll); });
    if (!m_restoreId.isEmpty() && m_model->hasOrdering()) {
        m_model->locate(m_restoreId);
    }
    onCurrentChanged();
}

void MainWindow::onCurrentChanged() {
    const QModelIndex cur = m_view->currentIndex();
    if (cur.isValid() && m_view->selectionModel()->isRowSelected(cur.row(), {})) {
        m_detail->showRow(m_model->rowAt(cur.row()));
        return;
    }
    // Nothing chosen is highlighted. If the operator deselected the message
    // shown, clear the pane; if it left the table (an action moved it out of
    // the filter), keep it, marked, and never show a neighbour instead.
    const QString shown = m_detail->messageId();
    const MessageRow* at = cur.isValid() ? m_model->rowAt(cur.row()) : nullptr;
    if (shown.isEmpty() || (at && fromStd(at->msg.messageId) == shown)) {
        m_detail->showRow(nullptr);
        return;
    }
    m_detail->markNotShown(tr("no longer in this filter"));
}

void MainWindow::showContextMenu(const QPoint& pos) {
    QMenu menu(this);
    for (Action a : core::QueueFormat::of(m_info).rowActions()) {
        for (const auto& [known, name] : kOperatorActions) {
            if (known == a) {
                menu.addAction(action(QString::fromLatin1(name)));
            }
        }
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

} // namespace lq::ui
