// SPDX-License-Identifier: MIT
#pragma once

#include "core/pacing.h"
#include "core/query.h"
#include "ui/dashboarddata.h"

#include <QList>
#include <QMetaType>
#include <QString>
#include <QTimer>
#include <QWidget>

#include <functional>
#include <memory>
#include <optional>
#include <vector>

class QLabel;
class QProgressBar;
class QPushButton;
class QStackedWidget;
class QTableView;

namespace lq::core {
class QueueBackend;
class Queue;
} // namespace lq::core

namespace lq::ui {

class DashboardCards;
class HistogramChart;
class PercentileModel;
class TimeSeriesChart;

/// Latency and throughput views of one queue (docs/FORMATS.md#times): overview cards,
/// throughput and latency over time, latency histograms with percentile
/// markers, and the percentile table. Every lqcore call runs off the UI
/// thread; refresh() recomputes (coalesced: never two at once, stale
/// results dropped) and updates the charts in place.
class DashboardWidget : public QWidget {
    Q_OBJECT
public:
    enum class Chart { Throughput, LatencyOverTime, Wait, Processing, Total, TimeToFailure };
    enum class RangePreset { All, LastHour, LastDay };

    explicit DashboardWidget(QWidget* parent = nullptr);
    ~DashboardWidget() override;

    /// Shows the queue `backend` reaches (shared with the browser) and
    /// recomputes. nullptr clears the dashboard.
    void setBackend(std::shared_ptr<core::QueueBackend> backend);
    /// setBackend() over a queue open here.
    void setQueue(std::shared_ptr<core::Queue> queue);
    /// LOCKED messages whose lock age exceeds this count as stuck.
    void setStuckThreshold(qint64 ns);
    /// Time axes in UTC instead of local time.
    void setUtc(bool utc);

    /// Recomputes off the UI thread (call on live-refresh ticks). A call
    /// while a computation runs is coalesced into one more run after it;
    /// while the widget is hidden the call is remembered and runs on show.
    void refresh();
    /// refresh() for a change of the file: paced as core::ReadPacer says,
    /// so a big live file is not recomputed on every commit.
    void refreshLive();

    /// The current time range as a Filter (inTimeFrom / inTimeTo only).
    core::Filter rangeFilter() const;
    std::optional<qint64> rangeFrom() const { return m_from; }
    std::optional<qint64> rangeTo() const { return m_to; }
    /// Sets the time range (nullopt: open end) and recomputes; emits
    /// timeRangeChanged() when it changed.
    void setTimeRange(std::optional<qint64> fromNs, std::optional<qint64> toNs);
    /// "Last hour" / "Last day" are anchored at the queue's "now" when chosen
    /// (open-ended, so new arrivals keep showing); "All" clears the range.
    void setRangePreset(RangePreset p);

    /// Saves one chart as PNG ("throughput", "latency", "wait",
    /// "processing", "total", "failure", or "dashboard" for the whole view).
    bool exportChartPng(const QString& which, const QString& path);
    /// Saves the numbers as CSV: the percentile table, the histograms and
    /// the time series.
    bool exportCsv(const QString& path) const;

    /// The data on screen (valid after the first dataUpdated()).
    const DashboardData& data() const { return m_data; }
    bool hasData() const { return m_hasData; }
    /// A computation runs, or its charts are still being updated.
    bool isComputing() const { return m_busy || m_applying; }
    /// Every chart has been shown once (see revealNextChart()).
    bool chartsRevealed() const;
    /// Lays itself out at `size` and paints once into an image while
    /// hidden, once: styles, fonts and glyphs are then ready, and the tab's
    /// first show relays and repaints less (372 events and 13-17 ms on a
    /// 1M file before, about 250 and 7 ms after). A few ms; for idle time.
    /// False when there was nothing to do (done, shown, or no size).
    bool prepareFirstShow(const QSize& size, qreal devicePixelRatio);
    /// prepareFirstShow() ran, or the tab was shown.
    bool isPrepared() const { return m_prepared; }
    HistogramChart* histogram(core::Filter::Metric m) const;
    TimeSeriesChart* throughputChart() const { return m_throughput; }
    TimeSeriesChart* latencyChart() const { return m_latency; }
    PercentileModel* percentileModel() const { return m_percentiles; }

signals:
    /// The range filters the message table too.
    void timeRangeChanged(std::optional<qint64> fromNs, std::optional<qint64> toNs);
    /// A histogram bar was clicked: its latency band plus the current range.
    void histogramBarClicked(lq::core::Filter filter);
    /// New data is on screen.
    void dataUpdated();

protected:
    void showEvent(QShowEvent* e) override;

private:
    std::vector<std::function<void()>> chartSteps();
    void runNextStep(quint64 generation);
    /// The charts of one metric this format stores, or why it does not.
    void showMetric(core::Filter::Metric metric, const QString& why);
    /// setBackend()'s per-metric changes, one per event-loop turn.
    void applyFormatStep(quint64 generation);
    void applyFormatNow();
    std::vector<std::pair<core::Filter::Metric, QString>> m_formatSteps;
    quint64 m_formatGeneration = 0;
    /// After the first show: the next chart not shown yet.
    void revealNextChart();
    QList<QWidget*> m_unrevealed;
    /// The series [from, to) of the throughput and/or latency chart; the
    /// span and titles with the first of them.
    void updateTimeCharts(bool throughput, bool latency, int from = 0, int to = 4);
    std::vector<std::function<void()>> m_applySteps;
    quint64 m_applyGeneration = 0;
    bool m_applying = false;
    void apply(DashboardData d);
    void clearView();
    void updateCharts();
    void updateRangeUi();
    void onHistogramBar(core::Filter::Metric m, int index);
    QWidget* chartWidget(const QString& which) const;
    void saveChartInteractive(const QString& which);
    void saveCsvInteractive();

    std::shared_ptr<core::QueueBackend> m_backend;
    qint64 m_stuckNs = core::kDefaultStuckAfterNs;
    bool m_utc = false;
    std::optional<qint64> m_from, m_to;
    std::optional<RangePreset> m_pendingPreset;

    quint64 m_generation = 0; ///< bumped when the inputs change
    bool m_busy = false;
    bool m_again = false;
    core::ReadPacer m_pacer;
    QTimer* m_paceTimer = nullptr; ///< the next live refresh the pace held back
    bool m_hasData = false;
    bool m_staleWhileHidden = false; ///< a refresh was skipped while hidden
    bool m_prepared = false;         ///< prepareFirstShow() ran or was shown
    DashboardData m_data;

    // widgets
    QLabel* m_rangeLabel = nullptr;
    QLabel* m_status = nullptr;
    QPushButton* m_allButton = nullptr;
    QPushButton* m_hourButton = nullptr;
    QPushButton* m_dayButton = nullptr;
    DashboardCards* m_cards = nullptr;
    QStackedWidget* m_pages = nullptr;
    TimeSeriesChart* m_throughput = nullptr;
    TimeSeriesChart* m_latency = nullptr;
    HistogramChart* m_waitHist = nullptr;
    HistogramChart* m_processingHist = nullptr;
    HistogramChart* m_totalHist = nullptr;
    HistogramChart* m_failureHist = nullptr;
    PercentileModel* m_percentiles = nullptr;
    QTableView* m_table = nullptr;
    // the schedule page (formats without history)
    QLabel* m_jobsNote = nullptr;
    HistogramChart* m_scheduledHist = nullptr;
    HistogramChart* m_attemptsHist = nullptr;
};

} // namespace lq::ui

Q_DECLARE_METATYPE(lq::core::Filter)
