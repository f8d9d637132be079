// SPDX-License-Identifier: MIT
#include "ui/pausedqueues.h"

#include "ui/fleetmodel.h"
#include "ui/messagemodel.h"
#include "ui/queueactionhandler.h"
#include "ui/queuebanners.h"
#include "ui/queuedocument.h"
#include "ui/queuesidebar.h"
#include "ui/statusfilterbar.h"
#include "ui/uitext.h"

#include <QAction>
#include <QMenu>

namespace lq::ui {

void showPausedQueues(const QueueDocument* doc, QueueActionHandler* handler, MessageModel* model,
                      QueueBanners* banners, StatusFilterBar* chips, QueueSidebar* sidebar) {
    const auto update = [handler, model, banners, chips] {
        const QString queue = fromStd(model->filter().queue);
        const auto pause = queue.isEmpty() ? std::nullopt : handler->pauseOf(queue);
        const QString text = pause ? pausedText(pause->since) : QString();
        banners->setPausedQueue(queue, text, handler->resumeAction()->isEnabled());
        chips->setPausedNote(text);
    };
    QObject::connect(handler, &QueueActionHandler::pausedQueuesChanged, banners, update);
    QObject::connect(model, &MessageModel::countsChanged, banners, update);
    QObject::connect(model, &MessageModel::orderingReset, banners, update);
    QObject::connect(banners, &QueueBanners::resumeRequested, handler,
                     [handler](const QString& queue) { handler->setQueuePaused(queue, false); });
    sidebar->setMenuHook([doc, handler, model](QMenu& menu, const QModelIndex& index) {
        const QString queue = index.data(FleetModel::QueueNameRole).toString();
        if (queue.isEmpty()) {
            return;
        }
        // The open file's queue only: the action acts on the document.
        const bool shown = doc->isOpen() &&
                           index.data(FleetModel::PathRole).toString() == doc->path() &&
                           fromStd(model->filter().queue) == queue;
        const bool paused = index.data(FleetModel::PausedRole).toBool();
        QAction* a = menu.addAction(
            paused ? QObject::tr("Resume queue %1").arg(queue)
                   : QObject::tr("Pause queue %1").arg(queue),
            handler, [handler, queue, paused] { handler->setQueuePaused(queue, !paused); });
        const QString why = shown ? handler->whyNoPause(queue)
                                  : QObject::tr("Open the queue first (click its row)");
        a->setEnabled(why.isEmpty());
        a->setToolTip(why);
        menu.setToolTipsVisible(true);
    });
}

} // namespace lq::ui
