// SPDX-License-Identifier: MIT
#include "ui/histogramchart.h"

#include "ui/uitext.h"

#include <QBarSeries>
#include <QBarSet>
#include <QCategoryAxis>
#include <QCursor>
#include <QFontMetrics>
#include <QGraphicsSimpleTextItem>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLocale>
#include <QResizeEvent>
#include <QToolTip>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace lq::ui {

QString roundDurationLabel(core::TimeNs ns) {
    QString s = humanDuration(ns);
    for (const QString& tail :
         {QStringLiteral(" 0 s"), QStringLiteral(" 0 m"), QStringLiteral(" 0 h")}) {
        if (s.endsWith(tail)) {
            s.chop(tail.size());
        }
    }
    s.replace(QStringLiteral(".0 s"), QStringLiteral(" s"));
    return s;
}

namespace {

/// Where a duration sits on the bar axis: bar i spans [i - 0.5, i + 0.5)
/// and covers [edges[i], edges[i+1]), log-interpolated inside.
double axisPosition(const QList<core::TimeNs>& edges, double v) {
    const auto n = edges.size() - 1;
    if (n <= 0) {
        return 0;
    }
    if (v <= static_cast<double>(edges.front())) {
        return -0.5;
    }
    if (v >= static_cast<double>(edges.back())) {
        return static_cast<double>(n) - 0.5;
    }
    const auto it = std::upper_bound(edges.begin(), edges.end(), static_cast<core::TimeNs>(v));
    const auto i = (it - edges.begin()) - 1;
    const double lo = static_cast<double>(edges[i]);
    const double hi = static_cast<double>(edges[i + 1]);
    const double frac = std::log(v / lo) / std::log(hi / lo);
    return static_cast<double>(i) - 0.5 + frac;
}

/// A tick step giving about four integer ticks up to `max`.
qint64 niceStep(qint64 max) {
    const double raw = std::max<double>(1.0, static_cast<double>(max) / 4.0);
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0, 10.0}) {
        if (raw <= m * mag) {
            return std::max<qint64>(1, static_cast<qint64>(m * mag));
        }
    }
    return static_cast<qint64>(10 * mag);
}

} // namespace

HistogramChart::HistogramChart(const QString& title, QWidget* parent)
    : QChartView(parent)
    , m_title(title) {
    auto* c = new QChart;
    c->setTitle(title);
    c->setAnimationOptions(QChart::NoAnimation);
    c->setBackgroundRoundness(0);
    c->legend()->setAlignment(Qt::AlignTop);
    c->legend()->setMarkerShape(QLegend::MarkerShapeFromSeries);
    QFont small = c->legend()->font();
    small.setPointSizeF(small.pointSizeF() * 0.9);
    c->legend()->setFont(small);
    setChart(c);
    setRenderHint(QPainter::Antialiasing);
    setMinimumSize(260, 200);
    connect(c, &QChart::plotAreaChanged, this, [this] { layoutTickLabels(); });

    m_bars = new QBarSeries;
    m_bars->setBarWidth(0.92);
    m_set = new QBarSet(tr("messages"));
    m_set->setColor(QColor(0x4a, 0x7e, 0xbb));
    m_set->setBorderColor(QColor(0x4a, 0x7e, 0xbb));
    m_bars->append(m_set);
    c->addSeries(m_bars);

    m_x = new QCategoryAxis;
    m_x->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    m_x->setLabelsVisible(false);
    m_x->setGridLineVisible(true);
    m_x->setMinorGridLineVisible(false);
    m_y = new QValueAxis;
    m_y->setLabelFormat(QStringLiteral("%.0f"));
    m_y->setTickType(QValueAxis::TicksDynamic);
    m_y->setTickAnchor(0);
    m_y->setTickInterval(1);
    m_y->setRange(0, 1);
    c->addAxis(m_x, Qt::AlignBottom);
    c->addAxis(m_y, Qt::AlignLeft);
    // Room under the plot for the tick labels (see setCategoryLabels()).
    const int labelHeight = QFontMetrics(m_y->labelsFont()).height();
    c->setMargins(QMargins(2, 2, 2, labelHeight + 4));
    m_bars->attachAxis(m_x);
    m_bars->attachAxis(m_y);

    const struct {
        const char* name;
        QColor color;
        Qt::PenStyle style;
    } markers[] = {{"p50", QColor(0x2e, 0x9e, 0x44), Qt::SolidLine},
                   {"p90", QColor(0xe0, 0x8a, 0x00), Qt::DashLine},
                   {"p99", QColor(0xc6, 0x28, 0x28), Qt::DashDotLine}};
    for (const auto& m : markers) {
        auto* line = new QLineSeries;
        line->setName(QString::fromLatin1(m.name));
        QPen pen(m.color);
        pen.setWidthF(2);
        pen.setStyle(m.style);
        line->setPen(pen);
        c->addSeries(line);
        line->attachAxis(m_x);
        line->attachAxis(m_y);
        line->setVisible(false);
        // The line lies over a bar and takes its clicks: pass them on.
        connect(line, &QLineSeries::clicked, this, [this](const QPointF& p) {
            const int index = static_cast<int>(std::lround(p.x()));
            if (m_clickable && index >= 0 && index < barCount() &&
                p.y() <= static_cast<double>(barValue(index))) {
                emit barClicked(index);
            }
        });
        m_markers.append(line);
    }
    // The bars explain themselves; the legend is for the markers.
    for (QLegendMarker* lm : c->legend()->markers(m_bars)) {
        lm->setVisible(false);
    }

    connect(m_bars, &QBarSeries::clicked, this, [this](int index, QBarSet*) {
        if (m_clickable && index >= 0 && index < barCount()) {
            emit barClicked(index);
        }
    });
    connect(m_set, &QBarSet::hovered, this, &HistogramChart::showTip);
}

qint64 HistogramChart::total() const {
    qint64 t = 0;
    for (qint64 c : m_counts) {
        t += c;
    }
    return t;
}

void HistogramChart::setBars(const QList<qint64>& counts) {
    // Replace values in place: same QBarSet, no re-layout of the chart.
    if (m_set->count() != counts.size()) {
        m_set->remove(0, m_set->count());
        QList<qreal> values;
        values.reserve(counts.size());
        for (qint64 v : counts) {
            values.append(static_cast<qreal>(v));
        }
        m_set->append(values);
    } else {
        for (int i = 0; i < counts.size(); ++i) {
            if (m_set->at(i) != static_cast<qreal>(counts[i])) {
                m_set->replace(i, static_cast<qreal>(counts[i]));
            }
        }
    }
    m_counts = counts;
    const qint64 max = counts.isEmpty() ? 0 : *std::max_element(counts.begin(), counts.end());
    const qint64 step = niceStep(max);
    const qint64 top = std::max<qint64>(step, (max / step + 1) * step);
    m_y->setTickInterval(static_cast<qreal>(step));
    m_y->setRange(0, static_cast<qreal>(top));
    m_x->setRange(-0.5, static_cast<qreal>(std::max<qsizetype>(1, counts.size())) - 0.5);
    updateTitle();
}

void HistogramChart::setUnavailable(const QString& why) {
    if (why == m_unavailable) {
        return;
    }
    m_unavailable = why;
    const bool shown = why.isEmpty();
    if (!m_why) {
        m_why = new QLabel(this);
        m_why->setObjectName(QStringLiteral("unavailableReason"));
        m_why->setTextFormat(Qt::PlainText);
        m_why->setWordWrap(true);
        m_why->setAlignment(Qt::AlignCenter);
        m_why->setMargin(16);
        m_why->setAttribute(Qt::WA_TransparentForMouseEvents);
    }
    m_why->setText(why);
    m_why->setVisible(!shown);
    m_bars->setVisible(shown);
    m_x->setVisible(shown);
    m_y->setVisible(shown);
    for (QLineSeries* line : std::as_const(m_markers)) {
        line->setVisible(shown);
    }
    for (QGraphicsSimpleTextItem* item : std::as_const(m_tickItems)) {
        item->setVisible(shown);
    }
    chart()->legend()->setVisible(shown);
    resizeEvent(nullptr);
    updateTitle();
}

void HistogramChart::resizeEvent(QResizeEvent* event) {
    if (event) {
        QChartView::resizeEvent(event);
    }
    if (m_why) {
        // Under the title, over the plot area.
        const int top = fontMetrics().height() * 3;
        m_why->setGeometry(0, top, width(), std::max(0, height() - top));
    }
}

void HistogramChart::updateTitle() {
    if (!m_unavailable.isEmpty()) {
        chart()->setTitle(m_title + QStringLiteral(" — ") + tr("not stored"));
        return;
    }
    // The percentile values go on a line of their own under the title: in
    // the legend a narrow chart elided them ("p50 40…").
    const qint64 t = total();
    QString title = t == 0 ? m_title + QStringLiteral(" — ") + tr("no messages")
                           : m_title + QStringLiteral(" — ") + QLocale().toString(t);
    if (!m_markerLine.isEmpty()) {
        title += QStringLiteral("<br><small>") + m_markerLine.toHtmlEscaped() +
                 QStringLiteral("</small>");
    }
    chart()->setTitle(title);
}

void HistogramChart::setCategoryLabels(const QList<std::pair<QString, double>>& labels,
                                       bool gridLines, const QStringList& major) {
    // QCategoryAxis elides a label to the width of its category, which
    // leaves "1..." on a narrow chart. The axis draws only the grid lines
    // (its labels are unique blanks, hidden); the text items below the plot
    // carry the labels, centred on their value.
    for (const QString& l : m_x->categoriesLabels()) {
        m_x->remove(l);
    }
    m_x->setStartValue(-0.5 - 1e-6);
    if (gridLines) {
        for (int i = 0; i < labels.size(); ++i) {
            m_x->append(QString(i + 1, u' '), labels[i].second);
        }
    }
    qDeleteAll(m_tickItems);
    m_tickItems.clear();
    for (const auto& [text, pos] : labels) {
        auto* item = new QGraphicsSimpleTextItem(text, chart());
        item->setFont(m_y->labelsFont());
        item->setBrush(m_y->labelsBrush());
        item->setData(0, pos);
        item->setData(1, major.contains(text));
        m_tickItems.append(item);
    }
    layoutTickLabels();
}

void HistogramChart::layoutTickLabels() {
    const QRectF plot = chart()->plotArea();
    // Major labels (1 ms, 1 s, 1 m, ...) first; a minor one only where it
    // overlaps none already placed.
    QList<QRectF> placed;
    for (const bool major : {true, false}) {
        for (QGraphicsSimpleTextItem* item : m_tickItems) {
            if (item->data(1).toBool() != major) {
                continue;
            }
            const double pos = item->data(0).toDouble();
            const QPointF at = chart()->mapToPosition(QPointF(pos, 0), m_bars);
            const QRectF r = item->boundingRect();
            item->setPos(at.x() - r.width() / 2, plot.bottom() + 4);
            const QRectF box = item->sceneBoundingRect().adjusted(-3, 0, 3, 0);
            bool free = true;
            for (const QRectF& p : placed) {
                free = free && !p.intersects(box);
            }
            item->setVisible(free && m_unavailable.isEmpty());
            if (free) {
                placed.append(box);
            }
        }
    }
}

void HistogramChart::setDurationHistogram(const core::Histogram& h, const core::Summary& s) {
    QList<core::TimeNs> edges(h.edges.begin(), h.edges.end());
    QList<qint64> counts(h.counts.begin(), h.counts.end());
    if (edges != m_edges || m_axisKey != QStringLiteral("duration")) {
        m_edges = edges;
        m_labels.clear();
        m_axisKey = QStringLiteral("duration");
        // Labels at round durations, where they fall on the log axis.
        constexpr core::TimeNs ms = 1'000'000, sec = 1000 * ms, min = 60 * sec, hour = 60 * min;
        const core::TimeNs ticks[] = {ms,  10 * ms,  100 * ms, sec,      10 * sec,
                                      min, 10 * min, hour,     24 * hour};
        QList<std::pair<QString, double>> labels;
        for (core::TimeNs t : ticks) {
            if (!edges.isEmpty() && t >= edges.front() && t <= edges.back()) {
                labels.append({roundDurationLabel(t), axisPosition(edges, static_cast<double>(t))});
            }
        }
        const QStringList major = {roundDurationLabel(ms), roundDurationLabel(sec),
                                   roundDurationLabel(min), roundDurationLabel(hour),
                                   roundDurationLabel(24 * hour)};
        setCategoryLabels(labels, true, major);
    }
    setBars(counts);
    setMarkers(&s);
    layoutTickLabels();
}

void HistogramChart::setDiscrete(const QList<qint64>& counts, const QStringList& labels) {
    const QString key = QStringLiteral("discrete:") + labels.join(u'\x1f');
    if (key != m_axisKey) {
        m_axisKey = key;
        m_edges.clear();
        m_labels = labels;
        QList<std::pair<QString, double>> cats;
        for (int i = 0; i < labels.size(); ++i) {
            cats.append({labels[i], static_cast<double>(i)});
        }
        setCategoryLabels(cats, false, labels);
    }
    setBars(counts);
    setMarkers(nullptr);
    layoutTickLabels();
}

void HistogramChart::setMarkers(const core::Summary* s) {
    const std::optional<core::TimeNs> values[] = {
        s ? s->p50 : std::nullopt, s ? s->p90 : std::nullopt, s ? s->p99 : std::nullopt};
    const char* names[] = {"p50", "p90", "p99"};
    const qreal top = m_y->max();
    QStringList parts;
    for (int i = 0; i < m_markers.size(); ++i) {
        QLineSeries* line = m_markers[i];
        if (!values[i] || m_edges.isEmpty()) {
            line->setVisible(false);
            line->clear();
            continue;
        }
        const double x = axisPosition(m_edges, static_cast<double>(*values[i]));
        line->replace(QList<QPointF>{{x, 0}, {x, top}});
        line->setName(QString::fromLatin1(names[i]));
        parts << QString::fromLatin1(names[i]) + u' ' + humanDuration(*values[i]);
        line->setVisible(m_unavailable.isEmpty());
    }
    m_markerLine = parts.join(QStringLiteral(" \u00b7 "));
    updateTitle();
}

void HistogramChart::showTip(bool on, int index) {
    if (!on || index < 0 || index >= barCount()) {
        QToolTip::hideText();
        return;
    }
    QString text;
    const QString n = tr("%n message(s)", nullptr, static_cast<int>(m_counts[index]));
    if (!m_edges.isEmpty() && index + 1 < m_edges.size()) {
        const bool first = index == 0;
        const bool last = index + 2 == m_edges.size();
        const QString lo = first ? QStringLiteral("0") : humanDuration(m_edges[index]);
        const QString hi = last ? QStringLiteral("∞") : humanDuration(m_edges[index + 1]);
        text = QStringLiteral("[%1, %2): %3").arg(lo, hi, n);
        text += u'\n' +
                tr("exact: %1 – %2 ns")
                    .arg(first ? QStringLiteral("−∞") : QLocale::c().toString(m_edges[index]),
                         last ? QStringLiteral("∞") : QLocale::c().toString(m_edges[index + 1]));
    } else {
        text = m_labels.value(index) + QStringLiteral(": ") + n;
    }
    if (m_clickable) {
        text += u'\n' + tr("Click to show these messages in the table.");
    }
    QToolTip::showText(QCursor::pos(), text, this);
}

QPoint HistogramChart::barPosition(int i) const {
    const QPointF inChart = chart()->mapToPosition(
        QPointF(static_cast<double>(i), static_cast<double>(barValue(i)) / 2.0), m_bars);
    return mapFromScene(chart()->mapToScene(inChart));
}

} // namespace lq::ui
