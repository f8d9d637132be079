// SPDX-License-Identifier: MIT
#pragma once

#include "core/clock.h"

#include <QChartView>
#include <QList>
#include <QPointF>
#include <QString>

#include <functional>

class QAbstractAxis;
class QDateTimeAxis;
class QLineSeries;
class QRubberBand;

namespace lq::ui {

/// Line series over a time axis (local time, or UTC), with a linear or a
/// log-10 value axis. Series keep their QLineSeries across updates (data is
/// replaced in place: no flicker on live refresh). Dragging across the plot
/// selects a time range (rangeSelected()).
class TimeSeriesChart : public QChartView {
    Q_OBJECT
public:
    enum class YScale { Linear, Log };

    TimeSeriesChart(const QString& title, YScale scale, QWidget* parent = nullptr);

    /// Adds a series; returns its index for setSeriesData().
    int addSeries(const QString& name, const QColor& color, Qt::PenStyle style = Qt::SolidLine);
    /// Points are (ms since the epoch, UTC; value). On a log axis values
    /// <= 0 are left out.
    void setSeriesData(int series, const QList<QPointF>& points);
    /// The shown time span [from, to).
    void setSpan(core::TimeNs from, core::TimeNs to);
    void setUtc(bool utc);
    void setYTitle(const QString& title);
    /// How a value is shown in the hover tooltip (default: the number).
    void setValueText(std::function<QString(double)> f) { m_valueText = std::move(f); }
    void setDragEnabled(bool on) { m_dragEnabled = on; }

    int seriesCount() const { return static_cast<int>(m_series.size()); }
    /// Hides a series and its legend entry (a metric the file's format does
    /// not store), or shows it again.
    void setSeriesShown(int series, bool shown);
    bool seriesShown(int series) const;
    int pointCount(int series) const;
    /// The series' points as given to setSeriesData() (UTC ms, value).
    QList<QPointF> points(int series) const { return m_data.value(series); }
    /// Viewport x of an instant, for tests that drag a range.
    int viewportX(core::TimeNs t) const;

signals:
    /// The user dragged across the plot: [fromNs, toNs).
    void rangeSelected(qint64 fromNs, qint64 toNs);

protected:
    void mousePressEvent(QMouseEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;

private:
    qint64 toAxis(qint64 utcMs) const;
    qint64 fromAxis(qint64 axisMs) const;
    QRect plotRect() const;
    core::TimeNs timeAtViewportX(int x) const;
    void applySeries(int i);
    void updateValueRange();
    void updateTimeAxis();

    YScale m_scale;
    QDateTimeAxis* m_x = nullptr;
    QAbstractAxis* m_y = nullptr;
    QList<QLineSeries*> m_series;
    QList<QList<QPointF>> m_data;
    core::TimeNs m_from = 0;
    core::TimeNs m_to = 1;
    bool m_utc = false;
    std::function<QString(double)> m_valueText;

    bool m_dragEnabled = true;
    bool m_dragging = false;
    int m_dragOrigin = 0;
    QRubberBand* m_band = nullptr;
};

} // namespace lq::ui
