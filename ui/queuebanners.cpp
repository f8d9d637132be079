// SPDX-License-Identifier: MIT
#include "ui/queuebanners.h"

#include "core/formats/queueformat.h"
#include "core/statemodel.h"
#include "ui/bannerbar.h"
#include "ui/queuedocument.h"
#include "ui/uitext.h"

#include <QFileInfo>
#include <QLocale>

namespace lq::ui {

QueueBanners::QueueBanners(BannerBar* bar, QueueDocument* document, QObject* parent)
    : QObject(parent)
    , m_bar(bar)
    , m_doc(document) {}

void QueueBanners::expectAttention() {
    m_attentionPending = true;
    m_bar->reserve(QStringLiteral("attention"), true);
}

void QueueBanners::offerAttention(const core::Counts& c, int stuckSeconds) {
    // What needs attention, from the counts every view shows: raised when
    // stuck or failed jobs appear, following their numbers, gone when none
    // are left. Its place in the strip is kept while the file is open, so it
    // never moves the table.
    if (!m_doc->isOpen()) {
        return;
    }
    if (m_attentionPending && c.stored == 0) {
        return; // not read yet (or an empty queue)
    }
    m_attentionPending = false;
    const core::StateModel model = core::stateModel(m_doc->format(), c);
    qint64 failed = 0;
    for (const auto& st : model.partition) {
        if (st.state.name == "failed" || st.state.attention) {
            failed += st.count;
        }
    }
    const QLocale l;
    if (c.stuck > 0) {
        // The library's own rule where it has one, else the operator's.
        const std::string rule = m_doc->format().ownStuckRule();
        const QString why =
            rule.empty() ? tr("locked longer than %1")
                               .arg(humanDuration(core::TimeNs(stuckSeconds) * core::kNsPerSecond))
                         : fromStd(rule);
        // "and 0 failed" once the failures were retried says nothing.
        const QString text =
            failed > 0
                ? tr("%1 stuck message(s) (%2) and %3 failed need attention.")
                      .arg(l.toString(c.stuck), why, l.toString(failed))
                : tr("%1 stuck message(s) (%2) need attention.").arg(l.toString(c.stuck), why);
        m_bar->setBanner(QStringLiteral("attention"), BannerBar::Level::Warning, text,
                         tr("Show stuck"), [this] { emit showChoice(StatusFilterBar::Stuck); });
    } else if (failed > 0) {
        m_bar->setBanner(QStringLiteral("attention"), BannerBar::Level::Info,
                         tr("%1 failed message(s) in this queue.").arg(l.toString(failed)),
                         tr("Show failed"), [this] { emit showChoice(StatusFilterBar::Failed); });
    } else {
        // Released, retried or pruned: nothing needs attention any more.
        m_bar->removeBanner(QStringLiteral("attention"));
    }
}

void QueueBanners::setConnection(bool connected, const QString& text) {
    if (connected) {
        m_bar->removeBanner(QStringLiteral("connection"));
        return;
    }
    m_bar->setBanner(QStringLiteral("connection"), BannerBar::Level::Error,
                     text + tr(" Actions are off until the connection is back."));
}

void QueueBanners::setProcessWarnings(const QStringList& warnings) {
    if (warnings.isEmpty() || !m_doc->isOpen()) {
        m_bar->removeBanner(QStringLiteral("processes"));
        return;
    }
    m_bar->setBanner(QStringLiteral("processes"), BannerBar::Level::Warning,
                     warnings.join(QStringLiteral("; ")) + QLatin1Char('.'), tr("Show processes"),
                     [this] { emit showProcessesRequested(); });
}

void QueueBanners::setPausedQueue(const QString& queue, const QString& text, bool canResume) {
    if (text.isEmpty() || !m_doc->isOpen()) {
        m_bar->removeBanner(QStringLiteral("paused"));
        return;
    }
    m_bar->setBanner(QStringLiteral("paused"), BannerBar::Level::Warning,
                     tr("Queue %1 is %2.").arg(queue, text), canResume ? tr("Resume") : QString(),
                     [this, queue] { emit resumeRequested(queue); });
}

void QueueBanners::documentChanged() {
    m_bar->removeBanner(QStringLiteral("readonly"));
    m_bar->removeBanner(QStringLiteral("processes"));
    m_bar->removeBanner(QStringLiteral("format"));
    for (const QString& k : m_bar->keys()) {
        if (k.startsWith(QStringLiteral("warning"))) {
            m_bar->removeBanner(k);
        }
    }
    if (!m_doc->isOpen()) {
        m_bar->reserve(QStringLiteral("attention"), false);
        return;
    }
    const core::FormatInfo& info = m_doc->info();
    if (info.formatReadOnly()) {
        m_bar->setBanner(QStringLiteral("readonly"), BannerBar::Level::Warning,
                         tr("Read-only: %1").arg(fromStd(info.readOnlyReason)));
    } else if (m_doc->readOnly()) {
        const bool writable = QFileInfo(m_doc->path()).isWritable();
        m_bar->setBanner(
            QStringLiteral("readonly"), BannerBar::Level::Info,
            writable
                ? tr("Read-only mode: actions are off. Turn off File › Read-only to change "
                     "the queue.")
                : tr("Read-only: you cannot write to %1 (file permissions).").arg(m_doc->path()));
    }
    const bool upgradable = !m_doc->readOnly() && !info.formatReadOnly();
    auto upgradeButton = [this] { emit upgradeRequested(); };
    const core::QueueFormat& format = m_doc->format();
    if (const std::string notice = format.notice(info); !notice.empty()) {
        m_bar->setBanner(QStringLiteral("format"), BannerBar::Level::Info, fromStd(notice),
                         upgradable && format.offers(core::Action::Upgrade, info)
                             ? tr("Upgrade\u2026")
                             : QString(),
                         upgradeButton);
    }
    int i = 0;
    for (const std::string& w : info.warnings) {
        m_bar->setBanner(QStringLiteral("warning%1").arg(i++), BannerBar::Level::Warning,
                         fromStd(w));
    }
}

void QueueBanners::setFileState(MessageModel::FileState state) {
    switch (state) {
    case MessageModel::FileState::Ok:
        m_bar->removeBanner(QStringLiteral("file"));
        break;
    case MessageModel::FileState::Missing:
        m_bar->setBanner(QStringLiteral("file"), BannerBar::Level::Error,
                         tr("%1 was deleted or moved. The table shows what was last read; "
                            "every action that writes is off.")
                             .arg(m_doc->path()),
                         tr("Reopen"), [this] { emit reopenRequested(); });
        break;
    case MessageModel::FileState::Replaced:
        m_bar->setBanner(QStringLiteral("file"), BannerBar::Level::Error,
                         tr("%1 was replaced by another file. The table shows the old one; "
                            "every action that writes is off.")
                             .arg(m_doc->path()),
                         tr("Reopen"), [this] { emit reopenRequested(); });
        break;
    }
}

void QueueBanners::clearFileState() {
    m_bar->removeBanner(QStringLiteral("file"));
}

void QueueBanners::showSkipped(const QString& path, const QString& reason) {
    for (const QString& k : m_bar->keys()) {
        m_bar->removeBanner(k);
    }
    m_bar->setBanner(QStringLiteral("file"), BannerBar::Level::Warning,
                     tr("%1 is not shown: %2").arg(path, reason));
}

} // namespace lq::ui
