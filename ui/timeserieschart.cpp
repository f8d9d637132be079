// SPDX-License-Identifier: MIT
#include "ui/timeserieschart.h"

#include "ui/uitext.h"

#include <QCursor>
#include <QDateTime>
#include <QDateTimeAxis>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLocale>
#include <QLogValueAxis>
#include <QMouseEvent>
#include <QRubberBand>
#include <QToolTip>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace lq::ui {

namespace {

qint64 toMs(core::TimeNs t) {
    // Floor division: instants before 1970 stay ordered.
    return t >= 0 ? t / 1'000'000 : -((-t + 999'999) / 1'000'000);
}

double niceCeil(double v) {
    if (v <= 0) {
        return 1;
    }
    const double mag = std::pow(10.0, std::floor(std::log10(v)));
    for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
        if (v <= m * mag) {
            return m * mag;
        }
    }
    return 10 * mag;
}

} // namespace

TimeSeriesChart::TimeSeriesChart(const QString& title, YScale scale, QWidget* parent)
    : QChartView(parent)
    , m_scale(scale) {
    auto* c = new QChart;
    c->setTitle(title);
    c->setAnimationOptions(QChart::NoAnimation);
    c->setMargins(QMargins(2, 2, 2, 2));
    c->setBackgroundRoundness(0);
    c->legend()->setAlignment(Qt::AlignTop);
    c->legend()->setMarkerShape(QLegend::MarkerShapeFromSeries);
    setChart(c);
    setRenderHint(QPainter::Antialiasing);
    setMinimumSize(320, 200);

    m_x = new QDateTimeAxis;
    m_x->setTickCount(7);
    c->addAxis(m_x, Qt::AlignBottom);
    if (scale == YScale::Log) {
        auto* y = new QLogValueAxis;
        y->setBase(10);
        y->setLabelFormat(QStringLiteral("%g"));
        y->setMinorTickCount(0);
        y->setRange(1e-3, 1);
        m_y = y;
    } else {
        auto* y = new QValueAxis;
        y->setLabelFormat(QStringLiteral("%.0f"));
        y->setRange(0, 1);
        m_y = y;
    }
    c->addAxis(m_y, Qt::AlignLeft);
    m_band = new QRubberBand(QRubberBand::Rectangle, viewport());
    m_band->hide();
    updateTimeAxis();
}

int TimeSeriesChart::addSeries(const QString& name, const QColor& color, Qt::PenStyle style) {
    auto* s = new QLineSeries;
    s->setName(name);
    QPen pen(color);
    pen.setWidthF(1.8);
    pen.setStyle(style);
    s->setPen(pen);
    chart()->addSeries(s);
    s->attachAxis(m_x);
    s->attachAxis(m_y);
    const int index = static_cast<int>(m_series.size());
    m_series.append(s);
    m_data.append(QList<QPointF>());
    connect(s, &QLineSeries::hovered, this, [this, index](const QPointF& p, bool on) {
        if (!on) {
            QToolTip::hideText();
            return;
        }
        const qint64 ms = fromAxis(static_cast<qint64>(std::llround(p.x())));
        const QString value = m_valueText ? m_valueText(p.y()) : QLocale().toString(p.y(), 'g', 6);
        QToolTip::showText(QCursor::pos(),
                           m_series[index]->name() + u'\n' +
                               formatInstant(ms * 1'000'000, m_utc, false) + QStringLiteral(": ") +
                               value,
                           this);
    });
    return index;
}

qint64 TimeSeriesChart::toAxis(qint64 utcMs) const {
    // QDateTimeAxis shows local time. For UTC, shift each instant by the
    // local offset so the axis prints UTC wall-clock time.
    if (!m_utc) {
        return utcMs;
    }
    return utcMs - 1000LL * QDateTime::fromMSecsSinceEpoch(utcMs).offsetFromUtc();
}

qint64 TimeSeriesChart::fromAxis(qint64 axisMs) const {
    if (!m_utc) {
        return axisMs;
    }
    const qint64 guess = axisMs + 1000LL * QDateTime::fromMSecsSinceEpoch(axisMs).offsetFromUtc();
    return axisMs + 1000LL * QDateTime::fromMSecsSinceEpoch(guess).offsetFromUtc();
}

void TimeSeriesChart::applySeries(int i) {
    QList<QPointF> shown;
    shown.reserve(m_data[i].size());
    for (const QPointF& p : m_data[i]) {
        if (m_scale == YScale::Log && !(p.y() > 0)) {
            continue;
        }
        shown.append(
            QPointF(static_cast<double>(toAxis(static_cast<qint64>(std::llround(p.x())))), p.y()));
    }
    m_series[i]->replace(shown);
    m_series[i]->setPointsVisible(shown.size() <= 40);
}

void TimeSeriesChart::setSeriesData(int series, const QList<QPointF>& points) {
    if (series < 0 || series >= m_series.size()) {
        return;
    }
    m_data[series] = points;
    applySeries(series);
    updateValueRange();
}

void TimeSeriesChart::setSeriesShown(int series, bool shown) {
    if (series < 0 || series >= m_series.size()) {
        return;
    }
    m_series[series]->setVisible(shown);
    for (QLegendMarker* marker : chart()->legend()->markers(m_series[series])) {
        marker->setVisible(shown);
    }
}

bool TimeSeriesChart::seriesShown(int series) const {
    return series >= 0 && series < m_series.size() && m_series[series]->isVisible();
}

int TimeSeriesChart::pointCount(int series) const {
    return series >= 0 && series < m_series.size() ? m_series[series]->count() : 0;
}

void TimeSeriesChart::updateValueRange() {
    if (m_scale == YScale::Log) {
        double lo = 0, hi = 0;
        for (const auto& pts : m_data) {
            for (const QPointF& p : pts) {
                if (p.y() > 0) {
                    lo = lo > 0 ? std::min(lo, p.y()) : p.y();
                    hi = std::max(hi, p.y());
                }
            }
        }
        if (lo <= 0) {
            lo = 1e-3;
            hi = 1;
        }
        const double min = std::pow(10.0, std::floor(std::log10(lo)));
        double max = std::pow(10.0, std::ceil(std::log10(hi)));
        if (max <= min) {
            max = min * 10;
        }
        m_y->setRange(min, max);
    } else {
        double hi = 0;
        for (const auto& pts : m_data) {
            for (const QPointF& p : pts) {
                hi = std::max(hi, p.y());
            }
        }
        auto* y = static_cast<QValueAxis*>(m_y);
        const double top = std::max(niceCeil(hi * 1.05), 4.0);
        y->setRange(0, top);
        y->setTickCount(5);
        y->setLabelFormat(top >= 8 ? QStringLiteral("%.0f") : QStringLiteral("%.1f"));
    }
}

void TimeSeriesChart::setSpan(core::TimeNs from, core::TimeNs to) {
    m_from = from;
    m_to = std::max(to, from + 1);
    updateTimeAxis();
}

void TimeSeriesChart::setUtc(bool utc) {
    if (utc == m_utc) {
        return;
    }
    m_utc = utc;
    for (int i = 0; i < m_series.size(); ++i) {
        applySeries(i);
    }
    updateTimeAxis();
}

void TimeSeriesChart::setYTitle(const QString& title) {
    m_y->setTitleText(title);
}

void TimeSeriesChart::updateTimeAxis() {
    const qint64 span = (m_to - m_from) / 1'000'000;
    const qint64 minute = 60'000, day = 86'400'000;
    QString format;
    if (span <= 10 * minute) {
        format = QStringLiteral("HH:mm:ss");
    } else if (span <= 2 * day) {
        format = QStringLiteral("HH:mm");
    } else {
        format = QStringLiteral("MMM d HH:mm");
    }
    m_x->setFormat(format);
    m_x->setRange(QDateTime::fromMSecsSinceEpoch(toAxis(toMs(m_from))),
                  QDateTime::fromMSecsSinceEpoch(toAxis(toMs(m_to))));
    if (m_utc) {
        m_x->setTitleText(tr("UTC"));
    } else {
        const QDateTime local = QDateTime::fromMSecsSinceEpoch(toMs(m_from));
        m_x->setTitleText(tr("local time (%1)").arg(local.timeZoneAbbreviation()));
    }
}

QRect TimeSeriesChart::plotRect() const {
    const QRectF plot = chart()->plotArea();
    return mapFromScene(chart()->mapToScene(plot)).boundingRect();
}

core::TimeNs TimeSeriesChart::timeAtViewportX(int x) const {
    const QRect r = plotRect();
    const QPointF scene = mapToScene(QPoint(x, r.center().y()));
    const QPointF value = chart()->mapToValue(chart()->mapFromScene(scene), m_series.value(0));
    return fromAxis(static_cast<qint64>(std::llround(value.x()))) * 1'000'000;
}

int TimeSeriesChart::viewportX(core::TimeNs t) const {
    const QPointF inChart =
        chart()->mapToPosition(QPointF(static_cast<double>(toAxis(toMs(t))), 0), m_series.value(0));
    return mapFromScene(chart()->mapToScene(inChart)).x();
}

void TimeSeriesChart::mousePressEvent(QMouseEvent* e) {
    const QPoint p = e->position().toPoint();
    if (m_dragEnabled && e->button() == Qt::LeftButton && !m_series.isEmpty() &&
        plotRect().contains(p)) {
        m_dragging = true;
        m_dragOrigin = p.x();
        const QRect r = plotRect();
        m_band->setGeometry(QRect(p.x(), r.top(), 1, r.height()));
        m_band->show();
        e->accept();
        return;
    }
    QChartView::mousePressEvent(e);
}

void TimeSeriesChart::mouseMoveEvent(QMouseEvent* e) {
    if (m_dragging) {
        const QRect r = plotRect();
        const int x = std::clamp(e->position().toPoint().x(), r.left(), r.right());
        m_band->setGeometry(
            QRect(std::min(x, m_dragOrigin), r.top(), std::abs(x - m_dragOrigin) + 1, r.height()));
        e->accept();
        return;
    }
    QChartView::mouseMoveEvent(e);
}

void TimeSeriesChart::mouseReleaseEvent(QMouseEvent* e) {
    if (m_dragging && e->button() == Qt::LeftButton) {
        m_dragging = false;
        m_band->hide();
        const QRect r = plotRect();
        const int x = std::clamp(e->position().toPoint().x(), r.left(), r.right());
        // A click is not a drag: a few pixels at least.
        if (std::abs(x - m_dragOrigin) >= 4) {
            const core::TimeNs a = timeAtViewportX(std::min(x, m_dragOrigin));
            const core::TimeNs b = timeAtViewportX(std::max(x, m_dragOrigin));
            emit rangeSelected(a, b);
        }
        e->accept();
        return;
    }
    QChartView::mouseReleaseEvent(e);
}

} // namespace lq::ui
