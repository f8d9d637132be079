// SPDX-License-Identifier: MIT
// The operator workflows: they present core::Operator (targets,
// confirmation, chunked apply with its audit record, report, undo) through
// the document's core::QueueBackend and run every call to it in a worker.
#include "ui/queueactionhandler.h"

#include "core/backend.h"
#include "core/formats/queueformat.h"
#include "core/statemodel.h"
#include "ui/actionreport.h"
#include "ui/enqueuedialog.h"
#include "ui/messagemodel.h"
#include "ui/prunedialog.h"
#include "ui/queuedocument.h"
#include "ui/runasync.h"
#include "ui/uiresources.h"
#include "ui/uitext.h"

#include <QAction>
#include <QApplication>
#include <QIcon>
#include <QInputDialog>
#include <QItemSelectionModel>
#include <QMessageBox>
#include <QPointer>
#include <QProgressDialog>
#include <QTimer>

#include <atomic>

namespace lq::ui {

using core::Action;
using core::Target;

namespace {

constexpr std::size_t kProgressThreshold = 2000;
/// Selected rows looked at to tell whether a row action applies to any.
constexpr int kRowsChecked = 500;

QString errorText(const std::exception& e) {
    return QString::fromUtf8(e.what());
}

} // namespace

QueueActionHandler::QueueActionHandler(QueueDocument* document, MessageModel* model,
                                       QWidget* dialogParent)
    : QObject(dialogParent)
    , m_doc(document)
    , m_model(model)
    , m_parent(dialogParent) {
    createActions();
}

QueueActionHandler::~QueueActionHandler() = default;

void QueueActionHandler::setSelectionModel(QItemSelectionModel* selection) {
    m_selection = selection;
    connect(selection, &QItemSelectionModel::selectionChanged, this,
            &QueueActionHandler::updateActions);
    // A selected row's state moves with refresh, and a row loads after it
    // was selected: what applies to it is looked at again, once per turn.
    auto* again = new QTimer(this);
    again->setSingleShot(true);
    again->setInterval(0);
    connect(again, &QTimer::timeout, this, &QueueActionHandler::updateActions);
    const auto soon = [this, again] {
        if (m_selection && m_selection->hasSelection() && !again->isActive()) {
            again->start();
        }
    };
    connect(m_model, &QAbstractItemModel::dataChanged, this, soon);
    connect(m_model, &MessageModel::rowsRefreshed, this, soon);
}

void QueueActionHandler::createActions() {
    // Parented to the window (shortcuts work there); the object name is for
    // tests and settings, production code uses the members.
    auto make = [this](const char* name, const QString& text, const char* icon = nullptr,
                       const QKeySequence& key = {}) {
        return makeAction(m_parent, name, text, icon, key);
    };
    m_retry = make("retry", tr("&Retry"), "retry", QKeySequence(Qt::CTRL | Qt::Key_R));
    connect(m_retry, &QAction::triggered, this, &QueueActionHandler::retrySelected);
    m_markFailed = make("markFailed", tr("Mark &failed"), "fail",
                        QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F));
    connect(m_markFailed, &QAction::triggered, this, &QueueActionHandler::markFailedSelected);
    m_release = make("release", tr("Run &now"), "retry", QKeySequence(Qt::CTRL | Qt::Key_L));
    m_release->setToolTip(tr("Make the job due now (a scheduled job runs now, a lapsed lease "
                             "is released)"));
    connect(m_release, &QAction::triggered, this, &QueueActionHandler::releaseSelected);
    m_reschedule = make("reschedule", tr("Re&schedule\u2026"), nullptr,
                        QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
    m_reschedule->setToolTip(tr("Run the job again after a delay"));
    connect(m_reschedule, &QAction::triggered, this, [this] {
        bool ok = false;
        const int s = QInputDialog::getInt(m_parent, tr("Reschedule"),
                                           tr("Run the selected jobs again in (seconds):"), 60, 0,
                                           365 * 86400, 10, &ok);
        if (ok) {
            rescheduleSelected(std::chrono::seconds(s));
        }
    });
    m_delete = make("delete", tr("&Delete"), "prune", QKeySequence::Delete);
    m_delete->setToolTip(tr("Delete the job (as the queue's own finish does)"));
    connect(m_delete, &QAction::triggered, this, &QueueActionHandler::deleteSelected);
    m_retryExpired = make("retryExpired", tr("Retry e&xpired\u2026"), "retry",
                          QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R));
    connect(m_retryExpired, &QAction::triggered, this, [this] {
        bool ok = false;
        const int s = QInputDialog::getInt(
            m_parent, tr("Retry expired"),
            tr("Retry every LOCKED message whose lock is older than (seconds):"),
            m_model->stuckThresholdSeconds(), 1, 365 * 86400, 60, &ok);
        if (ok) {
            retryExpired(std::chrono::seconds(s));
        }
    });
    m_prune =
        make("prune", tr("&Prune\u2026"), "prune", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
    connect(m_prune, &QAction::triggered, this, [this] {
        PruneDialog dlg(m_parent);
        if (m_doc->isOpen()) {
            dlg.setLibraryRule(fromStd(m_doc->format().pruneText()));
        }
        if (checkWritable() && dlg.exec() == QDialog::Accepted) {
            prune(dlg.olderThan(), dlg.includeFailed());
        }
    });
    m_vacuum = make("vacuum", tr("&Vacuum"), "vacuum");
    connect(m_vacuum, &QAction::triggered, this, &QueueActionHandler::vacuum);
    m_enqueue =
        make("enqueue", tr("&Enqueue\u2026"), "enqueue", QKeySequence(Qt::CTRL | Qt::Key_E));
    connect(m_enqueue, &QAction::triggered, this, [this] {
        EnqueueDialog dlg(m_parent);
        if (checkWritable() && dlg.exec() == QDialog::Accepted) {
            enqueue(dlg.data(), dlg.idempotencyKey());
        }
    });
    m_upgrade = make("upgrade", tr("&Upgrade file\u2026"), "upgrade");
    connect(m_upgrade, &QAction::triggered, this, &QueueActionHandler::upgradeFile);
    m_undo = make("undo", tr("&Undo last action"), "undo", QKeySequence::Undo);
    connect(m_undo, &QAction::triggered, this, &QueueActionHandler::undoLastAction);
    createPauseActions();
}

QAction* QueueActionHandler::actionFor(core::Action a) const {
    switch (a) {
    case Action::Retry:
        return m_retry;
    case Action::MarkFailed:
        return m_markFailed;
    case Action::Release:
        return m_release;
    case Action::Reschedule:
        return m_reschedule;
    case Action::Delete:
        return m_delete;
    case Action::RetryExpired:
        return m_retryExpired;
    case Action::Prune:
        return m_prune;
    case Action::Vacuum:
        return m_vacuum;
    case Action::Enqueue:
        return m_enqueue;
    case Action::Upgrade:
        return m_upgrade;
    case Action::Pause:
        return m_pause;
    case Action::Resume:
        return m_resume;
    case Action::RunRecurring: // the Recurring tab's own action
        return nullptr;
    }
    return nullptr;
}

void QueueActionHandler::setConfirmHandler(SimpleConfirmHandler handler) {
    m_confirm = [handler = std::move(handler)](ConfirmRequest& r) {
        return handler(r.wholeFilter ? r.filterText : r.text,
                       r.wholeFilter ? r.filterCount : r.count);
    };
}

bool QueueActionHandler::hasRows() const {
    // A row action starts from a selection; its confirmation offers the
    // whole filter as well.
    return m_selection && m_selection->hasSelection();
}

qint64 QueueActionHandler::selectedCount() const {
    return m_selection ? qint64(m_selection->selectedRows().size()) : 0;
}

QString QueueActionHandler::selectionWords() const {
    constexpr int kNamed = 3;
    const QModelIndexList rows = m_selection ? m_selection->selectedRows() : QModelIndexList();
    QStringList named;
    for (const QModelIndex& i : rows) {
        if (named.size() == kNamed) {
            break;
        }
        const MessageRow* r = m_model->rowAt(i.row());
        if (!r) {
            continue;
        }
        QStringList about;
        if (r->msg.jobName) {
            about << visibleText(*r->msg.jobName);
        }
        if (r->msg.queueName) {
            about << tr("queue %1").arg(visibleText(*r->msg.queueName));
        }
        about << stateText(r->msg);
        named << visibleText(r->msg.messageId) + QStringLiteral(" (") +
                     about.join(QStringLiteral(", ")) + QLatin1Char(')');
    }
    QString text = named.join(QStringLiteral("; "));
    const qint64 rest = qint64(rows.size()) - qint64(named.size());
    if (rest > 0) {
        text += named.isEmpty() ? tr("%1 job(s) not loaded yet").arg(localeCount(rest))
                                : tr(" and %1 more").arg(localeCount(rest));
    }
    return text;
}

void QueueActionHandler::updateActions() {
    const bool open = m_doc->isOpen();
    const bool writable = m_doc->writable();
    const bool rows = open && hasRows();
    // The format says what it offers; a row action also needs rows.
    const core::QueueFormat& format = m_doc->format();
    const std::vector<Action> rowActions = format.rowActions();
    for (Action a :
         {Action::Retry, Action::MarkFailed, Action::Release, Action::Reschedule, Action::Delete,
          Action::RetryExpired, Action::Prune, Action::Vacuum, Action::Enqueue, Action::Upgrade}) {
        QAction* qa = actionFor(a);
        const std::string why = open ? m_doc->whyNot(a) : std::string();
        const bool perRow = a == Action::Retry || a == Action::MarkFailed ||
                            std::find(rowActions.begin(), rowActions.end(), a) != rowActions.end();
        // A row action the format offers but no selected row takes (Release
        // on a failed job) is not offered either; the tooltip says why.
        const QString rowWhy = open && why.empty() && perRow && rows
                                   ? selectionRefusal(a == Action::Retry ? format.retryAction() : a)
                                   : QString();
        qa->setEnabled(writable && why.empty() && (!perRow || rows) && rowWhy.isEmpty());
        // A disabled action says why; an offered one keeps its own tooltip.
        if (!qa->property("lqToolTip").isValid()) {
            qa->setProperty("lqToolTip", qa->toolTip());
        }
        const QString noRows =
            open && why.empty() && perRow && !rows
                ? tr("Select a job first (a job that left this filter is no longer selected); "
                     "the confirmation offers every job matching the filter too")
                : QString();
        QString tip = !why.empty()        ? fromStd(why)
                      : !rowWhy.isEmpty() ? rowWhy
                      : !noRows.isEmpty() ? noRows
                                          : qa->property("lqToolTip").toString();
        if (!qa->shortcut().isEmpty()) {
            tip += QStringLiteral(" (") + qa->shortcut().toString(QKeySequence::NativeText) +
                   QLatin1Char(')');
        }
        qa->setToolTip(tip);
    }
    m_undo->setEnabled(writable);
    updatePauseActions();
}

QString QueueActionHandler::selectionRefusal(Action a) const {
    const std::shared_ptr<core::QueueBackend> q = m_doc->backend();
    if (!m_selection || !m_selection->hasSelection() || !q) {
        return {};
    }
    int seen = 0;
    QString first;
    for (const QItemSelectionRange& range : m_selection->selection()) {
        for (int row = range.top(); row <= range.bottom(); ++row) {
            const MessageRow* r = m_model->rowAt(row);
            if (++seen > kRowsChecked || !r) {
                return {}; // not all known: the run reports what it skips
            }
            const std::optional<std::string> why = q->refusal(a, r->msg);
            if (!why || why->empty()) {
                return {};
            }
            if (first.isEmpty()) {
                first = fromStd(r->msg.messageId) + QLatin1Char(' ') + fromStd(*why);
            }
        }
    }
    if (seen > 1) {
        return tr("No selected message takes %1; e.g. %2")
            .arg(QString::fromLatin1(core::actionName(a)), first);
    }
    return first;
}

bool QueueActionHandler::checkWritable() {
    if (!m_doc->isOpen()) {
        emit errorOccurred(tr("Open a queue file first (File › Open)."), true);
        return false;
    }
    const QString fileName = m_doc->fileName();
    if (m_doc->fileGone()) {
        emit errorOccurred(
            tr("%1 was deleted, replaced or moved since it was opened: nothing was changed. "
               "Reopen it (File › Reopen) to act on what the path names now.")
                .arg(m_doc->path()),
            true);
        return false;
    }
    if (m_doc->readOnly()) {
        const core::FormatInfo& info = m_doc->info();
        emit errorOccurred(
            info.formatReadOnly()
                ? tr("%1 is read-only: %2").arg(fileName, fromStd(info.readOnlyReason))
                : tr("%1 is open read-only. Turn off File › Read-only to change it.").arg(fileName),
            true);
        return false;
    }
    if (m_doc->isBusy()) {
        emit errorOccurred(tr("Another action on %1 is still running.").arg(fileName), false);
        return false;
    }
    return true;
}

bool QueueActionHandler::confirm(const QString& text, qint64 n) {
    ConfirmRequest r;
    r.text = text;
    r.count = n;
    return confirm(r);
}

bool QueueActionHandler::confirm(ConfirmRequest& request) {
    // Refresh pauses while the operator decides, so the count confirmed is
    // the count shown.
    const bool live = m_model->liveRefresh();
    m_model->setLiveRefresh(false);
    bool ok = false;
    if (m_confirm) {
        ok = m_confirm(request);
    } else {
        ConfirmDialog box(request, m_parent);
        ok = box.exec() == QDialog::Accepted;
        request.wholeFilter = box.wholeFilter();
    }
    m_model->setLiveRefresh(live);
    return ok;
}

void QueueActionHandler::planWholeFilter(Action action, const PlanReady& ready) {
    core::Filter f = m_model->filter();
    f.now = core::systemNowNs(); // the filter is fixed at this moment
    planAsync([f, action](core::QueueBackend& q) { return q.planFilter(action, f); }, ready);
}

void QueueActionHandler::planSelection(Action action, const PlanReady& ready) {
    // The selection, with the tokens of the rows as they were shown.
    std::vector<Target> targets;
    std::vector<std::int64_t> unloaded;
    const QModelIndexList rows = m_selection ? m_selection->selectedRows() : QModelIndexList();
    for (const QModelIndex& i : rows) {
        if (const MessageRow* r = m_model->rowAt(i.row())) {
            targets.push_back({r->msg.messageId, r->msg.token});
        } else if (m_model->rowIdAt(i.row()) >= 0) {
            unloaded.push_back(m_model->rowIdAt(i.row()));
        }
    }
    // Rows selected but never shown (a shift-click over pages): read their
    // current tokens.
    planAsync(
        [targets = std::move(targets), unloaded, action](core::QueueBackend& q) mutable {
            if (!unloaded.empty()) {
                for (const core::Message& m : q.fetchRowids(unloaded)) {
                    targets.push_back({m.messageId, m.token});
                }
            }
            return q.planTargets(action, std::move(targets));
        },
        ready);
}

void QueueActionHandler::planAsync(std::function<core::Plan(core::QueueBackend&)> plan,
                                   const PlanReady& ready) {
    runAsync(
        this,
        [q = m_doc->backend(), plan = std::move(plan)]() -> std::pair<core::Plan, QString> {
            try {
                return {plan(*q), {}};
            } catch (const std::exception& e) {
                return {{}, errorText(e)};
            }
        },
        [this, ready, busy = m_doc->busy()](std::pair<core::Plan, QString> r) mutable {
            const QueueDocument::Busy held = std::move(busy);
            if (!r.second.isEmpty()) {
                emit errorOccurred(r.second, true);
                return;
            }
            ready(std::move(r.first));
        });
}

void QueueActionHandler::finishNotice(const QString& title, const QString& notice) {
    ActionReport rep;
    rep.title = title;
    rep.notice = notice;
    finishReport(rep);
}

void QueueActionHandler::runRowAction(Action a, std::chrono::nanoseconds delay) {
    if (!checkWritable()) {
        return;
    }
    if (const std::string why = m_doc->whyNot(a); !why.empty()) {
        emit errorOccurred(tr("%1: %2").arg(m_doc->fileName(), fromStd(why)), false);
        return;
    }
    if (!hasRows()) {
        emit errorOccurred(tr("Select a job first; the confirmation offers every job matching "
                              "the filter too."),
                           false);
        return;
    }
    // The scope is asked in this action's confirmation, never remembered:
    // the selection by default, the whole filter only when chosen there.
    const QString title = actionTitle(a);
    const QString file = m_doc->fileName();
    const QString filterWords = filterInWords(m_model->filter());
    const auto question = [a, title, file, delay](qint64 n, const QString& what) {
        if (a == Action::Reschedule) {
            return tr("Reschedule %1 job(s) in %2 to run in %3?\n\n%4")
                .arg(localeCount(n), file, humanDuration(delay.count()), what);
        }
        if (a == Action::Delete) {
            return tr("Delete %1 job(s) from %2? Undo can restore them.\n\n%3")
                .arg(localeCount(n), file, what);
        }
        return tr("%1 %2 job(s) in %3?\n\n%4").arg(title, localeCount(n), file, what);
    };
    ConfirmRequest request;
    request.scopeOffered = true;
    request.selectionCount = selectedCount();
    request.filterCount = m_model->orderedRows(); // the window holds at most 262,144
    request.filterText =
        question(request.filterCount, tr("Every job matching the filter: %1.").arg(filterWords));
    request.wholeFilter = request.selectionCount == 0;
    request.text = request.selectionCount > 0
                       ? question(request.selectionCount, tr("Selected: %1.").arg(selectionWords()))
                       : request.filterText;
    request.count = request.wholeFilter ? request.filterCount : request.selectionCount;
    // Pause refresh from the moment the question is put.
    const bool live = m_model->liveRefresh();
    m_model->setLiveRefresh(false);
    const bool ok = confirm(request);
    if (!ok) {
        m_model->setLiveRefresh(live);
        return;
    }
    const bool all = request.wholeFilter;
    const qint64 shown = all ? request.filterCount : request.selectionCount;
    const auto go = [this, all, delay, shown, title, question, filterWords](core::Plan plan) {
        if (plan.targets.empty()) {
            finishNotice(title, tr("no job matches"));
            return;
        }
        plan.delay = delay;
        const qint64 n = qint64(plan.count());
        // The filter matched another number of jobs once pinned: the
        // operator confirms the exact one.
        if (all && n != shown &&
            !confirm(question(n, tr("The filter now matches %1 job(s), not the %2 shown: %3.")
                                     .arg(localeCount(n), localeCount(shown), filterWords)),
                     n)) {
            return;
        }
        runPlan(std::move(plan), title);
    };
    // The tokens are taken from the rows as shown (the selection) or the
    // filter is pinned now; refresh goes on meanwhile.
    if (all) {
        planWholeFilter(a, go);
    } else {
        planSelection(a, go);
    }
    m_model->setLiveRefresh(live);
}

void QueueActionHandler::retrySelected() {
    // What "retry" means is the format's: a lease queue releases (run now).
    runRowAction(m_doc->format().retryAction());
}

void QueueActionHandler::releaseSelected() {
    runRowAction(Action::Release);
}

void QueueActionHandler::rescheduleSelected(std::chrono::nanoseconds delay) {
    runRowAction(Action::Reschedule, delay);
}

void QueueActionHandler::deleteSelected() {
    runRowAction(Action::Delete);
}

void QueueActionHandler::markFailedSelected() {
    runRowAction(Action::MarkFailed);
}

void QueueActionHandler::runPlan(core::Plan plan, const QString& title,
                                 std::optional<core::AuditEntry> undo) {
    auto cancel = std::make_shared<std::atomic_bool>(false);
    const std::size_t total = undo ? undo->applied.size() : plan.count();
    QPointer<QProgressDialog> progress;
    if (total >= kProgressThreshold) {
        progress = new QProgressDialog(tr("%1 in %2\u2026").arg(title, m_doc->fileName()),
                                       tr("Cancel"), 0, int(total), m_parent);
        progress->setWindowModality(Qt::WindowModal);
        progress->setMinimumDuration(300);
        progress->setAutoClose(false);
        progress->setAutoReset(false);
        connect(progress, &QProgressDialog::canceled, this, [cancel] { cancel->store(true); });
    }
    QPointer<QueueActionHandler> self(this);
    auto work = [q = m_doc->backend(), plan = std::move(plan), undo = std::move(undo), cancel,
                 progress, self]() -> core::Report {
        const auto onProgress = [progress, self](std::size_t done, std::size_t) {
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
        // Operator::run and undo never throw once started: an error is in
        // the report, with what was applied before it.
        return undo ? q->undo(*undo, cancel.get(), onProgress)
                    : q->run(plan, cancel.get(), onProgress);
    };
    runAsync(this, std::move(work),
             [this, title, progress, busy = m_doc->busy()](const core::Report& r) mutable {
                 const QueueDocument::Busy held = std::move(busy);
                 if (progress) {
                     progress->close();
                     progress->deleteLater();
                 }
                 finishReport(reportFrom(title, r));
                 m_model->refreshNow();
             });
}

void QueueActionHandler::finishReport(const ActionReport& report) {
    m_lastReport = report;
    ++m_reportCount;
    emit reportFinished(report);
    if (m_report) {
        m_report(report);
        return;
    }
    showReportDialog(report, m_parent);
}

void QueueActionHandler::retryExpired(std::chrono::nanoseconds threshold) {
    if (!checkWritable()) {
        return;
    }
    planAsync(
        [threshold](core::QueueBackend& q) { return q.planRetryExpired(threshold, {}); },
        [this, threshold](core::Plan plan) {
            const QString title = actionTitle(Action::RetryExpired);
            if (plan.targets.empty()) {
                finishNotice(
                    title,
                    tr("no LOCKED message is older than %1").arg(humanDuration(threshold.count())));
                return;
            }
            const qint64 n = qint64(plan.count());
            if (!confirm(
                    tr("Retry %1 LOCKED message(s) whose lock is older than %2 in %3? Their "
                       "workers lose them.")
                        .arg(localeCount(n), humanDuration(threshold.count()), m_doc->fileName()),
                    n)) {
                return;
            }
            runPlan(std::move(plan), title);
        });
}

void QueueActionHandler::prune(std::optional<std::chrono::nanoseconds> olderThan,
                               bool includeFailed) {
    if (!checkWritable()) {
        return;
    }
    planAsync(
        [olderThan, includeFailed](core::QueueBackend& q) {
            return q.planPrune(includeFailed, olderThan, {});
        },
        [this, olderThan, includeFailed](core::Plan plan) {
            const QString title = actionTitle(Action::Prune);
            if (plan.targets.empty()) {
                finishNotice(title, tr("nothing to prune"));
                return;
            }
            const qint64 n = qint64(plan.count());
            // Every state the format's pruner deletes, in the state
            // model's words (Oban's cancelled with its completed).
            QStringList states;
            for (const std::string& name : core::pruneStateNames(m_doc->format(), includeFailed)) {
                states << fromStd(name);
            }
            const QString what = states.join(tr(", "));
            const QString when = plan.cutoff ? tr(" finished before %1 (more than %2 ago)")
                                                   .arg(formatInstant(*plan.cutoff, m_model->utc()),
                                                        humanDuration(olderThan->count()))
                                             : QString();
            if (!confirm(tr("Delete %1 job(s) in state %2%3 from %4? The current search and "
                            "filter do not apply. Undo can restore them.")
                             .arg(localeCount(n), what, when, m_doc->fileName()),
                         n)) {
                return;
            }
            runPlan(std::move(plan), title);
        });
}

void QueueActionHandler::vacuum() {
    if (!checkWritable()) {
        return;
    }
    if (!confirm(tr("Vacuum %1? SQLite rewrites the whole file; writers wait until it is done.")
                     .arg(m_doc->fileName()),
                 -1)) {
        return;
    }
    QApplication::setOverrideCursor(Qt::BusyCursor);
    using Sizes = std::pair<std::int64_t, std::int64_t>;
    runAsync(
        this,
        [q = m_doc->backend()]() -> std::pair<Sizes, QString> {
            try {
                Sizes sizes;
                const core::Report r = q->vacuum(&sizes);
                return {sizes, fromStd(r.auditError)};
            } catch (const std::exception& e) {
                return {{0, 0}, errorText(e)};
            }
        },
        [this, busy = m_doc->busy()](const std::pair<Sizes, QString>& r) mutable {
            const QueueDocument::Busy held = std::move(busy);
            QApplication::restoreOverrideCursor();
            ActionReport rep;
            rep.title = tr("Vacuum");
            rep.error = r.second;
            if (r.second.isEmpty()) {
                rep.notice = tr("%1 before, %2 after")
                                 .arg(humanBytes(r.first.first), humanBytes(r.first.second));
            }
            finishReport(rep);
            // VACUUM may renumber rowids: start over, the current message is kept by id.
            emit orderingRestarting();
            m_model->setFilter(m_model->filter());
        });
}

void QueueActionHandler::enqueue(const QString& payload, const QString& idempotencyKey) {
    if (!checkWritable()) {
        return;
    }
    std::optional<std::string> key;
    if (!idempotencyKey.isEmpty()) {
        key = toStd(idempotencyKey);
    }
    runAsync(
        this,
        [q = m_doc->backend(), d = toStd(payload), key]() -> std::pair<core::Report, QString> {
            try {
                // The record is written inside the insert's transaction;
                // undo deletes the message while no worker has claimed it.
                return {q->enqueue(d, key, nullptr), {}};
            } catch (const std::exception& e) {
                return {{}, errorText(e)};
            }
        },
        [this, busy = m_doc->busy()](const std::pair<core::Report, QString>& r) mutable {
            const QueueDocument::Busy held = std::move(busy);
            ActionReport rep = reportFrom(tr("Enqueue"), r.first);
            if (!r.second.isEmpty()) {
                rep.error = r.second;
            } else if (r.first.applied() == 0) {
                rep.notice = tr("the idempotency key is stored with the same data: nothing added");
            }
            finishReport(rep);
            m_model->refreshNow();
        });
}

void QueueActionHandler::upgradeFile() {
    if (!checkWritable()) {
        return;
    }
    if (const std::string why = m_doc->whyNot(Action::Upgrade); !why.empty()) {
        emit errorOccurred(tr("%1: %2").arg(m_doc->fileName(), fromStd(why)), false);
        return;
    }
    const core::QueueFormat& format = m_doc->format();
    const QString text =
        tr("Upgrade %1 (%2) to the current format?\n\n%3\n\nStop every worker that uses this "
           "file first: old versions cannot use the upgraded file, and LOCKED messages become "
           "READY (their workers hold no claim id).")
            .arg(m_doc->fileName(), QString::fromLatin1(format.id()),
                 fromStd(format.notice(m_doc->info())));
    if (!confirm(text, -1)) {
        return;
    }
    runAsync(
        this,
        [q = m_doc->backend()]() -> QString {
            try {
                return fromStd(q->upgrade().auditError);
            } catch (const std::exception& e) {
                return errorText(e);
            }
        },
        [this, busy = m_doc->busy()](const QString& error) mutable {
            const QueueDocument::Busy held = std::move(busy);
            ActionReport rep;
            rep.title = tr("Upgrade");
            rep.error = error;
            if (error.isEmpty()) {
                rep.notice = tr("%1 is upgraded to the current format").arg(m_doc->fileName());
            }
            finishReport(rep);
            emit reopenRequested(); // the format changed
        });
}

void QueueActionHandler::undoLastAction() {
    if (!checkWritable()) {
        return;
    }
    runAsync(
        this,
        [q = m_doc->backend()]() -> std::pair<std::optional<core::AuditEntry>, QString> {
            try {
                return {q->lastUndoable(), {}};
            } catch (const std::exception& e) {
                return {std::nullopt, errorText(e)};
            }
        },
        [this, busy = m_doc->busy()](
            const std::pair<std::optional<core::AuditEntry>, QString>& r) mutable {
            const QueueDocument::Busy held = std::move(busy);
            const QString title = tr("Undo");
            if (!r.second.isEmpty()) {
                ActionReport rep;
                rep.title = title;
                rep.error = r.second;
                finishReport(rep);
                return;
            }
            if (!r.first) {
                finishNotice(title, tr("nothing to undo in %1").arg(m_doc->fileName()));
                return;
            }
            core::AuditEntry entry = *r.first;
            const qint64 n = qint64(entry.applied.size());
            const QString when = formatInstant(entry.when, m_model->utc());
            // A pause's rows are queues, named; other records' are messages.
            const bool queues =
                entry.action == core::Action::Pause || entry.action == core::Action::Resume;
            QStringList names;
            for (const auto& row : entry.applied)
                names << fromStd(row.before.messageId);
            const QString question =
                queues
                    ? tr("Undo %1 %2, made at %3 in %4? A queue whose pause changed since "
                         "is left alone.")
                          .arg(actionTitle(entry.action), names.join(QStringLiteral(", ")), when,
                               m_doc->fileName())
                    : tr("Undo %1 of %2 message(s) made at %3 in %4? Rows that changed "
                         "since are left alone and listed.")
                          .arg(actionTitle(entry.action), localeCount(n), when, m_doc->fileName());
            if (!confirm(question, n)) {
                return;
            }
            runPlan({}, title, std::move(entry));
        });
}

} // namespace lq::ui
