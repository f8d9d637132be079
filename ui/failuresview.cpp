// SPDX-License-Identifier: MIT
// The Failures tab: failed jobs grouped by error, read in a worker through
// the document's core::QueueBackend; actions on a group go through the handler.
#include "ui/failuresview.h"

#include "core/backend.h"
#include "core/formats/queueformat.h"
#include "ui/actionreport.h"
#include "ui/messagemodel.h"
#include "ui/queueactionhandler.h"
#include "ui/queuedocument.h"
#include "ui/runasync.h"
#include "ui/uitext.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QShowEvent>
#include <QSplitter>
#include <QTableWidget>
#include <QTime>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <climits>

namespace lq::ui {

namespace {

/// The job ids listed under a group (all of them are in the copy).
constexpr std::size_t kIdsShown = 1000;

QString errorName(const core::ErrorGroup& g) {
    return g.error.empty() ? QObject::tr("(no error stored)") : visibleText(g.error);
}

QString queuesText(const core::ErrorGroup& g) {
    QStringList names;
    for (const std::string& q : g.queues) {
        names << visibleText(q);
    }
    return names.join(QStringLiteral(", "));
}

QTableWidgetItem* cell(const QString& text, Qt::Alignment align = Qt::AlignLeft) {
    auto* item = new QTableWidgetItem(text);
    item->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
    item->setTextAlignment(align | Qt::AlignVCenter);
    item->setToolTip(plainToolTip(text));
    return item;
}

} // namespace

FailuresView::FailuresView(QueueDocument* document, MessageModel* model,
                           QueueActionHandler* handler, QWidget* parent)
    : QWidget(parent)
    , m_doc(document)
    , m_model(model)
    , m_handler(handler) {
    setObjectName(QStringLiteral("failuresView"));
    auto* root = new QVBoxLayout(this);
    root->setContentsMargins(6, 6, 6, 6);
    root->setSpacing(6);

    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("failuresStatus"));
    m_status->setTextFormat(Qt::PlainText);
    m_status->setWordWrap(true);
    root->addWidget(m_status);

    m_content = new QWidget(this);
    auto* content = new QVBoxLayout(m_content);
    content->setContentsMargins(0, 0, 0, 0);

    m_retry = new QAction(QIcon(QStringLiteral(":/icons/retry.svg")), tr("&Retry group"), this);
    m_retry->setObjectName(QStringLiteral("retryGroup"));
    m_delete = new QAction(QIcon(QStringLiteral(":/icons/prune.svg")), tr("&Delete group"), this);
    m_delete->setObjectName(QStringLiteral("deleteGroup"));
    m_show = new QAction(tr("&Show jobs"), this);
    m_show->setObjectName(QStringLiteral("showGroupJobs"));
    m_show->setToolTip(tr("Show the failed jobs in the Messages tab, the group's first job "
                          "selected"));
    m_copy = new QAction(tr("&Copy job ids"), this);
    m_copy->setObjectName(QStringLiteral("copyGroupIds"));
    m_copy->setToolTip(tr("Copy the ids of every job of the group, one a line"));
    connect(m_retry, &QAction::triggered, this, &FailuresView::retrySelectedGroup);
    connect(m_delete, &QAction::triggered, this, &FailuresView::deleteSelectedGroup);
    connect(m_show, &QAction::triggered, this, &FailuresView::showSelectedJobs);
    connect(m_copy, &QAction::triggered, this, &FailuresView::copySelectedIds);

    auto* buttons = new QHBoxLayout;
    for (QAction* a : {m_show, m_retry, m_delete, m_copy}) {
        auto* b = new QToolButton(m_content);
        b->setDefaultAction(a);
        b->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
        b->setAccessibleName(a->text().remove(QLatin1Char('&')));
        buttons->addWidget(b);
    }
    buttons->addStretch(1);
    content->addLayout(buttons);

    auto* split = new QSplitter(Qt::Vertical, m_content);
    m_table = new QTableWidget(0, ColumnCount, split);
    m_table->setObjectName(QStringLiteral("failuresTable"));
    m_table->setAccessibleName(tr("Failures grouped by error"));
    m_table->setHorizontalHeaderLabels(
        {tr("Count"), tr("Error"), tr("Last failed"), tr("First failed"), tr("Queues")});
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setWordWrap(false);
    m_table->setTextElideMode(Qt::ElideMiddle);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(ErrorColumn, QHeaderView::Stretch);
    m_table->setContextMenuPolicy(Qt::ActionsContextMenu);
    m_table->addActions({m_show, m_retry, m_delete, m_copy});
    connect(m_table, &QTableWidget::itemSelectionChanged, this, &FailuresView::showSelection);
    connect(m_table, &QTableWidget::cellDoubleClicked, this, &FailuresView::showSelectedJobs);

    auto* details = new QSplitter(Qt::Horizontal, split);
    auto* sampleBox = new QWidget(details);
    auto* sampleLayout = new QVBoxLayout(sampleBox);
    sampleLayout->setContentsMargins(0, 0, 0, 0);
    auto* sampleLabel = new QLabel(tr("Sample error"), sampleBox);
    sampleLabel->setTextFormat(Qt::PlainText);
    m_sample = new QPlainTextEdit(sampleBox);
    m_sample->setObjectName(QStringLiteral("failuresSample"));
    m_sample->setAccessibleName(tr("Sample error"));
    m_sample->setReadOnly(true);
    m_sample->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_sample->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    sampleLayout->addWidget(sampleLabel);
    sampleLayout->addWidget(m_sample);
    auto* idsBox = new QWidget(details);
    auto* idsLayout = new QVBoxLayout(idsBox);
    idsLayout->setContentsMargins(0, 0, 0, 0);
    m_idsLabel = new QLabel(tr("Jobs"), idsBox);
    m_idsLabel->setTextFormat(Qt::PlainText);
    m_ids = new QPlainTextEdit(idsBox);
    m_ids->setObjectName(QStringLiteral("failuresIds"));
    m_ids->setAccessibleName(tr("Job ids of the group"));
    m_ids->setReadOnly(true);
    m_ids->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_ids->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    idsLayout->addWidget(m_idsLabel);
    idsLayout->addWidget(m_ids);
    details->setStretchFactor(0, 3);
    details->setStretchFactor(1, 1);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    content->addWidget(split, 1);
    root->addWidget(m_content, 1);

    connect(m_doc, &QueueDocument::busyChanged, this, &FailuresView::updateActions);
    connect(m_doc, &QueueDocument::fileGoneChanged, this, &FailuresView::updateActions);
    connect(m_doc, &QueueDocument::connectionChanged, this, &FailuresView::updateActions);
    documentClosed();
}

bool FailuresView::isIdle() const {
    return m_read.idle();
}

void FailuresView::documentOpened() {
    if (const auto q = m_doc->backend())
        m_read.opened(q->readPacingFactor());
    m_groups.clear();
    m_table->setRowCount(0);
    showLine(tr("Reading the failed jobs\u2026"), false);
    updateActions();
    refresh();
}

void FailuresView::documentClosed() {
    m_read.closed();
    m_groups.clear();
    m_table->setRowCount(0);
    showLine(tr("Open a queue file to see its failures grouped by error."), false);
    updateActions();
}

void FailuresView::showLine(const QString& text, bool content) {
    m_status->setText(text);
    m_content->setVisible(content);
}

void FailuresView::refreshLive() {
    m_read.changed();
}

void FailuresView::followQueue() {
    if (m_doc->isOpen() && fromStd(m_model->filter().queue) != m_shownQueue) {
        refresh();
    }
}

void FailuresView::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (m_read.stale() || fromStd(m_model->filter().queue) != m_shownQueue) {
        refresh();
    }
}

void FailuresView::refresh() {
    const std::shared_ptr<core::QueueBackend> q = m_doc->backend();
    if (!q) {
        return;
    }
    const core::QueueFormat& format = m_doc->format();
    if (!format.hasField(core::QueueFormat::Field::Error)) {
        // Said in one line, not shown as an empty table.
        m_groups.clear();
        m_table->setRowCount(0);
        m_shownQueue = fromStd(m_model->filter().queue);
        showLine(tr("This file's format (%1) stores no error text with a failed job: its "
                    "failures cannot be grouped by error.")
                     .arg(QString::fromLatin1(format.id())),
                 false);
        ++m_results;
        updateActions();
        return;
    }
    const auto ticket = m_read.begin(isVisible());
    if (!ticket) {
        return;
    }
    const std::string queue = m_model->filter().queue;
    runAsync(
        this,
        [q, queue]() -> Result {
            try {
                return {q->errorGroups(queue), {}};
            } catch (const std::exception& e) {
                return {{}, QString::fromUtf8(e.what())};
            }
        },
        [this, queue, t = *ticket](Result r) {
            if (m_read.end(t)) {
                m_shownQueue = fromStd(queue);
                apply(std::move(r));
            }
        });
}

void FailuresView::apply(Result r) {
    ++m_results;
    if (!r.second.isEmpty()) {
        showLine(tr("Reading the failed jobs failed: %1").arg(r.second), !m_groups.empty());
        return;
    }
    m_groups = std::move(r.first);
    showGroups();
}

void FailuresView::showGroups() {
    const std::optional<core::ErrorGroup> was = selectedGroup();
    const QString scope = m_shownQueue.isEmpty() ? QString() : tr(" in queue %1").arg(m_shownQueue);
    if (m_groups.empty()) {
        m_table->setRowCount(0);
        showLine(tr("No failed jobs%1").arg(scope), false);
        updateActions();
        return;
    }
    qint64 jobs = 0;
    for (const core::ErrorGroup& g : m_groups) {
        jobs += g.count;
    }
    showLine(tr("%1 failed job(s)%2, %3 error group(s) \u00b7 read at %4")
                 .arg(localeCount(jobs), scope, localeCount(qint64(m_groups.size())),
                      QTime::currentTime().toString(QStringLiteral("HH:mm:ss"))),
             true);
    {
        const QSignalBlocker block(m_table);
        m_table->setRowCount(int(m_groups.size()));
        for (int row = 0; row < int(m_groups.size()); ++row) {
            const core::ErrorGroup& g = m_groups[std::size_t(row)];
            m_table->setItem(row, CountColumn, cell(localeCount(g.count), Qt::AlignRight));
            m_table->setItem(row, ErrorColumn, cell(errorName(g)));
            m_table->setItem(row, LastColumn, cell(formatInstant(g.lastFailedAt, m_utc)));
            m_table->setItem(row, FirstColumn, cell(formatInstant(g.firstFailedAt, m_utc)));
            m_table->setItem(row, QueuesColumn, cell(queuesText(g)));
        }
        m_table->resizeColumnToContents(CountColumn);
        m_table->resizeColumnToContents(LastColumn);
        m_table->resizeColumnToContents(FirstColumn);
    }
    // The selection follows its group by error class; else the largest.
    if (!was || !selectGroup(fromStd(was->error))) {
        m_table->selectRow(0);
    }
    showSelection();
}

std::optional<core::ErrorGroup> FailuresView::selectedGroup() const {
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    if (rows.isEmpty() || rows.first().row() >= int(m_groups.size())) {
        return std::nullopt;
    }
    return m_groups[std::size_t(rows.first().row())];
}

bool FailuresView::selectGroup(const QString& error) {
    for (std::size_t i = 0; i < m_groups.size(); ++i) {
        if (fromStd(m_groups[i].error) == error) {
            m_table->selectRow(int(i));
            return true;
        }
    }
    return false;
}

void FailuresView::showSelection() {
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    const core::ErrorGroup* g = rows.isEmpty() || rows.first().row() >= int(m_groups.size())
                                    ? nullptr
                                    : &m_groups[std::size_t(rows.first().row())];
    if (!g) {
        m_sample->clear();
        m_ids->clear();
        m_idsLabel->setText(tr("Jobs"));
    } else {
        m_sample->setPlainText(g->sample.empty() ? tr("(no error stored)")
                                                 : readableError(g->sample));
        QStringList ids;
        for (std::size_t i = 0; i < g->messageIds.size() && i < kIdsShown; ++i) {
            ids << visibleText(g->messageIds[i]);
        }
        if (g->messageIds.size() > kIdsShown) {
            ids << tr("\u2026 and %1 more (Copy job ids copies all)")
                       .arg(localeCount(qint64(g->messageIds.size() - kIdsShown)));
        }
        m_ids->setPlainText(ids.join(QLatin1Char('\n')));
        m_idsLabel->setText(tr("Jobs (%1)").arg(localeCount(g->count)));
    }
    updateActions();
}

void FailuresView::setUtc(bool utc) {
    m_utc = utc;
    if (!m_groups.empty()) {
        showGroups();
    }
}

void FailuresView::updateActions() {
    const bool open = m_doc->isOpen();
    const bool selected = open && selectedGroup().has_value();
    m_show->setEnabled(selected);
    m_copy->setEnabled(selected);
    const core::QueueFormat& format = m_doc->format();
    const std::pair<QAction*, core::Action> pairs[] = {
        {m_retry, open ? format.retryAction() : core::Action::Retry},
        {m_delete, core::Action::Delete}};
    for (const auto& [qa, a] : pairs) {
        QString why;
        if (!open) {
            why = tr("Open a queue file first");
        } else if (const std::string no = m_doc->whyNot(a); !no.empty()) {
            why = fromStd(no);
        } else if (m_doc->readOnly()) {
            why = tr("The file is open read-only (File \u203a Read-only)");
        } else if (!m_doc->writable()) {
            why = tr("The file cannot be changed now (gone or disconnected)");
        } else if (!selected) {
            why = tr("Select an error group first");
        }
        qa->setEnabled(why.isEmpty() && !m_doc->isBusy());
        qa->setToolTip(why.isEmpty() ? tr("%1 every job of the selected group (confirmed first; "
                                          "Edit \u203a Undo reverts it)")
                                           .arg(actionTitle(a))
                                     : why);
    }
}

void FailuresView::retrySelectedGroup() {
    if (const auto g = selectedGroup()) {
        m_handler->runErrorGroup(core::Action::Retry, *g, m_shownQueue);
    }
}

void FailuresView::deleteSelectedGroup() {
    if (const auto g = selectedGroup()) {
        m_handler->runErrorGroup(core::Action::Delete, *g, m_shownQueue);
    }
}

void FailuresView::showSelectedJobs() {
    if (const auto g = selectedGroup(); g && !g->messageIds.empty()) {
        emit showJobsRequested(fromStd(g->messageIds.front()));
    }
}

void FailuresView::copySelectedIds() {
    if (const auto g = selectedGroup()) {
        QStringList ids;
        for (const std::string& id : g->messageIds) {
            ids << fromStd(id);
        }
        QApplication::clipboard()->setText(ids.join(QLatin1Char('\n')));
    }
}

} // namespace lq::ui
