// SPDX-License-Identifier: MIT
// Run now of a recurring task (issue 39, the Recurring tab): the task's job
// enqueued as the library's own "run now" does (Solid Queue: what Mission
// Control's Run now writes), confirmed first like every write, run in a
// worker, reported and undoable (Edit › Undo deletes the job while no worker
// has claimed it). Where the format records no recurring tasks, the format's
// reason (QueueFormat::whyNot).
#include "core/backend.h"
#include "core/formats/queueformat.h"
#include "ui/actionreport.h"
#include "ui/messagemodel.h"
#include "ui/queueactionhandler.h"
#include "ui/queuedocument.h"
#include "ui/runasync.h"
#include "ui/uitext.h"

#include <QApplication>

#include <utility>

namespace lq::ui {

void QueueActionHandler::runRecurringTask(const lq::core::RecurringTask& task) {
    if (!checkWritable()) {
        return;
    }
    const core::Action a = core::Action::RunRecurring;
    if (const std::string why = m_doc->whyNot(a); !why.empty()) {
        emit errorOccurred(tr("%1: %2").arg(m_doc->fileName(), fromStd(why)), false);
        return;
    }
    const QString key = visibleText(task.key);
    const QString what = !task.className.empty()
                             ? visibleText(task.className)
                             : tr("the command %1").arg(visibleText(task.command.substr(0, 200)));
    QString text = tr("Run recurring task %1 now?").arg(key);
    text += QStringLiteral("\n\n") +
            tr("In %1, one job of %2 is enqueued as the library's own \u201crun now\u201d "
               "enqueues it (ready at once, recorded as a run of the task). Edit \u203a Undo "
               "deletes the job while no worker has claimed it.")
                .arg(m_doc->fileName(), what);
    if (!confirm(text, 1)) {
        return;
    }
    QApplication::setOverrideCursor(Qt::BusyCursor);
    runAsync(
        this,
        [b = m_doc->backend(), k = task.key]() -> std::pair<core::Report, QString> {
            try {
                return {b->runRecurring(k), {}};
            } catch (const std::exception& e) {
                return {core::Report{}, QString::fromUtf8(e.what())};
            }
        },
        [this, key, busy = m_doc->busy()](const std::pair<core::Report, QString>& r) mutable {
            const QueueDocument::Busy held = std::move(busy);
            QApplication::restoreOverrideCursor();
            ActionReport rep =
                reportFrom(tr("%1 %2").arg(actionTitle(core::Action::RunRecurring), key), r.first);
            if (!r.second.isEmpty()) {
                rep.error = r.second;
            } else if (r.first.applied() == 0 && !r.first.result.skipped.empty()) {
                rep.notice = fromStd(r.first.result.skipped.front().reason);
            }
            finishReport(rep);
            m_model->refreshNow();
        });
}

} // namespace lq::ui
