// SPDX-License-Identifier: MIT
#pragma once

#include "core/query.h"
#include "ui/messagemodel.h"
#include "ui/statusfilterbar.h"

#include <QObject>

namespace lq::ui {

class BannerBar;
class QueueDocument;

/// The banners that say what state the open queue is in: read-only (and
/// why), the format's notice (with Upgrade…), the file's warnings, a file
/// deleted or replaced while shown (with Reopen), a skipped file, and after
/// an open one click to what needs attention.
class QueueBanners : public QObject {
    Q_OBJECT
public:
    QueueBanners(BannerBar* bar, QueueDocument* document, QObject* parent = nullptr);

    /// The document was opened (again): its read-only, format and warning
    /// banners.
    void documentChanged();
    void setFileState(MessageModel::FileState state);
    void clearFileState();
    /// A file was opened: the attention banner's place is kept from now on
    /// (the first rows are painted where they stay), its text follows the
    /// first counts.
    void expectAttention();
    /// New counts (the ones the chips and the sidebar show): stuck or
    /// failed jobs raise the attention banner, its numbers follow, and it
    /// goes (its place kept) when nothing needs attention any more.
    void offerAttention(const core::Counts& c, int stuckSeconds);
    /// A skipped file picked in the sidebar: nothing else is shown.
    void showSkipped(const QString& path, const QString& reason);
    /// A remote queue's connection dropped (`text`: "Connection to HOST
    /// lost — reconnecting…") or came back.
    void setConnection(bool connected, const QString& text);
    /// What stops because a kind of process has none alive ("no live
    /// dispatcher: due scheduled jobs are not moved to ready"), from the
    /// Processes view's last read; empty: the banner goes.
    void setProcessWarnings(const QStringList& warnings);
    /// The named queue shown is paused (`text`: "paused since …: workers
    /// skip it"), with Resume when `canResume`; "" removes the banner.
    void setPausedQueue(const QString& queue, const QString& text, bool canResume);

signals:
    void upgradeRequested();
    void reopenRequested();
    /// "Show stuck" / "Show failed" was clicked.
    void showChoice(lq::ui::StatusFilterBar::Choice choice);
    /// "Show processes" was clicked.
    void showProcessesRequested();
    /// "Resume" was clicked on the paused-queue banner.
    void resumeRequested(const QString& queue);

private:
    BannerBar* m_bar;
    QueueDocument* m_doc;
    bool m_attentionPending = false;
};

} // namespace lq::ui
