// SPDX-License-Identifier: MIT
#pragma once

#include "ui/dashboarddata.h"

#include <QWidget>

#include <memory>
#include <string>
#include <utility>
#include <vector>

class QProgressBar;

namespace lq::core {
class QueueFormat;
}

namespace lq::ui {

/// The dashboard's overview cards: the counts by state, stuck, the backlog's
/// age, done and failed in the last hour, and Ready / maxsize. They show the
/// whole queue (the time range does not apply) and wrap in a narrow window.
class DashboardCards : public QWidget {
    Q_OBJECT
public:
    explicit DashboardCards(QWidget* parent = nullptr);
    ~DashboardCards() override;

    /// "—" everywhere (no data yet).
    void clear();
    void setData(const DashboardData& d, qint64 stuckNs, bool utc);
    /// The file's format: one card per state of its partition
    /// (core::partitionStates), in its words; what an unknown job is, and its
    /// own stuck rule ("" when stuck means locked over the threshold).
    void setFormat(const core::QueueFormat& format);

private:
    const core::QueueFormat* m_format = nullptr;
    QString m_unknownText;
    QString m_stuckRule;
    std::vector<std::string> m_stateNames;
    std::vector<std::pair<QString, QString>> m_stateDetails; ///< caption, tooltip
    struct Card;
    std::vector<std::unique_ptr<Card>> m_stateCards;
    std::vector<std::unique_ptr<Card>> m_cards;
    QProgressBar* m_fill = nullptr;
    QWidget* m_fillCard = nullptr;
};

} // namespace lq::ui
