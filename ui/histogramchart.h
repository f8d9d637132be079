// SPDX-License-Identifier: MIT
#pragma once

#include "core/stats.h"

#include <QChartView>
#include <QLabel>
#include <QList>
#include <QString>
#include <QStringList>

class QBarSeries;
class QBarSet;
class QGraphicsSimpleTextItem;
class QCategoryAxis;
class QLineSeries;
class QValueAxis;

namespace lq::ui {

/// A duration for an axis or a legend: "1 s" rather than "1.0 s", "5 m"
/// rather than "5 m 0 s" (lq::core::humanDuration otherwise).
QString roundDurationLabel(core::TimeNs ns);

/// A bar chart of one distribution: either a log-scale latency histogram
/// from lqcore (bars labelled at round durations, p50/p90/p99 drawn as
/// vertical lines with a legend) or a plain one-bar-per-label histogram.
/// Updates replace the bar values in place, so a live refresh does not
/// flicker. Clicking a bar emits barClicked().
class HistogramChart : public QChartView {
    Q_OBJECT
public:
    explicit HistogramChart(const QString& title, QWidget* parent = nullptr);

    /// A latency histogram (logHistogram() buckets) with the summary's
    /// p50/p90/p99 as markers.
    void setDurationHistogram(const core::Histogram& h, const core::Summary& s);
    /// One bar per label.
    void setDiscrete(const QList<qint64>& counts, const QStringList& labels);

    /// Whether clicking a bar means anything (false: no signal, no hint).
    void setClickable(bool on) { m_clickable = on; }

    /// The file's format does not store this metric: `why` is said in the
    /// plot area instead of an empty chart ("" shows the chart again).
    void setUnavailable(const QString& why);
    QString unavailableReason() const { return m_unavailable; }

    int barCount() const { return static_cast<int>(m_counts.size()); }
    qint64 barValue(int i) const { return m_counts.value(i); }
    qint64 total() const;
    /// The middle of bar `i` in viewport coordinates (tests, tooltips).
    QPoint barPosition(int i) const;

signals:
    void barClicked(int index);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void setBars(const QList<qint64>& counts);
    void setCategoryLabels(const QList<std::pair<QString, double>>& labels, bool gridLines,
                           const QStringList& major);
    void layoutTickLabels();
    void setMarkers(const core::Summary* s);
    void updateTitle();
    void showTip(bool on, int index);

    QBarSeries* m_bars = nullptr;
    QBarSet* m_set = nullptr;
    QCategoryAxis* m_x = nullptr;
    QValueAxis* m_y = nullptr;
    QList<QLineSeries*> m_markers; ///< p50, p90, p99
    QList<QGraphicsSimpleTextItem*> m_tickItems;
    QList<qint64> m_counts;
    QList<core::TimeNs> m_edges; ///< empty in discrete mode
    QStringList m_labels;        ///< discrete mode
    QString m_title;
    QString m_markerLine; ///< "p50 5.0 s · p90 3 m 45 s · p99 14 m 36 s"
    QString m_axisKey;    ///< what the category labels were built for
    bool m_clickable = true;
    QString m_unavailable;
    QLabel* m_why = nullptr; ///< shown while m_unavailable is set
};

} // namespace lq::ui
