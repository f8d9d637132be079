// SPDX-License-Identifier: MIT
#include "ui/dashboardwidget.h"

#include "core/formats/queueformat.h"

#include "core/backend.h"
#include "core/timefmt.h"
#include "ui/dashboardcards.h"
#include "ui/histogramchart.h"
#include "ui/percentilemodel.h"
#include "ui/runasync.h"
#include "ui/timeserieschart.h"
#include "ui/uitext.h"

#include <QButtonGroup>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QFrame>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QImage>
#include <QLabel>
#include <QLocale>
#include <QMenu>
#include <QPixmap>
#include <QProgressBar>
#include <QPushButton>
#include <QSaveFile>
#include <QScrollArea>
#include <QStackedWidget>
#include <QTableView>
#include <QTextStream>
#include <QTime>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <climits>
#include <exception>
#include <limits>
#include <utility>

namespace lq::ui {

using core::Filter;
using core::TimeNs;

namespace {

constexpr TimeNs kDay = 24 * kHour;

QLabel* plainLabel(QWidget* parent) {
    auto* l = new QLabel(parent);
    l->setTextFormat(Qt::PlainText);
    return l;
}

} // namespace

DashboardWidget::DashboardWidget(QWidget* parent)
    : QWidget(parent) {
    m_paceTimer = new QTimer(this);
    m_paceTimer->setSingleShot(true);
    connect(m_paceTimer, &QTimer::timeout, this, &DashboardWidget::refresh);
    auto* root = new QVBoxLayout(this);
    root->setContentsMargins(6, 6, 6, 6);
    root->setSpacing(6);

    // ---- range bar --------------------------------------------------------
    auto* bar = new QHBoxLayout;
    auto* rangeCaption = plainLabel(this);
    rangeCaption->setText(tr("Time range:"));
    bar->addWidget(rangeCaption);
    auto* group = new QButtonGroup(this);
    const auto makeButton = [&](const QString& text, const char* name) {
        auto* b = new QPushButton(text, this);
        b->setCheckable(true);
        b->setObjectName(QString::fromLatin1(name));
        group->addButton(b);
        bar->addWidget(b);
        return b;
    };
    m_hourButton = makeButton(tr("Last hour"), "rangeLastHour");
    m_dayButton = makeButton(tr("Last day"), "rangeLastDay");
    m_allButton = makeButton(tr("All"), "rangeAll");
    m_allButton->setChecked(true);
    connect(m_hourButton, &QPushButton::clicked, this,
            [this] { setRangePreset(RangePreset::LastHour); });
    connect(m_dayButton, &QPushButton::clicked, this,
            [this] { setRangePreset(RangePreset::LastDay); });
    connect(m_allButton, &QPushButton::clicked, this, [this] { setRangePreset(RangePreset::All); });
    m_rangeLabel = plainLabel(this);
    m_rangeLabel->setObjectName(QStringLiteral("rangeLabel"));
    bar->addWidget(m_rangeLabel, 1);
    m_status = plainLabel(this);
    m_status->setObjectName(QStringLiteral("dashboardStatus"));
    bar->addWidget(m_status);
    auto* exportButton = new QToolButton(this);
    exportButton->setText(tr("Export"));
    exportButton->setPopupMode(QToolButton::InstantPopup);
    auto* exportMenu = new QMenu(exportButton);
    const struct {
        const char* which;
        QString text;
    } exports[] = {{"throughput", tr("Throughput chart as PNG…")},
                   {"latency", tr("Latency over time chart as PNG…")},
                   {"wait", tr("Wait histogram as PNG…")},
                   {"processing", tr("Processing histogram as PNG…")},
                   {"total", tr("Total time histogram as PNG…")},
                   {"failure", tr("Time to failure histogram as PNG…")},
                   {"dashboard", tr("Whole dashboard as PNG…")}};
    for (const auto& e : exports) {
        const QString which = QString::fromLatin1(e.which);
        exportMenu->addAction(e.text, this, [this, which] { saveChartInteractive(which); });
    }
    exportMenu->addSeparator();
    exportMenu->addAction(tr("Numbers as CSV…"), this, [this] { saveCsvInteractive(); });
    exportButton->setMenu(exportMenu);
    bar->addWidget(exportButton);
    root->addLayout(bar);

    // ---- overview cards (they wrap in a narrow window) ----------------------
    m_cards = new DashboardCards(this);
    root->addWidget(m_cards);

    // ---- litequeue page ---------------------------------------------------
    m_pages = new QStackedWidget(this);
    auto* scroll = new QScrollArea(m_pages);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto* page = new QWidget;
    page->setMinimumSize(1000, 720);
    auto* grid = new QGridLayout(page);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->setSpacing(6);

    m_throughput = new TimeSeriesChart(tr("Throughput"), TimeSeriesChart::YScale::Linear, page);
    m_throughput->addSeries(tr("arrivals"), QColor(0x4a, 0x7e, 0xbb));
    m_throughput->addSeries(tr("claims"), QColor(0x8e, 0x6c, 0xc0), Qt::DashLine);
    m_throughput->addSeries(tr("completions"), QColor(0x2e, 0x9e, 0x44));
    m_throughput->addSeries(tr("failures"), QColor(0xc6, 0x28, 0x28));
    m_throughput->setToolTip(tr("Drag across the chart to pick a time range."));
    connect(m_throughput, &TimeSeriesChart::rangeSelected, this,
            [this](qint64 from, qint64 to) { setTimeRange(from, to); });

    m_latency = new TimeSeriesChart(tr("Latency over time"), TimeSeriesChart::YScale::Log, page);
    m_latency->addSeries(tr("wait p50"), QColor(0x4a, 0x7e, 0xbb));
    m_latency->addSeries(tr("wait p99"), QColor(0x4a, 0x7e, 0xbb), Qt::DashLine);
    m_latency->addSeries(tr("processing p50"), QColor(0xe0, 0x8a, 0x00));
    m_latency->addSeries(tr("processing p99"), QColor(0xe0, 0x8a, 0x00), Qt::DashLine);
    m_latency->setYTitle(tr("seconds (log scale)"));
    m_latency->setValueText([](double s) { return humanDuration(static_cast<TimeNs>(s * 1e9)); });
    connect(m_latency, &TimeSeriesChart::rangeSelected, this,
            [this](qint64 from, qint64 to) { setTimeRange(from, to); });

    m_waitHist = new HistogramChart(tr("Wait"), page);
    m_processingHist = new HistogramChart(tr("Processing"), page);
    m_totalHist = new HistogramChart(tr("Total"), page);
    m_failureHist = new HistogramChart(tr("Time to failure"), page);
    const std::pair<HistogramChart*, Filter::Metric> hists[] = {
        {m_waitHist, Filter::Metric::Wait},
        {m_processingHist, Filter::Metric::Processing},
        {m_totalHist, Filter::Metric::Total},
        {m_failureHist, Filter::Metric::TimeToFailure}};
    for (const auto& [chart, metric] : hists) {
        connect(chart, &HistogramChart::barClicked, this,
                [this, m = metric](int index) { onHistogramBar(m, index); });
    }

    m_percentiles = new PercentileModel(this);
    m_table = new QTableView(page);
    m_table->setObjectName(QStringLiteral("percentileTable"));
    m_table->setModel(m_percentiles);
    m_table->setSelectionMode(QAbstractItemView::ContiguousSelection);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_table->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_table->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
    m_table->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);

    auto* hint = plainLabel(page);
    hint->setWordWrap(true);
    hint->setText(tr("Nearest-rank percentiles over the messages that arrived in the time range. "
                     "Click a histogram bar to list those messages in the table; drag across a "
                     "time chart to narrow the range. Cards count the whole queue."));

    grid->addWidget(m_throughput, 0, 0, 1, 2);
    grid->addWidget(m_latency, 0, 2, 1, 2);
    grid->addWidget(m_waitHist, 1, 0);
    grid->addWidget(m_processingHist, 1, 1);
    grid->addWidget(m_totalHist, 1, 2);
    grid->addWidget(m_failureHist, 1, 3);
    grid->addWidget(m_table, 2, 0, 1, 3);
    grid->addWidget(hint, 2, 3, Qt::AlignTop);
    grid->setRowStretch(0, 5);
    grid->setRowStretch(1, 5);
    grid->setRowStretch(2, 0);
    for (int c = 0; c < 4; ++c) {
        grid->setColumnStretch(c, 1);
    }
    scroll->setWidget(page);
    m_pages->addWidget(scroll);

    // ---- schedule page (formats without history)
    // --------------------------------------------------
    auto* jobs = new QWidget;
    auto* jl = new QGridLayout(jobs);
    jl->setContentsMargins(0, 0, 0, 0);
    m_jobsNote = plainLabel(jobs);
    m_jobsNote->setObjectName(QStringLiteral("jobsNote"));
    m_jobsNote->setWordWrap(true);
    m_jobsNote->setText(
        tr("This queue stores no completion history (finishing a job deletes "
           "its row) and no wait or processing times, so throughput and latency cannot be shown. "
           "Shown instead: the backlog age (from run_at), how far ahead the scheduled jobs are "
           "due, and how many attempts the stored jobs have had."));
    m_scheduledHist = new HistogramChart(tr("Scheduled ahead (run_at − now)"), jobs);
    m_scheduledHist->setClickable(false);
    m_attemptsHist = new HistogramChart(tr("Attempts"), jobs);
    m_attemptsHist->setClickable(false);
    jl->addWidget(m_jobsNote, 0, 0, 1, 2);
    jl->addWidget(m_scheduledHist, 1, 0);
    jl->addWidget(m_attemptsHist, 1, 1);
    jl->setRowStretch(1, 1);
    m_pages->addWidget(jobs);
    root->addWidget(m_pages, 1);

    // The charts wait for the first show, keeping their place: shown at
    // once, each chart's first layout and paint (axes, labels, shaped text)
    // would add up to one stall of 15-25 ms on the tab switch.
    m_unrevealed = {m_throughput, m_latency,     m_waitHist,      m_processingHist,
                    m_totalHist,  m_failureHist, m_scheduledHist, m_attemptsHist};
    for (QWidget* chart : std::as_const(m_unrevealed)) {
        QSizePolicy policy = chart->sizePolicy();
        policy.setRetainSizeWhenHidden(true);
        chart->setSizePolicy(policy);
        chart->setVisible(false);
    }

    clearView();
}

DashboardWidget::~DashboardWidget() = default;

bool DashboardWidget::prepareFirstShow(const QSize& size, qreal devicePixelRatio) {
    if (m_prepared || isVisible() || size.isEmpty()) {
        return false;
    }
    m_prepared = true;
    // Rendering a hidden widget polishes and lays it out first; the paint
    // shapes and rasterises its text (2-5 ms on a 1M file's window).
    resize(size);
    QImage image(size * devicePixelRatio, QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(devicePixelRatio);
    render(&image);
    return true;
}

void DashboardWidget::showEvent(QShowEvent* e) {
    QWidget::showEvent(e);
    m_prepared = true;
    if (!m_unrevealed.isEmpty()) {
        // Not in the turn of the loop that shows the tab: the tab's layout
        // and paint and the first chart's made one stall of 18-25 ms under
        // Xvfb (lqbench gui, dashboard_show); 2 ms on, 8 ms each.
        QTimer::singleShot(2, this, [this] { revealNextChart(); });
    }
    if (m_staleWhileHidden) {
        refresh();
    }
}

void DashboardWidget::revealNextChart() {
    if (m_unrevealed.isEmpty()) {
        return;
    }
    // One chart per turn of the event loop, as chart data is applied
    // (runNextStep()); 2 ms apart so input and timers get theirs between.
    m_unrevealed.takeFirst()->setVisible(true);
    if (!m_unrevealed.isEmpty()) {
        QTimer::singleShot(2, this, [this] { revealNextChart(); });
    }
}

bool DashboardWidget::chartsRevealed() const {
    return m_unrevealed.isEmpty();
}

void DashboardWidget::setQueue(std::shared_ptr<core::Queue> queue) {
    setBackend(core::localBackend(std::move(queue)));
}

void DashboardWidget::setBackend(std::shared_ptr<core::QueueBackend> backend) {
    m_backend = std::move(backend);
    m_pacer.reset();
    m_paceTimer->stop();
    if (m_backend) {
        m_pacer.setFactor(m_backend->readPacingFactor());
    }
    // What this format does not store is said, not drawn as an empty chart.
    // One metric's charts per turn of the event loop: each change relays a
    // chart out, and a file opened from the command line changes them all
    // in the turn that shows its first rows (docs/BENCHMARKS.md's 16 ms).
    m_formatSteps.clear();
    if (m_backend) {
        const core::QueueFormat& format = core::QueueFormat::of(m_backend->info());
        m_cards->setFormat(format);
    }
    for (const Filter::Metric metric : {Filter::Metric::Wait, Filter::Metric::Processing,
                                        Filter::Metric::Total, Filter::Metric::TimeToFailure}) {
        QString why;
        if (m_backend) {
            const core::FormatInfo& info = m_backend->info();
            why = fromStd(core::QueueFormat::of(info).whyNoMetric(metric, info));
        }
        m_formatSteps.emplace_back(metric, why);
    }
    const quint64 formatGeneration = ++m_formatGeneration;
    QTimer::singleShot(1, this, [this, formatGeneration] { applyFormatStep(formatGeneration); });
    ++m_generation;
    ++m_applyGeneration; // drop chart steps of the previous queue
    m_applySteps.clear();
    m_applying = false;
    m_hasData = false;
    m_pendingPreset.reset();
    if (m_from || m_to) {
        m_from.reset();
        m_to.reset();
        emit timeRangeChanged(m_from, m_to);
    }
    updateRangeUi();
    clearView();
    refresh();
}

void DashboardWidget::showMetric(Filter::Metric metric, const QString& why) {
    using Row = PercentileModel::Row;
    const Row row = metric == Filter::Metric::Wait         ? PercentileModel::WaitRow
                    : metric == Filter::Metric::Processing ? PercentileModel::ProcessingRow
                    : metric == Filter::Metric::Total      ? PercentileModel::TotalRow
                                                           : PercentileModel::TimeToFailureRow;
    histogram(metric)->setUnavailable(why);
    m_percentiles->setUnavailable(row, why);
    // The series drawn from the same stored times go with them:
    // processing p50/p99, and completions (a finish time of a DONE job).
    if (metric == Filter::Metric::Processing) {
        m_latency->setSeriesShown(2, why.isEmpty());
        m_latency->setSeriesShown(3, why.isEmpty());
    } else if (metric == Filter::Metric::Total) {
        m_throughput->setSeriesShown(2, why.isEmpty());
    }
}

void DashboardWidget::applyFormatStep(quint64 generation) {
    if (generation != m_formatGeneration || m_formatSteps.empty()) {
        return;
    }
    const auto [metric, why] = m_formatSteps.front();
    m_formatSteps.erase(m_formatSteps.begin());
    showMetric(metric, why);
    if (!m_formatSteps.empty()) {
        QTimer::singleShot(2, this, [this, generation] { applyFormatStep(generation); });
    }
}

void DashboardWidget::applyFormatNow() {
    // The rest at once; the pending timer then finds nothing left.
    for (const auto& [metric, why] : std::exchange(m_formatSteps, {})) {
        showMetric(metric, why);
    }
}

void DashboardWidget::setStuckThreshold(qint64 ns) {
    if (ns == m_stuckNs) {
        return;
    }
    m_stuckNs = ns;
    ++m_generation;
    refresh();
}

void DashboardWidget::setUtc(bool utc) {
    if (utc == m_utc) {
        return;
    }
    m_utc = utc;
    m_throughput->setUtc(utc);
    m_latency->setUtc(utc);
    updateRangeUi();
    if (m_hasData) {
        m_cards->setData(m_data, m_stuckNs, m_utc);
    }
}

Filter DashboardWidget::rangeFilter() const {
    Filter f;
    f.inTimeFrom = m_from;
    f.inTimeTo = m_to;
    return f;
}

void DashboardWidget::setTimeRange(std::optional<qint64> fromNs, std::optional<qint64> toNs) {
    m_pendingPreset.reset();
    if (fromNs && toNs && *toNs < *fromNs) {
        std::swap(fromNs, toNs);
    }
    if (fromNs == m_from && toNs == m_to) {
        updateRangeUi();
        return;
    }
    m_from = fromNs;
    m_to = toNs;
    ++m_generation;
    updateRangeUi();
    emit timeRangeChanged(m_from, m_to);
    refresh();
}

void DashboardWidget::setRangePreset(RangePreset p) {
    if (p == RangePreset::All) {
        setTimeRange(std::nullopt, std::nullopt);
        return;
    }
    if (!m_hasData) {
        // "Now" is the queue's clock, known only from a computation.
        m_pendingPreset = p;
        refresh();
        return;
    }
    const TimeNs span = p == RangePreset::LastHour ? kHour : kDay;
    setTimeRange(m_data.now - span, std::nullopt);
}

void DashboardWidget::refreshLive() {
    const core::TimeNs wait = m_pacer.waitAt(core::steadyNowNs());
    if (wait <= 0) {
        refresh();
    } else if (!m_paceTimer->isActive()) {
        m_paceTimer->start(int(std::min<core::TimeNs>(wait / 1'000'000 + 1, INT_MAX)));
    }
}

void DashboardWidget::refresh() {
    if (!m_backend) {
        return;
    }
    m_paceTimer->stop();
    if (!isVisible()) {
        // A hidden dashboard (another tab) costs nothing on live ticks; it
        // catches up when shown.
        m_staleWhileHidden = true;
        return;
    }
    m_staleWhileHidden = false;
    if (m_busy) {
        m_again = true;
        return;
    }
    m_busy = true;
    m_again = false; // this run sees every input asked for so far
    const quint64 generation = m_generation;
    const DashboardRequest r{m_from, m_to, m_stuckNs};
    runAsync(
        this, [q = m_backend, r] { return computeDashboard(*q, r); },
        [this, generation](DashboardData d) {
            m_busy = false;
            const core::TimeNs end = core::steadyNowNs();
            m_pacer.ran(end - core::TimeNs(d.elapsedMs) * 1'000'000, end);
            if (generation == m_generation) {
                apply(std::move(d));
            } else {
                m_again = true; // the inputs changed meanwhile
            }
            if (m_again) {
                refresh();
            }
        });
}

void DashboardWidget::apply(DashboardData d) {
    if (!d.error.isEmpty()) {
        m_status->setText(tr("Statistics failed: %1").arg(d.error));
        m_status->setToolTip(d.error);
        return;
    }
    applyFormatNow(); // the charts below are this format's
    m_data = std::move(d);
    m_status->setToolTip(QString());
    // A big live file is recomputed at a pace (refreshLive()): the time
    // says how old the figures are.
    m_status->setText(tr("%1 messages · computed in %2 ms at %3")
                          .arg(QLocale().toString(m_data.totalRows))
                          .arg(m_data.elapsedMs)
                          .arg(QTime::currentTime().toString(QStringLiteral("HH:mm:ss"))));
    m_cards->setData(m_data, m_stuckNs, m_utc);
    updateRangeUi();
    // The charts are updated one per event-loop turn, so the UI thread never
    // spends one long stretch relayouting and repainting all of them (the
    // 16 ms budget of docs/BENCHMARKS.md); a newer result cancels the rest.
    m_applySteps = chartSteps();
    m_applying = true;
    const quint64 stepsGeneration = ++m_applyGeneration;
    runNextStep(stepsGeneration);
}

void DashboardWidget::runNextStep(quint64 generation) {
    if (generation != m_applyGeneration) {
        return;
    }
    if (!m_applySteps.empty()) {
        auto step = std::move(m_applySteps.front());
        m_applySteps.erase(m_applySteps.begin());
        step();
        // 2 ms, not 0: a chain of zero timers keeps the loop busy, and input
        // (and every other timer) must get its turn between two charts.
        QTimer::singleShot(2, this, [this, generation] { runNextStep(generation); });
        return;
    }
    m_applying = false;
    m_hasData = true;
    emit dataUpdated();
    if (const auto p = m_pendingPreset) {
        m_pendingPreset.reset();
        setRangePreset(*p);
    }
}

void DashboardWidget::clearView() {
    m_data = DashboardData{};
    m_cards->clear();
    m_status->setText(m_backend ? tr("computing…") : QString());
}

std::vector<std::function<void()>> DashboardWidget::chartSteps() {
    std::vector<std::function<void()>> steps;
    const DashboardData& d = m_data;
    if (!d.history) {
        steps.emplace_back([this] { updateCharts(); });
        return steps;
    }
    steps.emplace_back([this] {
        m_pages->setCurrentIndex(0);
        m_percentiles->setStats(m_data.stats);
    });
    // Two series of a time chart a turn: four, and the scene's and the
    // chart's layout work that follows them, were a 12-13 ms stretch on a
    // million-job file (lqbench gui, LQBENCH_SLOW_EVENT_MS).
    steps.emplace_back([this] { updateTimeCharts(true, false, 0, 2); });
    steps.emplace_back([this] { updateTimeCharts(true, false, 2, 4); });
    steps.emplace_back([this] { updateTimeCharts(false, true, 0, 2); });
    steps.emplace_back([this] { updateTimeCharts(false, true, 2, 4); });
    steps.emplace_back(
        [this] { m_waitHist->setDurationHistogram(m_data.stats.waitHist, m_data.stats.wait); });
    steps.emplace_back([this] {
        m_processingHist->setDurationHistogram(m_data.stats.processingHist,
                                               m_data.stats.processing);
    });
    steps.emplace_back(
        [this] { m_totalHist->setDurationHistogram(m_data.stats.totalHist, m_data.stats.total); });
    steps.emplace_back([this] {
        m_failureHist->setDurationHistogram(m_data.stats.failureHist, m_data.stats.timeToFailure);
    });
    return steps;
}

void DashboardWidget::updateCharts() {
    const DashboardData& d = m_data;
    const bool jobs = !d.history;
    m_pages->setCurrentIndex(jobs ? 1 : 0);
    if (!jobs) {
        updateTimeCharts(true, true);
        m_waitHist->setDurationHistogram(d.stats.waitHist, d.stats.wait);
        m_processingHist->setDurationHistogram(d.stats.processingHist, d.stats.processing);
        m_totalHist->setDurationHistogram(d.stats.totalHist, d.stats.total);
        m_failureHist->setDurationHistogram(d.stats.failureHist, d.stats.timeToFailure);
        m_percentiles->setStats(d.stats);
        return;
    }
    {
        m_scheduledHist->setDurationHistogram(d.scheduledAhead, d.scheduledAheadSummary);
        QList<qint64> counts;
        QStringList labels;
        for (std::size_t k = 0; k < d.attempts.size(); ++k) {
            counts.append(d.attempts[k]);
            labels.append(k + 1 == d.attempts.size() ? QString::number(k) + u'+'
                                                     : QString::number(k));
        }
        m_attemptsHist->setDiscrete(counts, labels);
    }
}

void DashboardWidget::updateTimeCharts(bool throughput, bool latency, int from, int to) {
    const DashboardData& d = m_data;
    const auto ms = [](TimeNs t) { return static_cast<double>(t) / 1e6; };
    // Series i of the throughput chart: arrivals, claims, completions, failures.
    const auto throughputPoints = [&](int i) {
        QList<QPointF> l;
        l.reserve(static_cast<qsizetype>(d.series.size()));
        for (const core::TimeBucket& b : d.series) {
            const std::int64_t v = i == 0   ? b.arrivals
                                   : i == 1 ? b.claims
                                   : i == 2 ? b.completions
                                            : b.failures;
            l.append({ms(b.start), static_cast<double>(v)});
        }
        return l;
    };
    // Series i of the latency chart: wait p50, p99, processing p50, p99, in
    // seconds, in the middle of the buckets that have them.
    const auto latencyPoints = [&](int i) {
        QList<QPointF> l;
        for (const core::TimeBucket& b : d.series) {
            const std::optional<TimeNs>& have = i < 2 ? b.waitP50 : b.processingP50;
            const std::optional<TimeNs>& v = i == 0   ? b.waitP50
                                             : i == 1 ? b.waitP99
                                             : i == 2 ? b.processingP50
                                                      : b.processingP99;
            if (have)
                l.append({ms(b.start + d.bucket / 2), v ? static_cast<double>(*v) / 1e9 : 0.0});
        }
        return l;
    };
    if (throughput && from == 0) {
        m_throughput->setSpan(d.spanFrom, d.spanTo);
        m_throughput->setYTitle(tr("messages per %1").arg(roundDurationLabel(d.bucket)));
        QString title = tr("Throughput");
        if (d.prunedBefore) {
            title += QStringLiteral("<br><small>") +
                     tr("History that finished before %1 was pruned: gaps there are not outages")
                         .arg(formatInstant(*d.prunedBefore, m_utc, false))
                         .toHtmlEscaped() +
                     QStringLiteral("</small>");
        }
        m_throughput->chart()->setTitle(title);
    }
    for (int i = from; throughput && i < to; ++i)
        m_throughput->setSeriesData(i, throughputPoints(i));
    if (latency && from == 0)
        m_latency->setSpan(d.spanFrom, d.spanTo);
    for (int i = from; latency && i < to; ++i)
        m_latency->setSeriesData(i, latencyPoints(i));
}

void DashboardWidget::updateRangeUi() {
    QString text;
    if (!m_from && !m_to) {
        text = tr("all messages");
        m_allButton->setChecked(true);
    } else {
        const QString from = m_from ? formatInstant(*m_from, m_utc, false) : QStringLiteral("…");
        const QString to = m_to ? formatInstant(*m_to, m_utc, false) : tr("now");
        text = tr("arrived %1 – %2").arg(from, to);
        const bool preset = m_hasData && !m_to && m_from;
        const bool hour = preset && m_data.now - *m_from == kHour;
        const bool day = preset && m_data.now - *m_from == kDay;
        // A dragged range is none of the presets.
        m_hourButton->group()->setExclusive(false);
        m_allButton->setChecked(false);
        m_hourButton->setChecked(hour);
        m_dayButton->setChecked(day);
        m_hourButton->group()->setExclusive(true);
    }
    if (m_hasData && m_data.bucket > 0 && m_data.history) {
        text += QStringLiteral(" · ") + tr("%1 buckets").arg(roundDurationLabel(m_data.bucket));
    }
    m_rangeLabel->setText(text);
}

HistogramChart* DashboardWidget::histogram(Filter::Metric m) const {
    switch (m) {
    case Filter::Metric::Wait:
        return m_waitHist;
    case Filter::Metric::Processing:
        return m_processingHist;
    case Filter::Metric::Total:
        return m_totalHist;
    case Filter::Metric::TimeToFailure:
        return m_failureHist;
    case Filter::Metric::None:
        break;
    }
    return nullptr;
}

void DashboardWidget::onHistogramBar(Filter::Metric m, int index) {
    const core::QueueStats& s = m_data.stats;
    const core::Histogram* h = nullptr;
    switch (m) {
    case Filter::Metric::Wait:
        h = &s.waitHist;
        break;
    case Filter::Metric::Processing:
        h = &s.processingHist;
        break;
    case Filter::Metric::Total:
        h = &s.totalHist;
        break;
    case Filter::Metric::TimeToFailure:
        h = &s.failureHist;
        break;
    case Filter::Metric::None:
        return;
    }
    if (!h || index < 0 || static_cast<std::size_t>(index) + 1 >= h->edges.size()) {
        return;
    }
    Filter f = rangeFilter();
    f.metric = m;
    // The first bar also holds everything below 1 ms and the last one
    // everything above its edge (logHistogram), so their bands are open.
    const bool first = index == 0;
    const bool last = static_cast<std::size_t>(index) + 2 == h->edges.size();
    f.metricLo =
        first ? std::numeric_limits<TimeNs>::min() : h->edges[static_cast<std::size_t>(index)];
    f.metricHi =
        last ? std::numeric_limits<TimeNs>::max() : h->edges[static_cast<std::size_t>(index) + 1];
    emit histogramBarClicked(f);
}

QWidget* DashboardWidget::chartWidget(const QString& which) const {
    if (which == QLatin1String("throughput")) {
        return m_throughput;
    }
    if (which == QLatin1String("latency")) {
        return m_latency;
    }
    if (which == QLatin1String("wait")) {
        return m_waitHist;
    }
    if (which == QLatin1String("processing")) {
        return m_processingHist;
    }
    if (which == QLatin1String("total")) {
        return m_totalHist;
    }
    if (which == QLatin1String("failure")) {
        return m_failureHist;
    }
    if (which == QLatin1String("scheduled")) {
        return m_scheduledHist;
    }
    if (which == QLatin1String("attempts")) {
        return m_attemptsHist;
    }
    if (which == QLatin1String("dashboard")) {
        return const_cast<DashboardWidget*>(this);
    }
    return nullptr;
}

bool DashboardWidget::exportChartPng(const QString& which, const QString& path) {
    QWidget* w = chartWidget(which);
    if (!w || path.isEmpty()) {
        return false;
    }
    applyFormatNow();
    if (!w->isVisible() && w->size().isEmpty()) {
        w->resize(w->sizeHint().expandedTo(QSize(640, 400)));
    }
    const QPixmap pm = w->grab();
    return !pm.isNull() && pm.save(path, "PNG");
}

bool DashboardWidget::exportCsv(const QString& path) const {
    return writeDashboardCsv(m_data, path);
}

void DashboardWidget::saveChartInteractive(const QString& which) {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Save chart as PNG"), which + QStringLiteral(".png"), tr("PNG images (*.png)"));
    if (!path.isEmpty() && !exportChartPng(which, path)) {
        m_status->setText(tr("Could not write %1").arg(path));
    }
}

void DashboardWidget::saveCsvInteractive() {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Save numbers as CSV"), QStringLiteral("dashboard.csv"), tr("CSV files (*.csv)"));
    if (!path.isEmpty() && !exportCsv(path)) {
        m_status->setText(tr("Could not write %1").arg(path));
    }
}

} // namespace lq::ui
