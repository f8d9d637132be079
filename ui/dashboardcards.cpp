// SPDX-License-Identifier: MIT
#include "ui/dashboardcards.h"

#include "ui/flowlayout.h"
#include "ui/histogramchart.h"
#include "ui/uitext.h"

#include <QFrame>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <QVBoxLayout>

#include <algorithm>
#include <climits>

namespace lq::ui {

namespace {

enum CardId {
    ReadyCard,
    LockedCard,
    DoneCard,
    FailedCard,
    UnknownCard,
    StuckCard,
    BacklogCard,
    DoneHourCard,
    FailedHourCard,
    ScheduledCard,
    LeasedCard,
    ExpiredCard,
    CardCount
};

QLabel* plainLabel(QWidget* parent) {
    auto* l = new QLabel(parent);
    l->setTextFormat(Qt::PlainText);
    return l;
}

} // namespace

struct DashboardCards::Card {
    QFrame* frame = nullptr;
    QLabel* title = nullptr;
    QLabel* value = nullptr;
    QLabel* detail = nullptr;

    Card(QWidget* parent, const QString& titleText) {
        frame = new QFrame(parent);
        frame->setFrameShape(QFrame::StyledPanel);
        frame->setMinimumWidth(96);
        auto* v = new QVBoxLayout(frame);
        v->setContentsMargins(8, 4, 8, 4);
        v->setSpacing(0);
        title = plainLabel(frame);
        title->setText(titleText);
        QPalette pal = title->palette();
        pal.setColor(QPalette::WindowText, pal.color(QPalette::PlaceholderText));
        title->setPalette(pal);
        value = plainLabel(frame);
        QFont f = value->font();
        f.setPointSizeF(f.pointSizeF() * 1.5);
        f.setBold(true);
        value->setFont(f);
        detail = plainLabel(frame);
        QFont small = detail->font();
        small.setPointSizeF(small.pointSizeF() * 0.85);
        detail->setFont(small);
        detail->setPalette(pal);
        v->addWidget(title);
        v->addWidget(value);
        v->addWidget(detail);
    }
    void set(const QString& v, const QString& d = {}, const QString& tip = {}) {
        value->setText(v);
        detail->setText(d);
        frame->setToolTip(tip);
    }
};

DashboardCards::DashboardCards(QWidget* parent)
    : QWidget(parent) {
    // The cards wrap in a narrow window (the dashboard made the window at
    // least 1,096 px wide).
    QSizePolicy wrap(QSizePolicy::Preferred, QSizePolicy::Preferred);
    wrap.setHeightForWidth(true);
    setSizePolicy(wrap);
    auto* cards = new FlowLayout(this, 6);
    const QString cardTitles[CardCount] = {
        tr("Ready"),       tr("Locked"),          tr("Done"),
        tr("Failed"),      tr("Unknown status"),  tr("Stuck"),
        tr("Backlog age"), tr("Done, last hour"), tr("Failed, last hour"),
        tr("Scheduled"),   tr("Leased"),          tr("Expired leases")};
    for (const QString& cardTitle : cardTitles) {
        m_cards.push_back(std::make_unique<Card>(this, cardTitle));
        cards->addWidget(m_cards.back()->frame);
    }
    {
        auto* frame = new QFrame(this);
        frame->setFrameShape(QFrame::StyledPanel);
        auto* v = new QVBoxLayout(frame);
        v->setContentsMargins(8, 4, 8, 4);
        auto* t = plainLabel(frame);
        t->setText(tr("Ready / maxsize"));
        m_fill = new QProgressBar(frame);
        m_fill->setTextVisible(true);
        m_fill->setMinimumWidth(140);
        v->addWidget(t);
        v->addWidget(m_fill);
        m_fillCard = frame;
        cards->addWidget(frame);
    }
    clear();
}

DashboardCards::~DashboardCards() = default;

void DashboardCards::clear() {
    for (auto& c : m_cards) {
        c->set(QStringLiteral("—"));
    }
    for (int i : {ScheduledCard, LeasedCard, ExpiredCard, UnknownCard}) {
        m_cards[static_cast<std::size_t>(i)]->frame->setVisible(false);
    }
    m_fillCard->setVisible(false);
}

void DashboardCards::setFormatTexts(const QString& unknown, const QString& stuckRule) {
    m_unknownText = unknown;
    m_stuckRule = stuckRule;
}

void DashboardCards::setData(const DashboardData& d, qint64 stuckNs, bool utc) {
    const core::Counts& c = d.counts;
    const bool jobs = !d.history;
    const QLocale loc;
    auto card = [this](CardId id) -> Card& { return *m_cards[static_cast<std::size_t>(id)]; };
    const auto num = [&loc](std::int64_t n) { return loc.toString(n); };

    for (int i : {LockedCard, DoneCard, FailedCard, StuckCard, DoneHourCard, FailedHourCard}) {
        card(CardId(i)).frame->setVisible(!jobs);
    }
    for (int i : {ScheduledCard, LeasedCard, ExpiredCard}) {
        card(CardId(i)).frame->setVisible(jobs);
    }
    card(UnknownCard).frame->setVisible(!jobs && c.unknown > 0);

    card(ReadyCard).set(num(c.ready), jobs ? tr("due, not leased") : tr("waiting"));
    card(LockedCard).set(num(c.locked), tr("claimed"));
    card(DoneCard).set(num(c.done));
    card(FailedCard).set(num(c.failed));
    card(UnknownCard).set(num(c.unknown), m_unknownText);
    if (m_stuckRule.isEmpty())
        card(StuckCard).set(num(c.stuck), tr("locked over %1").arg(roundDurationLabel(stuckNs)),
                            tr("LOCKED messages whose lock age exceeds the stuck threshold"));
    else
        card(StuckCard).set(num(c.stuck), tr("by the library's rule"),
                            tr("LOCKED: %1").arg(m_stuckRule));
    card(ScheduledCard).set(num(c.scheduled), tr("run_at in the future"));
    card(LeasedCard).set(num(c.leased), tr("locked_until ≥ now"));
    card(ExpiredCard).set(num(c.expired), tr("lapsed, claimable again"));
    if (d.backlogSince) {
        card(BacklogCard)
            .set(humanDuration(core::diffNs(d.now, *d.backlogSince)),
                 tr("since %1").arg(formatInstant(*d.backlogSince, utc, false, false)),
                 tr("now − %1 of the oldest claimable message\n%2")
                     .arg(jobs ? QStringLiteral("run_at") : QStringLiteral("in_time"),
                          exactInstant(*d.backlogSince)));
    } else {
        card(BacklogCard).set(QStringLiteral("—"), tr("no backlog"));
    }
    card(DoneHourCard).set(num(d.doneLastHour));
    card(FailedHourCard).set(num(d.failedLastHour));

    m_fillCard->setVisible(d.maxsize.has_value());
    if (d.maxsize) {
        const auto max = std::max<std::int64_t>(*d.maxsize, 0);
        m_fill->setRange(0, static_cast<int>(std::min<std::int64_t>(max, INT_MAX)));
        m_fill->setValue(static_cast<int>(std::min<std::int64_t>(c.ready, max)));
        m_fill->setFormat(tr("%1 / %2").arg(num(c.ready), num(max)));
    }
}

} // namespace lq::ui
