// SPDX-License-Identifier: MIT
// Pause and Resume of a named queue (issue 39): where the file stores the
// library's own pause (QueueFormat::whyNoPause), one row written as the
// library writes it, with no confirmation, reported and undoable like every
// action; elsewhere the actions are off with the format's reason.
#include "core/backend.h"
#include "core/formats/queueformat.h"
#include "ui/actionreport.h"
#include "ui/messagemodel.h"
#include "ui/queueactionhandler.h"
#include "ui/queuedocument.h"
#include "ui/runasync.h"
#include "ui/uiresources.h"
#include "ui/uitext.h"

#include <QAction>
#include <QApplication>

namespace lq::ui {

namespace {

bool samePauses(const std::vector<core::PausedQueue>& a, const std::vector<core::PausedQueue>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                      [](const core::PausedQueue& x, const core::PausedQueue& y) {
                          return x.queue == y.queue && x.since == y.since;
                      });
}

} // namespace

void QueueActionHandler::createPauseActions() {
    m_pause = makeAction(m_parent, "pauseQueue", tr("&Pause queue"), nullptr);
    m_pause->setToolTip(tr("Pause the named queue shown, as its library does: its workers skip "
                           "it until it is resumed. Undo resumes it."));
    connect(m_pause, &QAction::triggered, this, [this] { setQueuePaused(currentQueue(), true); });
    m_resume = makeAction(m_parent, "resumeQueue", tr("Res&ume queue"), nullptr);
    m_resume->setToolTip(tr("Resume the paused named queue shown, as its library does."));
    connect(m_resume, &QAction::triggered, this, [this] { setQueuePaused(currentQueue(), false); });
    // What is paused follows the file: read again when it changed.
    connect(m_doc, &QueueDocument::opened, this, [this] {
        m_paused.clear();
        emit pausedQueuesChanged();
        refreshPaused();
    });
    connect(m_doc, &QueueDocument::closed, this, [this] {
        m_paused.clear();
        emit pausedQueuesChanged();
    });
    connect(m_model, &MessageModel::dataVersionChanged, this, &QueueActionHandler::refreshPaused);
    connect(m_model, &MessageModel::countsChanged, this,
            [this] { updatePauseActions(); }); // the queue shown may be another
}

QString QueueActionHandler::currentQueue() const {
    return fromStd(m_model->filter().queue);
}

std::optional<core::PausedQueue> QueueActionHandler::pauseOf(const QString& queue) const {
    const std::string q = toStd(queue);
    for (const core::PausedQueue& p : m_paused) {
        if (p.queue == q) {
            return p;
        }
    }
    return std::nullopt;
}

QString QueueActionHandler::whyNoPause(const QString& queue) const {
    if (!m_doc->isOpen()) {
        return tr("Open a queue file first");
    }
    if (const std::string why = m_doc->whyNot(core::Action::Pause); !why.empty()) {
        return fromStd(why);
    }
    if (queue.isEmpty()) {
        return tr("Pick a named queue in the sidebar first: a pause is per queue");
    }
    if (!m_doc->writable()) {
        return m_doc->readOnly() ? tr("The file is open read-only")
                                 : tr("The file cannot be written now");
    }
    return {};
}

void QueueActionHandler::updatePauseActions() {
    if (!m_pause) {
        return;
    }
    const QString queue = currentQueue();
    const QString why = whyNoPause(queue);
    const bool paused = pauseOf(queue).has_value();
    m_pause->setEnabled(why.isEmpty() && !paused);
    m_resume->setEnabled(why.isEmpty() && paused);
    m_pause->setToolTip(!why.isEmpty() ? why
                        : paused ? tr("%1 is %2").arg(queue, pausedText(pauseOf(queue)->since))
                                 : tr("Pause queue %1 as its library does: its workers skip "
                                      "it until it is resumed. Undo resumes it.")
                                       .arg(queue));
    m_resume->setToolTip(
        !why.isEmpty() ? why
        : paused       ? tr("Resume queue %1 as its library does; undo pauses it again.").arg(queue)
                       : tr("%1 is not paused").arg(queue));
}

void QueueActionHandler::refreshPaused() {
    const std::shared_ptr<core::QueueBackend> b = m_doc->backend();
    if (!b || !m_doc->isOpen() || m_pausedReading || !m_doc->format().namedQueues()) {
        return;
    }
    m_pausedReading = true;
    runAsync(
        this,
        [b]() -> std::optional<std::vector<core::PausedQueue>> {
            try {
                return b->pausedQueues();
            } catch (const std::exception&) {
                return std::nullopt; // the next change reads again
            }
        },
        [this, b](const std::optional<std::vector<core::PausedQueue>>& paused) {
            m_pausedReading = false;
            if (!paused || b != m_doc->backend() || samePauses(*paused, m_paused)) {
                return;
            }
            m_paused = *paused;
            updatePauseActions();
            emit pausedQueuesChanged();
        });
}

void QueueActionHandler::setQueuePaused(const QString& queue, bool pause) {
    if (!checkWritable()) {
        return;
    }
    const core::Action a = pause ? core::Action::Pause : core::Action::Resume;
    if (const QString why = whyNoPause(queue); !why.isEmpty()) {
        emit errorOccurred(tr("%1: %2").arg(m_doc->fileName(), why), false);
        return;
    }
    QApplication::setOverrideCursor(Qt::BusyCursor);
    runAsync(
        this,
        [b = m_doc->backend(), q = toStd(queue), pause]() -> std::pair<core::Report, QString> {
            try {
                return {b->setPaused(q, pause), {}};
            } catch (const std::exception& e) {
                return {core::Report{}, QString::fromUtf8(e.what())};
            }
        },
        [this, a, queue, busy = m_doc->busy()](const std::pair<core::Report, QString>& r) mutable {
            const QueueDocument::Busy held = std::move(busy);
            QApplication::restoreOverrideCursor();
            ActionReport rep = reportFrom(tr("%1 %2").arg(actionTitle(a), queue), r.first);
            if (!r.second.isEmpty()) {
                rep.error = r.second;
            } else if (r.first.applied() == 0 && !r.first.result.skipped.empty()) {
                rep.notice = fromStd(r.first.result.skipped.front().reason);
            }
            finishReport(rep);
            m_model->refreshNow();
            refreshPaused();
        });
}

} // namespace lq::ui
