// SPDX-License-Identifier: MIT
// The Processes tab: the file's worker processes, read in a worker through
// the document's core::QueueBackend; releasing a dead process's claims goes
// through the handler like any action.
#include "ui/processesview.h"

#include "core/backend.h"
#include "core/formats/queueformat.h"
#include "ui/actionreport.h"
#include "ui/queueactionhandler.h"
#include "ui/queuedocument.h"
#include "ui/runasync.h"
#include "ui/uitext.h"

#include <QAction>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QShowEvent>
#include <QTableWidget>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <climits>
#include <utility>

namespace lq::ui {

namespace {

QTableWidgetItem* cell(const QString& text, Qt::Alignment align = Qt::AlignLeft) {
    auto* item = new QTableWidgetItem(text);
    item->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
    item->setTextAlignment(align | Qt::AlignVCenter);
    item->setToolTip(plainToolTip(text));
    return item;
}

} // namespace

ProcessesView::ProcessesView(QueueDocument* document, QueueActionHandler* handler, QWidget* parent)
    : QWidget(parent)
    , m_doc(document)
    , m_handler(handler) {
    setObjectName(QStringLiteral("processesView"));
    auto* root = new QVBoxLayout(this);
    root->setContentsMargins(6, 6, 6, 6);
    root->setSpacing(6);

    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("processesStatus"));
    m_status->setTextFormat(Qt::PlainText);
    m_status->setWordWrap(true);
    root->addWidget(m_status);
    m_warnings = new QLabel(this);
    m_warnings->setObjectName(QStringLiteral("processesWarnings"));
    m_warnings->setTextFormat(Qt::PlainText);
    m_warnings->setWordWrap(true);
    m_warnings->setForegroundRole(QPalette::Link);
    m_warnings->hide();
    root->addWidget(m_warnings);

    m_content = new QWidget(this);
    auto* content = new QVBoxLayout(m_content);
    content->setContentsMargins(0, 0, 0, 0);
    m_release =
        new QAction(QIcon(QStringLiteral(":/icons/retry.svg")), tr("&Release claims"), this);
    m_release->setObjectName(QStringLiteral("releaseProcessClaims"));
    connect(m_release, &QAction::triggered, this, &ProcessesView::releaseSelected);
    auto* buttons = new QHBoxLayout;
    auto* b = new QToolButton(m_content);
    b->setDefaultAction(m_release);
    b->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    b->setAccessibleName(tr("Release claims"));
    buttons->addWidget(b);
    buttons->addStretch(1);
    content->addLayout(buttons);

    m_table = new QTableWidget(0, ColumnCount, m_content);
    m_table->setObjectName(QStringLiteral("processesTable"));
    m_table->setAccessibleName(tr("Worker processes"));
    m_table->setHorizontalHeaderLabels({tr("Kind"), tr("Host"), tr("PID"), tr("Last heartbeat"),
                                        tr("State"), tr("Claimed"), tr("Name")});
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setWordWrap(false);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(NameColumn, QHeaderView::Stretch);
    m_table->setContextMenuPolicy(Qt::ActionsContextMenu);
    m_table->addAction(m_release);
    connect(m_table, &QTableWidget::itemSelectionChanged, this, &ProcessesView::updateActions);
    content->addWidget(m_table, 1);
    root->addWidget(m_content, 1);

    // A process dies by falling silent, which changes nothing in the file:
    // read again each minute to see a heartbeat grow old.
    m_beatTimer = new QTimer(this);
    m_beatTimer->setInterval(60'000);
    connect(m_beatTimer, &QTimer::timeout, this, &ProcessesView::refreshLive);
    connect(m_doc, &QueueDocument::busyChanged, this, &ProcessesView::updateActions);
    connect(m_doc, &QueueDocument::fileGoneChanged, this, &ProcessesView::updateActions);
    connect(m_doc, &QueueDocument::connectionChanged, this, &ProcessesView::updateActions);
    documentClosed();
}

bool ProcessesView::isIdle() const {
    return m_read.idle();
}

void ProcessesView::documentOpened() {
    if (const auto q = m_doc->backend())
        m_read.opened(q->readPacingFactor());
    m_list = {};
    m_table->setRowCount(0);
    showLine(tr("Reading the processes\u2026"), false);
    updateActions();
    m_beatTimer->start();
    refresh();
}

void ProcessesView::documentClosed() {
    m_read.closed();
    m_list = {};
    m_table->setRowCount(0);
    m_beatTimer->stop();
    showLine(tr("Open a queue file to see the worker processes it records."), false);
    emit warningsChanged({});
    updateActions();
}

void ProcessesView::showLine(const QString& text, bool content) {
    m_status->setText(text);
    m_content->setVisible(content);
    if (!content) {
        m_warnings->hide();
    }
}

void ProcessesView::refreshLive() {
    m_read.changed();
}

void ProcessesView::refresh() {
    const std::shared_ptr<core::QueueBackend> q = m_doc->backend();
    if (!q) {
        return;
    }
    // Read while hidden too: the processes are a few rows, and the banner
    // that names a dead dispatcher needs them.
    const auto ticket = m_read.begin(true);
    if (!ticket) {
        return;
    }
    runAsync(
        this,
        [q]() -> Result {
            try {
                const core::TimeNs now = q->now();
                return {q->processes(), now, {}};
            } catch (const std::exception& e) {
                return {{}, 0, QString::fromUtf8(e.what())};
            }
        },
        [this, t = *ticket](Result r) {
            if (m_read.end(t)) {
                apply(std::move(r));
            }
        });
}

void ProcessesView::apply(Result r) {
    ++m_results;
    if (!r.error.isEmpty()) {
        showLine(tr("Reading the processes failed: %1").arg(r.error), !m_list.processes.empty());
        return;
    }
    m_list = std::move(r.list);
    m_now = r.now;
    showList();
    QStringList warnings;
    for (const std::string& w : m_list.warnings) {
        warnings << visibleText(w);
    }
    emit warningsChanged(warnings);
}

void ProcessesView::showList() {
    const std::optional<core::ProcessInfo> was = selectedProcess();
    if (!m_list.notStored.empty()) {
        m_table->setRowCount(0);
        showLine(visibleText(m_list.notStored), false);
        updateActions();
        return;
    }
    if (m_list.processes.empty()) {
        m_table->setRowCount(0);
        showLine(tr("No processes recorded: no worker of this file is running or has "
                    "registered."),
                 false);
        updateActions();
        return;
    }
    const auto dead = std::count_if(m_list.processes.begin(), m_list.processes.end(),
                                    [](const core::ProcessInfo& p) { return !p.alive; });
    QString line = tr("%1 process(es), %2 dead. Alive: %3.")
                       .arg(localeCount(qint64(m_list.processes.size())), localeCount(qint64(dead)),
                            visibleText(m_list.aliveRule));
    if (m_list.orphanedClaims > 0) {
        line += QLatin1Char(' ') + tr("%1 claimed job(s) are held by a process whose row is "
                                      "gone (abandoned).")
                                       .arg(localeCount(m_list.orphanedClaims));
    }
    showLine(line, true);
    QStringList warnings;
    for (const std::string& w : m_list.warnings) {
        warnings << visibleText(w);
    }
    m_warnings->setText(warnings.join(QLatin1Char('\n')));
    m_warnings->setVisible(!warnings.isEmpty());

    m_table->setSortingEnabled(false);
    m_table->setRowCount(int(m_list.processes.size()));
    int row = 0;
    for (const core::ProcessInfo& p : m_list.processes) {
        auto* kind = cell(visibleText(p.kind));
        kind->setData(Qt::UserRole, fromStd(p.id));
        m_table->setItem(row, KindColumn, kind);
        m_table->setItem(row, HostColumn, cell(visibleText(p.host)));
        m_table->setItem(row, PidColumn, cell(QString::number(p.pid), Qt::AlignRight));
        QString beat = tr("never");
        if (p.lastHeartbeat) {
            beat = tr("%1 ago").arg(
                humanDuration(std::max<core::TimeNs>(0, m_now - *p.lastHeartbeat)));
        }
        auto* hb = cell(beat, Qt::AlignRight);
        hb->setToolTip(formatInstant(p.lastHeartbeat, m_utc));
        m_table->setItem(row, HeartbeatColumn, hb);
        auto* state = cell(p.alive ? tr("alive") : tr("DEAD"));
        if (!p.alive) {
            QFont bold = state->font();
            bold.setBold(true);
            state->setFont(bold);
        }
        m_table->setItem(row, StateColumn, state);
        m_table->setItem(row, ClaimedColumn, cell(localeCount(p.claimed), Qt::AlignRight));
        QString name = visibleText(p.name);
        if (p.supervisorId) {
            name += (name.isEmpty() ? QString() : QStringLiteral("  ")) +
                    tr("(supervisor %1)").arg(visibleText(*p.supervisorId));
        }
        m_table->setItem(row, NameColumn, cell(name));
        ++row;
    }
    for (int c = 0; c < ColumnCount; ++c) {
        if (c != NameColumn) { // the name takes the rest of the width
            m_table->resizeColumnToContents(c);
        }
    }
    if (!was || !selectProcess(fromStd(was->id))) {
        // The first dead process that holds jobs: what the operator came for.
        const auto it =
            std::find_if(m_list.processes.begin(), m_list.processes.end(),
                         [](const core::ProcessInfo& p) { return !p.alive && p.claimed > 0; });
        if (it != m_list.processes.end()) {
            selectProcess(fromStd(it->id));
        }
    }
    updateActions();
}

std::optional<core::ProcessInfo> ProcessesView::selectedProcess() const {
    const auto rows = m_table->selectionModel()->selectedRows();
    if (rows.isEmpty()) {
        return std::nullopt;
    }
    const QTableWidgetItem* item = m_table->item(rows.front().row(), KindColumn);
    const QString id = item ? item->data(Qt::UserRole).toString() : QString();
    for (const core::ProcessInfo& p : m_list.processes) {
        if (fromStd(p.id) == id) {
            return p;
        }
    }
    return std::nullopt;
}

bool ProcessesView::selectProcess(const QString& id) {
    for (int row = 0; row < m_table->rowCount(); ++row) {
        const QTableWidgetItem* item = m_table->item(row, KindColumn);
        if (item && item->data(Qt::UserRole).toString() == id) {
            m_table->selectRow(row);
            return true;
        }
    }
    return false;
}

void ProcessesView::setUtc(bool utc) {
    m_utc = utc;
    if (!m_list.processes.empty()) {
        showList();
    }
}

void ProcessesView::updateActions() {
    const bool open = m_doc->isOpen();
    const std::optional<core::ProcessInfo> p = open ? selectedProcess() : std::nullopt;
    QString why;
    if (!open) {
        why = tr("Open a queue file first");
    } else if (const std::string no = m_doc->whyNot(core::Action::Release); !no.empty()) {
        why = fromStd(no);
    } else if (m_doc->readOnly()) {
        why = tr("The file is open read-only (File \u203a Read-only)");
    } else if (!m_doc->writable()) {
        why = tr("The file cannot be changed now (gone or disconnected)");
    } else if (!p) {
        why = tr("Select a dead process first");
    } else if (p->alive) {
        why = tr("The process is alive: its claims are its running jobs");
    } else if (p->claimed == 0) {
        why = tr("The process holds no jobs");
    } else if (p->claimedIds.empty()) {
        why = tr("This file counts the process's claims but does not name the jobs");
    }
    m_release->setEnabled(why.isEmpty() && !m_doc->isBusy());
    m_release->setToolTip(why.isEmpty() ? tr("Give the jobs this dead process holds back to "
                                             "their queue (confirmed first; Edit \u203a Undo "
                                             "reverts it)")
                                        : why);
}

void ProcessesView::releaseSelected() {
    if (const auto p = selectedProcess()) {
        m_handler->runProcessRelease(*p);
    }
}

} // namespace lq::ui
