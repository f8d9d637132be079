// SPDX-License-Identifier: MIT
// Actions of the operator views (issue 39): a whole error group (the
// Failures view) and a dead process's claims (the Processes view), with the
// same workflow as a row action.
#include "core/backend.h"
#include "core/formats/queueformat.h"
#include "ui/actionreport.h"
#include "ui/queueactionhandler.h"
#include "ui/queuedocument.h"
#include "ui/uitext.h"

#include <QStringList>

namespace lq::ui {

void QueueActionHandler::runErrorGroup(lq::core::Action action, const lq::core::ErrorGroup& group,
                                       const QString& queue) {
    if (!checkWritable()) {
        return;
    }
    // What "retry" means is the format's: a lease queue releases.
    const core::QueueFormat& format = m_doc->format();
    const core::Action a = action == core::Action::Retry ? format.retryAction() : action;
    if (const std::string why = m_doc->whyNot(a); !why.empty()) {
        emit errorOccurred(tr("%1: %2").arg(m_doc->fileName(), fromStd(why)), false);
        return;
    }
    const QString title = actionTitle(a);
    if (group.messageIds.empty()) {
        finishNotice(title, tr("no job matches"));
        return;
    }
    QStringList queues;
    for (const std::string& q : group.queues) {
        queues << visibleText(q);
    }
    const QString error = group.error.empty() ? tr("(no error stored)") : visibleText(group.error);
    const QString where =
        queues.isEmpty() ? QString() : tr(" (queues: %1)").arg(queues.join(QStringLiteral(", ")));
    const qint64 n = group.count;
    QString text =
        tr("%1 %2 failed job(s) with error %3%4?").arg(title, localeCount(n), error, where);
    text += QStringLiteral("\n\n") + tr("In %1. A job that changed since it was shown is "
                                        "skipped; Undo can revert the rest.")
                                         .arg(m_doc->fileName());
    if (!confirm(text, n)) {
        return;
    }
    planAsync([a, group, q = toStd(queue)](
                  core::QueueBackend& b) { return core::planErrorGroup(b, a, group, q); },
              [this, title](core::Plan plan) {
                  if (plan.targets.empty()) {
                      finishNotice(title, tr("no job matches"));
                      return;
                  }
                  runPlan(std::move(plan), title);
              });
}

void QueueActionHandler::runProcessRelease(const lq::core::ProcessInfo& process) {
    if (!checkWritable()) {
        return;
    }
    const core::Action a = core::Action::Release;
    if (const std::string why = m_doc->whyNot(a); !why.empty()) {
        emit errorOccurred(tr("%1: %2").arg(m_doc->fileName(), fromStd(why)), false);
        return;
    }
    const QString title = actionTitle(a);
    if (process.claimedIds.empty()) {
        finishNotice(title, tr("the process holds no jobs"));
        return;
    }
    const qint64 n = qint64(process.claimedIds.size());
    QString text = tr("Release the %1 job(s) held by dead process %2 (%3, pid %4 on %5)?")
                       .arg(localeCount(n), visibleText(process.id), visibleText(process.kind),
                            QString::number(process.pid), visibleText(process.host));
    // Not "as the supervisor would": Solid Queue's own pruning of a dead
    // process fails its claims; this is the release of a stuck claim.
    text += QStringLiteral("\n\n") + tr("In %1. Each job is released as a stuck claim is "
                                        "(ready to run again); a job that moved since is "
                                        "skipped. Undo can revert the rest.")
                                         .arg(m_doc->fileName());
    if (!confirm(text, n)) {
        return;
    }
    planAsync([process](core::QueueBackend& b) { return core::planProcessRelease(b, process); },
              [this, title](core::Plan plan) {
                  if (plan.targets.empty()) {
                      finishNotice(title, tr("no job matches"));
                      return;
                  }
                  runPlan(std::move(plan), title);
              });
}

} // namespace lq::ui
