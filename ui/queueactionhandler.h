// SPDX-License-Identifier: MIT
#pragma once

#include "core/actions.h"
#include "core/errors.h"
#include "core/operator.h"
#include "core/processes.h"
#include "core/recurring.h"
#include "ui/actionreport.h"
#include "ui/confirmdialog.h"

#include <QObject>
#include <QPointer>

#include <functional>
#include <optional>
#include <vector>

class QAction;
class QItemSelectionModel;
class QWidget;

namespace lq::core {
class QueueBackend;
}

namespace lq::ui {

class MessageModel;
class QueueDocument;

/// The operator workflows of the open queue and their QActions (compare
/// tiled's MapDocumentActionHandler). Each workflow presents core::Operator
/// through the document's core::QueueBackend: targets (the selection with the
/// tokens shown, or the whole filter), confirmation with the exact count,
/// the chunked apply in a worker with progress and cancel, the report, undo.
/// The actions are enabled from the document's state and the format's
/// capabilities (QueueFormat::whyNot); a disabled action says why.
class QueueActionHandler : public QObject {
    Q_OBJECT
public:
    /// Asked before every write (ConfirmRequest: the question, the exact
    /// number of jobs it touches, and for a row action the scope). Return
    /// true to go ahead; a row action's handler may set wholeFilter. Tests
    /// install one instead of clicking modal dialogs.
    using ConfirmHandler = std::function<bool(ConfirmRequest& request)>;
    /// The same for handlers that only read the question and the count of
    /// the default scope.
    using SimpleConfirmHandler = std::function<bool(const QString& text, qint64 count)>;
    using ReportHandler = std::function<void(const ActionReport&)>;

    /// `dialogParent` parents the confirmations, progress and reports.
    QueueActionHandler(QueueDocument* document, MessageModel* model, QWidget* dialogParent);
    ~QueueActionHandler() override;

    /// The table's selection: what the row actions act on.
    void setSelectionModel(QItemSelectionModel* selection);

    QAction* retryAction() const { return m_retry; }
    QAction* markFailedAction() const { return m_markFailed; }
    QAction* releaseAction() const { return m_release; }
    QAction* rescheduleAction() const { return m_reschedule; }
    QAction* deleteAction() const { return m_delete; }
    QAction* retryExpiredAction() const { return m_retryExpired; }
    QAction* pruneAction() const { return m_prune; }
    QAction* vacuumAction() const { return m_vacuum; }
    QAction* enqueueAction() const { return m_enqueue; }
    QAction* upgradeAction() const { return m_upgrade; }
    QAction* undoAction() const { return m_undo; }
    /// Pause / Resume of the named queue shown (the sidebar's child row or
    /// the chips' queue), where the format stores a pause
    /// (queueactionhandler_pause.cpp).
    QAction* pauseAction() const { return m_pause; }
    QAction* resumeAction() const { return m_resume; }
    /// The queues the file records as paused, as last read.
    const std::vector<core::PausedQueue>& pausedQueues() const { return m_paused; }
    /// The pause of `queue`, if it is paused (as last read).
    std::optional<core::PausedQueue> pauseOf(const QString& queue) const;
    /// Why `queue` of the open file cannot be paused or resumed now ("" when
    /// it can): the format's reason, read-only, no named queue.
    QString whyNoPause(const QString& queue) const;
    /// The QAction of an operator action (nullptr for none).
    QAction* actionFor(core::Action a) const;

    void setConfirmHandler(ConfirmHandler handler) { m_confirm = std::move(handler); }
    void setConfirmHandler(SimpleConfirmHandler handler);
    void setReportHandler(ReportHandler handler) { m_report = std::move(handler); }
    ActionReport lastReport() const { return m_lastReport; }
    int reportCount() const { return m_reportCount; }

public slots:
    void retrySelected();
    void markFailedSelected();
    void releaseSelected();
    void rescheduleSelected(std::chrono::nanoseconds delay);
    void deleteSelected();
    void retryExpired(std::chrono::nanoseconds threshold);
    void prune(std::optional<std::chrono::nanoseconds> olderThan, bool includeFailed);
    void vacuum();
    void enqueue(const QString& payload, const QString& idempotencyKey);
    void upgradeFile();
    void undoLastAction();
    /// `action` (Retry: the format's retryAction(); or Delete) on every job
    /// of error group `group` of named queue `queue` ("": the whole file) as
    /// it was grouped: planned in a worker (core::planErrorGroup), confirmed
    /// with the exact preview, run, reported, undoable like any action
    /// (queueactionhandler_errors.cpp).
    void runErrorGroup(lq::core::Action action, const lq::core::ErrorGroup& group,
                       const QString& queue = {});
    /// Releases the claims of dead process `process` (the Processes tab):
    /// its jobs as they are now, each guarded by its token, confirmed first,
    /// reported and undoable like any action.
    void runProcessRelease(const lq::core::ProcessInfo& process);
    /// Pauses (or resumes) named queue `queue` of the open file as its
    /// library does: no confirmation (one row), reported, undoable.
    void setQueuePaused(const QString& queue, bool pause);
    /// Enqueues recurring task `task`'s job now as the library's own "run
    /// now" does (the Recurring tab): confirmed first, run in a worker,
    /// reported, undoable (queueactionhandler_recurring.cpp).
    void runRecurringTask(const lq::core::RecurringTask& task);
    /// Reads the paused queues again (off the UI thread).
    void refreshPaused();
    /// Enables each action from the document and the selection.
    void updateActions();

signals:
    /// Something went wrong; `dialog`: worth a dialog, not only the status bar.
    void errorOccurred(const QString& text, bool dialog);
    /// An action finished (or found nothing to do).
    void reportFinished(const lq::ui::ActionReport& report);
    /// The file's format changed (an upgrade): it must be opened again.
    void reopenRequested();
    /// Rowids may be renumbered (a vacuum): the table restarts its ordering.
    void orderingRestarting();
    /// The paused queues were read and differ from the last read.
    void pausedQueuesChanged();

private:
    using PlanReady = std::function<void(core::Plan plan)>;

    void createActions();
    void createPauseActions();
    void updatePauseActions();
    /// The named queue the table shows ("" for the whole file).
    QString currentQueue() const;
    bool checkWritable();
    bool confirm(const QString& text, qint64 count);
    bool confirm(ConfirmRequest& request);
    /// The selection's (id, token) pairs as the user saw them; in a worker.
    void planSelection(core::Action action, const PlanReady& ready);
    /// Every match of the filter, pinned now; in a worker.
    void planWholeFilter(core::Action action, const PlanReady& ready);
    /// The selected rows in words: the first few ids with their job and
    /// queue, then "and N more".
    QString selectionWords() const;
    qint64 selectedCount() const;
    void runRowAction(core::Action action, std::chrono::nanoseconds delay = {});
    /// Runs a confirmed plan (or an undo when `undo` is set) in a worker,
    /// with progress and cancel for long ones.
    void runPlan(core::Plan plan, const QString& title,
                 std::optional<core::AuditEntry> undo = std::nullopt);
    /// Plans in a worker (the document is busy meanwhile); `ready` gets the
    /// plan, an error is shown instead.
    void planAsync(std::function<core::Plan(core::QueueBackend&)> plan, const PlanReady& ready);
    void finishReport(const ActionReport& report);
    /// Nothing to do: a report with a notice.
    void finishNotice(const QString& title, const QString& notice);
    bool hasRows() const;
    /// Why per-row action `a` skips every selected row as shown ("" when one
    /// takes it, or when that cannot be told here: rows not loaded, too many
    /// to look at, a backend that does not know the rule).
    QString selectionRefusal(core::Action a) const;

    QueueDocument* m_doc;
    MessageModel* m_model;
    QWidget* m_parent;
    QPointer<QItemSelectionModel> m_selection;

    QAction* m_retry = nullptr;
    QAction* m_markFailed = nullptr;
    QAction* m_release = nullptr;
    QAction* m_reschedule = nullptr;
    QAction* m_delete = nullptr;
    QAction* m_retryExpired = nullptr;
    QAction* m_prune = nullptr;
    QAction* m_vacuum = nullptr;
    QAction* m_enqueue = nullptr;
    QAction* m_upgrade = nullptr;
    QAction* m_undo = nullptr;
    QAction* m_pause = nullptr;
    QAction* m_resume = nullptr;
    std::vector<core::PausedQueue> m_paused;
    bool m_pausedReading = false;

    ConfirmHandler m_confirm;
    ReportHandler m_report;
    ActionReport m_lastReport;
    int m_reportCount = 0;
};

} // namespace lq::ui
