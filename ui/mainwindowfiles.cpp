// SPDX-License-Identifier: MIT
// MainWindow, the half about files: opening them (dialog, drop, folder,
// recent list), what follows an open, and the window's saved settings.
// mainwindow.cpp builds the window and holds its actions.
#include "ui/mainwindow.h"

#include "core/backend.h"
#include "core/fleet.h"
#include "core/remote/client.h"
#include "ui/dashboardwidget.h"
#include "ui/failuresview.h"
#include "ui/fleetmodel.h"
#include "ui/messagespage.h"
#include "ui/openremotedialog.h"
#include "ui/processesview.h"
#include "ui/queuebanners.h"
#include "ui/queuedocument.h"
#include "ui/queuesettings.h"
#include "ui/queuesidebar.h"
#include "ui/recurringview.h"
#include "ui/settingsstore.h"
#include "ui/uitext.h"

#include <QAction>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileInfo>
#include <QGuiApplication>
#include <QHeaderView>
#include <QMenu>
#include <QMimeData>
#include <QScreen>
#include <QSpinBox>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QUrl>

namespace lq::ui {

namespace {
constexpr int kMaxRecent = 10;
/// Files whose view (filter, sort, columns) is remembered; older ones are
/// forgotten at start.
constexpr int kRememberedFiles = 300;
} // namespace

void MainWindow::restoreSettings() {
    pruneFileSettings(kRememberedFiles);
    if (!restoreGeometry(settings::value(QStringLiteral("window/geometry")).toByteArray())) {
        QSize size(1400, 900);
        if (QScreen* screen = QGuiApplication::primaryScreen()) {
            size = size.boundedTo(screen->availableSize());
        }
        resize(size);
    }
    if (!restoreState(settings::value(QStringLiteral("window/state")).toByteArray())) {
        resizeDocks({m_detailDock}, {height() / 3}, Qt::Vertical);
        resizeDocks({m_queuesDock}, {290}, Qt::Horizontal);
    }
    m_fleet->setBacklogThresholdSeconds(
        settings::value(QStringLiteral("fleet/backlogThresholdSeconds"), 600).toInt());
    m_recent = settings::value(QStringLiteral("recentFiles")).toStringList();
    // Column widths and order; the sort always starts in arrival order.
    QHeaderView* hh = view()->horizontalHeader();
    if (hh->restoreState(settings::value(QStringLiteral("table/header")).toByteArray())) {
        QSignalBlocker block(hh);
        hh->setSortIndicator(MessageModel::MessageId, Qt::AscendingOrder);
    }
    stuckSpinBox()->setValue(
        settings::value(QStringLiteral("stuckThresholdSeconds"), core::kDefaultStuckAfterSeconds)
            .toInt());
    m_utc->setChecked(settings::value(QStringLiteral("utc"), false).toBool());
    rebuildRecentMenu();
}

void MainWindow::saveSettings() {
    settings::setValue(QStringLiteral("window/geometry"), saveGeometry());
    // The dashboard tab hides the detail dock for room; what is saved is the
    // operator's own choice, not that.
    const bool hiddenForDashboard = m_tabs->currentIndex() == 1 && m_detailWasVisible;
    if (hiddenForDashboard) {
        m_detailDock->show();
    }
    settings::setValue(QStringLiteral("window/state"), saveState());
    if (hiddenForDashboard) {
        m_detailDock->hide();
    }
    settings::setValue(QStringLiteral("table/header"), view()->horizontalHeader()->saveState());
    settings::setValue(QStringLiteral("recentFiles"), m_recent);
    settings::setValue(QStringLiteral("stuckThresholdSeconds"), stuckSpinBox()->value());
    settings::setValue(QStringLiteral("utc"), m_utc->isChecked());
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
    settings::setValue(QStringLiteral("recentFiles"), m_recent);
}

void MainWindow::rebuildRecentMenu() {
    m_recentMenu->clear();
    for (const QString& p : std::as_const(m_recent)) {
        QAction* a =
            m_recentMenu->addAction(core::isLocalPath(p.toStdString())
                                        ? QFileInfo(p).fileName() + QStringLiteral("  \u2014  ") +
                                              QFileInfo(p).absolutePath()
                                        : p);
        connect(a, &QAction::triggered, this, [this, p] { openFile(p); });
    }
    m_recentMenu->setEnabled(!m_recent.isEmpty());
}

void MainWindow::selectMessage(const QString& messageId) {
    m_messages->selectMessage(messageId);
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
    if (core::remote::isRemoteUrl(dir.toStdString())) {
        // Scanned on its host; an unreachable one is a skipped row saying why.
        m_fleet->watchFolder(dir);
        statusBar()->showMessage(tr("Watching %1 for queue files").arg(dir), 8000);
        return;
    }
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
    const QString abs = queueKey(path);
    if (abs == m_doc->path() && (table.isEmpty() || table == m_doc->table()) && m_doc->isOpen()) {
        return;
    }
    openWith(abs, false, table);
}

void MainWindow::openFile(const QString& path) {
    // No file-system checks here: the worker's open says precisely what is
    // wrong with the path (missing, a directory, a link loop, ...), and the
    // file joins the sidebar once it opened.
    // The sidebar scans local files and databases; an ssh file joins it
    // with its folder (Add Remote Folder).
    m_addToSidebarOnOpen = core::scannedAlone(path.toStdString());
    if (core::remote::isRemoteUrl(path.toStdString())) {
        OpenRemoteDialog::remember(path);
    }
    openWith(queueKey(path), false);
}

void MainWindow::reopen() {
    if (!m_doc->path().isEmpty()) {
        openWith(m_doc->path(), m_readOnly->isChecked(), m_doc->table());
    }
}

void MainWindow::openWith(const QString& path, bool readOnly, const QString& table) {
    m_doc->open(path, readOnly, table);
}

void MainWindow::onOpened(bool samePath) {
    if (std::exchange(m_addToSidebarOnOpen, false)) {
        m_fleet->addFile(m_doc->path());
    }
    m_queueBanners->clearFileState();
    {
        QSignalBlocker block(m_readOnly);
        m_readOnly->setChecked(m_doc->readOnly());
    }
    showReadOnlyState();
    if (!samePath) {
        m_queueBanners->expectAttention();
    }
    m_dashboard->setBackend(m_doc->backend());
    m_failures->documentOpened();
    m_processes->documentOpened();
    m_recurring->documentOpened();
    m_messages->documentOpened(samePath);
    addRecent(m_doc->path());
    m_sidebar->setCurrent(m_doc->path(), m_doc->table());
    updateTitle();
    m_queueBanners->documentChanged();
    updateActions();
    updateStatusBar();
}

void MainWindow::showSkipped(const QString& path, const QString& reason) {
    m_doc->close();
    m_messages->documentClosed();
    m_dashboard->setBackend(nullptr);
    m_failures->documentClosed();
    m_processes->documentClosed();
    m_recurring->documentClosed();
    m_queueBanners->showSkipped(path, reason);
    updateTitle();
    updateActions();
    updateStatusBar();
}

} // namespace lq::ui
