// SPDX-License-Identifier: MIT
// The Recurring tab: the file's recurring tasks, read in a worker through
// the document's core::QueueBackend; Run now goes through the handler like any
// action.
#include "ui/recurringview.h"

#include "core/backend.h"
#include "core/formats/queueformat.h"
#include "ui/queueactionhandler.h"
#include "ui/queuedocument.h"
#include "ui/runasync.h"
#include "ui/theme.h"
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

/// "in 12 min" / "3 h ago" from the queue's clock, the instant in the tooltip.
QTableWidgetItem* timeCell(const std::optional<core::TimeNs>& t, core::TimeNs now, bool utc,
                           const QString& none) {
    QString text = none;
    if (t) {
        text = *t >= now ? QObject::tr("in %1").arg(humanDuration(*t - now))
                         : QObject::tr("%1 ago").arg(humanDuration(now - *t));
    }
    auto* item = cell(text, Qt::AlignRight);
    if (t) {
        item->setToolTip(formatInstant(t, utc));
    }
    return item;
}

} // namespace

RecurringView::RecurringView(QueueDocument* document, QueueActionHandler* handler, QWidget* parent)
    : QWidget(parent)
    , m_doc(document)
    , m_handler(handler) {
    setObjectName(QStringLiteral("recurringView"));
    auto* root = new QVBoxLayout(this);
    root->setContentsMargins(6, 6, 6, 6);
    root->setSpacing(6);

    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("recurringStatus"));
    m_status->setTextFormat(Qt::PlainText);
    m_status->setWordWrap(true);
    root->addWidget(m_status);

    m_content = new QWidget(this);
    auto* content = new QVBoxLayout(m_content);
    content->setContentsMargins(0, 0, 0, 0);
    m_runNow = new QAction(QIcon(QStringLiteral(":/icons/retry.svg")), tr("R&un now"), this);
    m_runNow->setObjectName(QStringLiteral("runRecurringNow"));
    connect(m_runNow, &QAction::triggered, this, &RecurringView::runSelected);
    auto* buttons = new QHBoxLayout;
    auto* b = new QToolButton(m_content);
    b->setDefaultAction(m_runNow);
    b->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    b->setAccessibleName(tr("Run now"));
    buttons->addWidget(b);
    buttons->addStretch(1);
    content->addLayout(buttons);

    m_table = new QTableWidget(0, ColumnCount, m_content);
    m_table->setObjectName(QStringLiteral("recurringTable"));
    m_table->setAccessibleName(tr("Recurring tasks"));
    m_table->setHorizontalHeaderLabels({tr("Key"), tr("Schedule"), tr("Class / command"),
                                        tr("Queue"), tr("Last run"), tr("Next run"), tr("Missed")});
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setWordWrap(false);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(JobColumn, QHeaderView::Stretch);
    m_table->setContextMenuPolicy(Qt::ActionsContextMenu);
    m_table->addAction(m_runNow);
    connect(m_table, &QTableWidget::itemSelectionChanged, this, &RecurringView::updateActions);
    content->addWidget(m_table, 1);
    m_warnings = new QLabel(m_content);
    m_warnings->setObjectName(QStringLiteral("recurringWarnings"));
    m_warnings->setTextFormat(Qt::PlainText);
    m_warnings->setWordWrap(true);
    m_warnings->hide();
    content->addWidget(m_warnings);
    root->addWidget(m_content, 1);

    // A run falls due, or is missed, with nothing written to the file: read
    // again each minute while the tab is shown.
    m_clockTimer = new QTimer(this);
    m_clockTimer->setInterval(60'000);
    connect(m_clockTimer, &QTimer::timeout, this, &RecurringView::refreshLive);
    connect(m_doc, &QueueDocument::busyChanged, this, &RecurringView::updateActions);
    connect(m_doc, &QueueDocument::fileGoneChanged, this, &RecurringView::updateActions);
    connect(m_doc, &QueueDocument::connectionChanged, this, &RecurringView::updateActions);
    documentClosed();
}

bool RecurringView::isIdle() const {
    return m_read.idle();
}

void RecurringView::documentOpened() {
    if (const auto q = m_doc->backend())
        m_read.opened(q->readPacingFactor());
    m_list = {};
    m_table->setRowCount(0);
    showLine(tr("Reading the recurring tasks\u2026"), false);
    updateActions();
    m_clockTimer->start();
    refresh();
}

void RecurringView::documentClosed() {
    m_read.closed();
    m_clockTimer->stop();
    m_list = {};
    m_table->setRowCount(0);
    showLine(tr("Open a queue file to see the recurring tasks it records."), false);
    updateActions();
}

void RecurringView::showLine(const QString& text, bool content) {
    m_status->setText(text);
    m_content->setVisible(content);
}

void RecurringView::refreshLive() {
    m_read.changed();
}

void RecurringView::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (m_read.stale()) {
        refresh();
    }
}

void RecurringView::refresh() {
    const std::shared_ptr<core::QueueBackend> q = m_doc->backend();
    if (!q) {
        return;
    }
    // Nothing else shows the tasks: read them only while the tab is shown.
    const auto ticket = m_read.begin(isVisible());
    if (!ticket) {
        return;
    }
    runAsync(
        this,
        [q]() -> Result {
            try {
                const core::TimeNs now = q->now();
                return {q->recurringTasks(0), now, {}};
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

void RecurringView::apply(Result r) {
    ++m_results;
    if (!r.error.isEmpty()) {
        showLine(tr("Reading the recurring tasks failed: %1").arg(r.error), !m_list.tasks.empty());
        return;
    }
    m_list = std::move(r.list);
    m_now = r.now;
    showList();
}

void RecurringView::showList() {
    const std::optional<core::RecurringTask> was = selectedTask();
    if (!m_list.notStored.empty()) {
        m_table->setRowCount(0);
        showLine(visibleText(m_list.notStored), false);
        updateActions();
        return;
    }
    if (m_list.tasks.empty()) {
        m_table->setRowCount(0);
        showLine(tr("No recurring tasks recorded: the app's scheduler has registered none."),
                 false);
        updateActions();
        return;
    }
    std::int64_t missed = 0;
    QStringList warnings;
    for (const core::RecurringTask& t : m_list.tasks) {
        missed += t.missed;
        if (!t.why.empty()) {
            warnings << tr("%1: next run unknown: %2").arg(visibleText(t.key), visibleText(t.why));
        }
    }
    showLine(tr("%1 recurring task(s), %2 run(s) missed. Missed: %3.")
                 .arg(localeCount(qint64(m_list.tasks.size())), localeCount(missed),
                      visibleText(m_list.missedRule)),
             true);
    m_warnings->setText(warnings.join(QLatin1Char('\n')));
    m_warnings->setVisible(!warnings.isEmpty());

    m_table->setRowCount(int(m_list.tasks.size()));
    int row = 0;
    for (const core::RecurringTask& t : m_list.tasks) {
        auto* key = cell(visibleText(t.key));
        key->setData(Qt::UserRole, fromStd(t.key));
        if (!t.description.empty()) {
            key->setToolTip(plainToolTip(visibleText(t.key) + QStringLiteral("\n") +
                                         visibleText(t.description)));
        }
        m_table->setItem(row, KeyColumn, key);
        m_table->setItem(row, ScheduleColumn, cell(visibleText(t.schedule)));
        m_table->setItem(row, JobColumn,
                         cell(!t.className.empty() ? visibleText(t.className)
                              : !t.command.empty()
                                  ? tr("command: %1").arg(visibleText(t.command))
                                  : visibleText(t.description))); // pg-boss: its data
        m_table->setItem(row, QueueColumn,
                         cell(t.queue.empty() ? tr("(the job's own)") : visibleText(t.queue)));
        m_table->setItem(row, LastRunColumn, timeCell(t.lastRunNs, m_now, m_utc, tr("never")));
        auto* next = timeCell(t.nextRunNs, m_now, m_utc, tr("unknown"));
        if (!t.nextRunNs) {
            next->setToolTip(plainToolTip(visibleText(t.why)));
        }
        m_table->setItem(row, NextRunColumn, next);
        auto* miss = cell(localeCount(t.missed), Qt::AlignRight);
        if (t.missed > 0) {
            QFont bold = miss->font();
            bold.setBold(true);
            miss->setFont(bold);
            miss->setBackground(theme::stuckBackground());
            miss->setToolTip(
                plainToolTip(tr("%1 scheduled run(s) since the last recorded one never ran: %2")
                                 .arg(localeCount(t.missed), visibleText(m_list.missedRule))));
        }
        m_table->setItem(row, MissedColumn, miss);
        ++row;
    }
    for (int c = 0; c < ColumnCount; ++c) {
        if (c != JobColumn) { // the class or command takes the rest of the width
            m_table->resizeColumnToContents(c);
        }
    }
    if ((!was || !selectTask(fromStd(was->key))) && m_table->rowCount() > 0) {
        m_table->selectRow(0);
    }
    updateActions();
}

std::optional<core::RecurringTask> RecurringView::selectedTask() const {
    const auto rows = m_table->selectionModel()->selectedRows();
    if (rows.isEmpty()) {
        return std::nullopt;
    }
    const QTableWidgetItem* item = m_table->item(rows.front().row(), KeyColumn);
    const QString key = item ? item->data(Qt::UserRole).toString() : QString();
    for (const core::RecurringTask& t : m_list.tasks) {
        if (fromStd(t.key) == key) {
            return t;
        }
    }
    return std::nullopt;
}

bool RecurringView::selectTask(const QString& key) {
    for (int row = 0; row < m_table->rowCount(); ++row) {
        const QTableWidgetItem* item = m_table->item(row, KeyColumn);
        if (item && item->data(Qt::UserRole).toString() == key) {
            m_table->selectRow(row);
            return true;
        }
    }
    return false;
}

void RecurringView::setUtc(bool utc) {
    m_utc = utc;
    if (!m_list.tasks.empty()) {
        showList();
    }
}

void RecurringView::updateActions() {
    const bool open = m_doc->isOpen();
    const std::optional<core::RecurringTask> t = open ? selectedTask() : std::nullopt;
    QString why;
    if (!open) {
        why = tr("Open a queue file first");
    } else if (const std::string no = m_doc->whyNot(core::Action::RunRecurring); !no.empty()) {
        why = fromStd(no);
    } else if (m_doc->readOnly()) {
        why = tr("The file is open read-only (File \u203a Read-only)");
    } else if (!m_doc->writable()) {
        why = tr("The file cannot be changed now (gone or disconnected)");
    } else if (!t) {
        why = tr("Select a recurring task first");
    }
    m_runNow->setEnabled(why.isEmpty() && !m_doc->isBusy());
    m_runNow->setToolTip(why.isEmpty()
                             ? tr("Enqueue this task's job now, as the library's own run now "
                                  "does (confirmed first; Edit \u203a Undo deletes the job "
                                  "while it is unclaimed)")
                             : why);
}

void RecurringView::runSelected() {
    if (const auto t = selectedTask()) {
        m_handler->runRecurringTask(*t);
    }
}

} // namespace lq::ui
