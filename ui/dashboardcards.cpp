// SPDX-License-Identifier: MIT
#include "ui/dashboardcards.h"

#include "core/formats/queueformat.h"
#include "core/statemodel.h"

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

/// The cards that are not a state of the partition; the state cards come
/// first, one per state of the file's format (DashboardCards::setFormat).
enum CardId { StuckCard, BacklogCard, DoneHourCard, FailedHourCard, CardCount };

/// State cards made once: more than any format's partition (River: eight
/// states and unknown), so that a format change only relabels and hides.
constexpr int kStateCards = 12;

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
        value->setObjectName(QStringLiteral("cardValue"));
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
    for (int i = 0; i < kStateCards; ++i) {
        m_stateCards.push_back(std::make_unique<Card>(this, QString()));
        m_stateCards.back()->frame->setObjectName(QStringLiteral("stateCard"));
        cards->addWidget(m_stateCards.back()->frame);
    }
    const QString cardTitles[CardCount] = {tr("Stuck"), tr("Backlog age"), tr("Done, last hour"),
                                           tr("Failed, last hour")};
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
        c->set(QStringLiteral("\u2014"));
    }
    for (auto& c : m_stateCards) {
        c->set(QStringLiteral("\u2014"));
    }
    m_fillCard->setVisible(false);
}

void DashboardCards::setFormat(const core::QueueFormat& format) {
    m_format = &format;
    m_unknownText = fromStd(format.unknownText());
    m_stuckRule = fromStd(format.ownStuckRule());
    m_stateNames.clear();
    m_stateDetails.clear();
    const bool schedule = format.hasField(core::QueueFormat::Field::ScheduledAt);
    for (const core::PartitionState& p : core::partitionStates(format)) {
        m_stateNames.push_back(p.name);
        QString detail;
        if (p.name == "ready") {
            detail = schedule ? tr("due now") : tr("waiting");
        } else if (p.name == "scheduled") {
            detail = tr("due later");
        } else if (p.name == "locked") {
            detail = tr("claimed");
        }
        QString tip = p.state ? fromStd(format.stateDescription(*p.state)) : QString();
        for (const auto& x : format.extraStates()) {
            if (x.name == p.name) {
                tip = fromStd(x.description);
            }
        }
        m_stateDetails.emplace_back(detail, tip);
    }
    // Rows the format cannot classify: shown when there are any.
    m_stateNames.emplace_back("unknown");
    m_stateDetails.emplace_back(m_unknownText, QString());
    for (std::size_t i = 0; i < m_stateCards.size(); ++i) {
        Card& c = *m_stateCards[i];
        const bool used = i < m_stateNames.size();
        c.title->setText(used ? stateTitle(m_stateNames[i]) : QString());
        c.frame->setProperty("lqState", used ? fromStd(m_stateNames[i]) : QString());
        c.frame->setVisible(used && m_stateNames[i] != "unknown");
        c.set(QStringLiteral("\u2014"), used ? m_stateDetails[i].first : QString());
    }
}

void DashboardCards::setData(const DashboardData& d, qint64 stuckNs, bool utc) {
    const core::Counts& c = d.counts;
    const QLocale loc;
    auto card = [this](CardId id) -> Card& { return *m_cards[static_cast<std::size_t>(id)]; };
    const auto num = [&loc](std::int64_t n) { return loc.toString(n); };

    // One card per state of the partition: the same numbers as the chips,
    // lqctl stats and Prometheus (core::stateModel).
    const core::StateModel model = m_format ? core::stateModel(*m_format, c) : core::StateModel{};
    for (std::size_t i = 0; i < m_stateCards.size() && i < m_stateNames.size(); ++i) {
        Card& sc = *m_stateCards[i];
        const std::int64_t n = model.count(m_stateNames[i]);
        if (m_stateNames[i] == "unknown") {
            sc.frame->setVisible(n > 0);
        }
        sc.set(num(n), m_stateDetails[i].first, m_stateDetails[i].second);
    }
    for (int i : {DoneHourCard, FailedHourCard}) {
        card(CardId(i)).frame->setVisible(d.history);
    }
    if (m_stuckRule.isEmpty())
        card(StuckCard).set(num(c.stuck), tr("locked over %1").arg(roundDurationLabel(stuckNs)),
                            tr("LOCKED messages whose lock age exceeds the stuck threshold"));
    else
        card(StuckCard).set(num(c.stuck), tr("by the library's rule"),
                            tr("LOCKED: %1").arg(m_stuckRule));
    if (d.backlogSince) {
        card(BacklogCard)
            .set(humanDuration(core::diffNs(d.now, *d.backlogSince)),
                 tr("since %1").arg(formatInstant(*d.backlogSince, utc, false, false)),
                 tr("now \u2212 the time the oldest ready job became due\n%1")
                     .arg(exactInstant(*d.backlogSince)));
    } else {
        card(BacklogCard).set(QStringLiteral("\u2014"), tr("no backlog"));
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
