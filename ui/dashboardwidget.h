// SPDX-License-Identifier: MIT
#pragma once

#include "core/format.h"
#include "core/query.h"
#include "core/stats.h"

#include <QMetaType>
#include <QString>
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
class Queue;
}

namespace lq::ui {

class HistogramChart;
class PercentileModel;
class TimeSeriesChart;

/// Everything one dashboard computation produced (in the worker) and the
/// widget shows.
struct DashboardData {
    core::TimeNs now = 0; ///< the queue's clock when computed
    /// The format keeps finished history (latency charts); without it the
    /// dashboard shows its schedule (attempts, leases) instead.
    bool history = true;
    std::optional<std::int64_t> maxsize;
    core::Counts counts;
    core::QueueStats stats; ///< over the messages in the time range
    /// Whole-queue overview (the cards ignore the time range): the oldest
    /// claimable message's in_time (run_at where the format has a schedule), finished in the
    /// last hour.
    std::optional<core::TimeNs> backlogSince;
    std::int64_t doneLastHour = 0;
    std::int64_t failedLastHour = 0;
    std::int64_t totalRows = 0;                     ///< rows read from the file
    std::optional<core::TimeNs> rangeFrom, rangeTo; ///< the range asked for
    /// The charts' time span [spanFrom, spanTo) and its bucket size; the
    /// series has one bucket per `bucket` ns starting at spanFrom.
    core::TimeNs spanFrom = 0, spanTo = 0, bucket = 0;
    std::vector<core::TimeBucket> series;
    // formats without history only (no completion history is stored)
    core::Histogram scheduledAhead; ///< run_at - now of SCHEDULED jobs
    core::Summary scheduledAheadSummary;
    std::vector<std::int64_t> attempts; ///< attempts[k]: jobs with k attempts; last: k or more
    /// The newest prune of this file on record (audit log): what finished
    /// before this was deleted, so a gap in the charts is not an outage.
    std::optional<core::TimeNs> prunedBefore;
    qint64 elapsedMs = 0; ///< how long the worker took
    QString error;        ///< non-empty: the computation failed
};

/// Latency and throughput views of one queue (SPEC §3.4): overview cards,
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

    /// Shows `queue` (shared with the browser; Queue is thread-safe) and
    /// recomputes. nullptr clears the dashboard.
    void setQueue(std::shared_ptr<core::Queue> queue);
    /// LOCKED messages whose lock age exceeds this count as stuck.
    void setStuckThreshold(qint64 ns);
    /// Time axes in UTC instead of local time.
    void setUtc(bool utc);

    /// Recomputes off the UI thread (call on live-refresh ticks). A call
    /// while a computation runs is coalesced into one more run after it;
    /// while the widget is hidden the call is remembered and runs on show.
    void refresh();

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
    struct Request;
    static DashboardData compute(const std::shared_ptr<core::Queue>& q, const Request& r);
    std::vector<std::function<void()>> chartSteps();
    void runNextStep(quint64 generation);
    void updateTimeCharts(bool throughput, bool latency);
    std::vector<std::function<void()>> m_applySteps;
    quint64 m_applyGeneration = 0;
    bool m_applying = false;
    void apply(DashboardData d);
    void clearView();
    void updateCards();
    void updateCharts();
    void updateRangeUi();
    void onHistogramBar(core::Filter::Metric m, int index);
    QWidget* chartWidget(const QString& which) const;
    void saveChartInteractive(const QString& which);
    void saveCsvInteractive();

    std::shared_ptr<core::Queue> m_queue;
    qint64 m_stuckNs = core::kDefaultStuckAfterNs;
    bool m_utc = false;
    std::optional<qint64> m_from, m_to;
    std::optional<RangePreset> m_pendingPreset;

    quint64 m_generation = 0; ///< bumped when the inputs change
    bool m_busy = false;
    bool m_again = false;
    bool m_hasData = false;
    bool m_staleWhileHidden = false; ///< a refresh was skipped while hidden
    DashboardData m_data;

    // widgets
    QLabel* m_rangeLabel = nullptr;
    QLabel* m_status = nullptr;
    QPushButton* m_allButton = nullptr;
    QPushButton* m_hourButton = nullptr;
    QPushButton* m_dayButton = nullptr;
    struct Card;
    std::vector<std::unique_ptr<Card>> m_cards;
    QProgressBar* m_fill = nullptr;
    QWidget* m_fillCard = nullptr;
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
