// SPDX-License-Identifier: MIT
#pragma once

namespace lq::ui {

class MessageModel;
class QueueActionHandler;
class QueueBanners;
class QueueDocument;
class QueueSidebar;
class StatusFilterBar;

/// Shows the paused named queues (issue 39) where the window shows the
/// queue: the banner and the chip bar say "paused since …: workers skip it"
/// for the named queue shown, and a named queue's row in the sidebar offers
/// Pause or Resume (disabled with the reason where it is not offered). The
/// sidebar's second line says it from the folder scan (FleetModel).
void showPausedQueues(const QueueDocument* doc, QueueActionHandler* handler, MessageModel* model,
                      QueueBanners* banners, StatusFilterBar* chips, QueueSidebar* sidebar);

} // namespace lq::ui
