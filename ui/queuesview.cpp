// SPDX-License-Identifier: MIT
// The Queues tab: the per-queue overview (core/queueoverview.h), read in a
// worker through the document's core::QueueBackend, one sortable row per queue.
#include "ui/queuesview.h"

#include "core/backend.h"
#include "core/formats/queueformat.h"
#include "core/statemodel.h"
#include "ui/actionreport.h"
#include "ui/queuedocument.h"
#include "ui/runasync.h"
#include "ui/uitext.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QShowEvent>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <climits>
#include <utility>

namespace lq::ui {

namespace {

constexpr core::TimeNs kHourNs = 3600 * core::kNsPerSecond;

/// A cell that sorts by its number (Qt::UserRole) where it has one, so
/// "1,200" sorts after "300" and an empty cell first.
class Cell : public QTableWidgetItem {
public:
    explicit Cell(const QString& text, std::optional<double> key = std::nullopt,
                  Qt::Alignment align = Qt::AlignLeft)
        : QTableWidgetItem(text) {
        setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
        setTextAlignment(align | Qt::AlignVCenter);
        if (key) {
            setData(Qt::UserRole, *key);
        }
    }
    bool operator<(const QTableWidgetItem& other) const override {
        const QVariant a = data(Qt::UserRole), b = other.data(Qt::UserRole);
        if (a.isValid() || b.isValid()) {
            return (a.isValid() ? a.toDouble() : -1.0) < (b.isValid() ? b.toDouble() : -1.0);
        }
        return text() < other.text();
    }
};

Cell* countCell(std::int64_t n) {
    return new Cell(localeCount(n), double(n), Qt::AlignRight);
}

Cell* durationCell(const std::optional<core::TimeNs>& ns) {
    return ns ? new Cell(humanDuration(*ns), double(*ns), Qt::AlignRight)
              : new Cell(QStringLiteral("\u2013"), std::nullopt, Qt::AlignRight);
}

QString rateText(double perHour) {
    return perHour >= 100 ? QString::number(perHour, 'f', 0) : QString::number(perHour, 'f', 1);
}

QString capitalized(const std::string& s) {
    QString t = fromStd(s);
    t.replace(u'_', u' ');
    if (!t.isEmpty()) {
        t[0] = t[0].toUpper();
    }
    return t;
}

std::optional<core::TimeNs> spanOf(QueuesView::Range r) {
    switch (r) {
    case QueuesView::Range::LastHour:
        return kHourNs;
    case QueuesView::Range::LastDay:
        return 24 * kHourNs;
    case QueuesView::Range::LastWeek:
        return 7 * (24 * kHourNs);
    case QueuesView::Range::All:
        break;
    }
    return std::nullopt;
}

} // namespace

QueuesView::QueuesView(QueueDocument* document, QWidget* parent)
    : QWidget(parent)
    , m_doc(document) {
    setObjectName(QStringLiteral("queuesView"));
    auto* root = new QVBoxLayout(this);
    root->setContentsMargins(6, 6, 6, 6);
    root->setSpacing(6);

    auto* top = new QHBoxLayout;
    auto* rangeLabel = new QLabel(tr("&Time range:"), this);
    m_range = new QComboBox(this);
    m_range->setObjectName(QStringLiteral("queuesRange"));
    m_range->setAccessibleName(tr("Time range of the throughput and wait"));
    m_range->addItem(tr("All time"), int(Range::All));
    m_range->addItem(tr("Last hour"), int(Range::LastHour));
    m_range->addItem(tr("Last 24 hours"), int(Range::LastDay));
    m_range->addItem(tr("Last 7 days"), int(Range::LastWeek));
    m_range->setToolTip(tr("Done per hour counts the jobs finished in the range; the wait is "
                           "that of the jobs that arrived in it. Counts are always the whole "
                           "queue now."));
    rangeLabel->setBuddy(m_range);
    connect(m_range, &QComboBox::currentIndexChanged, this, &QueuesView::refresh);
    top->addWidget(rangeLabel);
    top->addWidget(m_range);
    top->addStretch(1);
    root->addLayout(top);

    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("queuesStatus"));
    m_status->setTextFormat(Qt::PlainText);
    m_status->setWordWrap(true);
    root->addWidget(m_status);

    m_content = new QWidget(this);
    auto* content = new QVBoxLayout(m_content);
    content->setContentsMargins(0, 0, 0, 0);
    m_table = new QTableWidget(0, 0, m_content);
    m_table->setObjectName(QStringLiteral("queuesTable"));
    m_table->setAccessibleName(tr("Queues"));
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setWordWrap(false);
    m_table->verticalHeader()->hide();
    m_table->setSortingEnabled(true);
    connect(m_table, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
        if (const QTableWidgetItem* item = m_table->item(row, 0)) {
            emit queueActivated(item->data(Qt::UserRole + 1).toString());
        }
    });
    content->addWidget(m_table, 1);
    root->addWidget(m_content, 1);

    connect(m_doc, &QueueDocument::opened, this, &QueuesView::documentOpened);
    connect(m_doc, &QueueDocument::closed, this, &QueuesView::documentClosed);
    documentClosed();
}

bool QueuesView::isIdle() const {
    return m_read.idle() && !m_read.stale();
}

void QueuesView::setRange(Range r) {
    m_range->setCurrentIndex(std::max(0, m_range->findData(int(r))));
}

void QueuesView::documentOpened() {
    if (const auto q = m_doc->backend())
        m_read.opened(q->readPacingFactor());
    m_overview = {};
    m_table->setRowCount(0);
    showLine(tr("Reading the queues\u2026"), false);
    refresh();
}

void QueuesView::documentClosed() {
    m_read.closed();
    m_overview = {};
    m_table->setRowCount(0);
    showLine(tr("Open a queue file to see its queues."), false);
}

void QueuesView::showLine(const QString& text, bool content) {
    m_status->setText(text);
    m_content->setVisible(content);
}

void QueuesView::refreshLive() {
    m_read.changed();
}

void QueuesView::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (m_read.stale()) {
        refresh();
    }
}

void QueuesView::refresh() {
    const std::shared_ptr<core::QueueBackend> q = m_doc->backend();
    if (!q || !m_doc->isOpen()) {
        return;
    }
    // A scan of the whole file: only while the tab is shown.
    const auto ticket = m_read.begin(isVisible());
    if (!ticket) {
        return;
    }
    const std::optional<core::TimeNs> span = spanOf(Range(m_range->currentData().toInt()));
    runAsync(
        this,
        [q, span]() -> Result {
            try {
                core::DashboardQuery query;
                if (span) {
                    query.from = q->now() - *span;
                }
                return {q->queueOverview(query), {}};
            } catch (const std::exception& e) {
                return {{}, QString::fromUtf8(e.what())};
            }
        },
        [this, t = *ticket](Result r) {
            if (m_read.end(t)) {
                apply(std::move(r));
            }
        });
}

void QueuesView::apply(Result r) {
    ++m_results;
    if (!r.error.isEmpty()) {
        showLine(tr("Reading the queues failed: %1").arg(r.error), !m_overview.rows.empty());
        return;
    }
    m_overview = std::move(r.overview);
    showOverview();
}

int QueuesView::columnOf(const QString& key) const {
    return int(m_columnKeys.indexOf(key));
}

int QueuesView::rowOf(const QString& queue) const {
    for (int row = 0; row < m_table->rowCount(); ++row) {
        const QTableWidgetItem* item = m_table->item(row, 0);
        if (item && item->data(Qt::UserRole + 1).toString() == queue) {
            return row;
        }
    }
    return -1;
}

void QueuesView::showOverview() {
    const core::QueueOverview& o = m_overview;
    if (o.rows.empty()) {
        m_table->setRowCount(0);
        showLine(tr("No queues: the file holds no jobs."), false);
        return;
    }
    const auto paused = std::count_if(o.rows.begin(), o.rows.end(),
                                      [](const core::QueueOverviewRow& r) { return r.paused; });
    QString line =
        tr("%1 queue(s), %2 paused. Range %3 \u2013 %4: done per hour over it, the "
           "wait of the jobs that arrived in it.")
            .arg(localeCount(qint64(o.rows.size())), localeCount(qint64(paused)),
                 formatInstant(o.rangeFrom, false, false), formatInstant(o.rangeTo, false, false));
    if (!o.throughputNote.empty()) {
        line += QLatin1Char(' ') + tr("Throughput: %1.").arg(visibleText(o.throughputNote));
    }
    if (!o.waitNote.empty()) {
        line += QLatin1Char(' ') + tr("Wait: %1.").arg(visibleText(o.waitNote));
    }
    showLine(line, true);

    const core::QueueFormat& format = m_doc->format();
    const std::vector<core::PartitionState> states = core::partitionStates(format);
    QStringList headers = {tr("Queue"), tr("Paused")};
    m_columnKeys = {QStringLiteral("queue"), QStringLiteral("paused")};
    for (const core::PartitionState& s : states) {
        headers << capitalized(s.name);
        m_columnKeys << fromStd(s.name);
    }
    headers << tr("Done / hour") << tr("Wait p50") << tr("Wait p99") << tr("Backlog age");
    m_columnKeys << QStringLiteral("done_per_hour") << QStringLiteral("wait_p50")
                 << QStringLiteral("wait_p99") << QStringLiteral("backlog");

    const QString was = [this] {
        const auto rows = m_table->selectionModel()->selectedRows();
        const QTableWidgetItem* item =
            rows.isEmpty() ? nullptr : m_table->item(rows.front().row(), 0);
        return item ? item->data(Qt::UserRole + 1).toString() : QString();
    }();
    m_table->setSortingEnabled(false);
    m_table->setColumnCount(int(headers.size()));
    m_table->setHorizontalHeaderLabels(headers);
    m_table->setRowCount(int(o.rows.size()));
    int row = 0;
    for (const core::QueueOverviewRow& r : o.rows) {
        int col = 0;
        auto* name = new Cell(r.queue.empty() ? tr("(whole file)") : visibleText(r.queue));
        name->setData(Qt::UserRole + 1, fromStd(r.queue));
        name->setToolTip(tr("Double-click to see this queue's messages"));
        m_table->setItem(row, col++, name);
        auto* p = new Cell(r.paused ? tr("paused") : QString(), r.paused ? 1.0 : 0.0);
        if (r.paused) {
            QFont bold = p->font();
            bold.setBold(true);
            p->setFont(bold);
            p->setToolTip(r.pausedSince ? tr("Paused since %1: workers skip it")
                                              .arg(formatInstant(*r.pausedSince, false))
                                        : tr("Paused: workers skip it"));
        }
        m_table->setItem(row, col++, p);
        const core::StateModel m = core::stateModel(format, r.counts);
        for (const core::PartitionState& s : states) {
            m_table->setItem(row, col++, countCell(m.count(s.name)));
        }
        auto* rate = r.donePerHour
                         ? new Cell(rateText(*r.donePerHour), *r.donePerHour, Qt::AlignRight)
                         : new Cell(QStringLiteral("\u2013"), std::nullopt, Qt::AlignRight);
        rate->setToolTip(r.donePerHour
                             ? tr("%1 done and %2 failed in the range (%3 per minute)")
                                   .arg(localeCount(r.doneInRange), localeCount(r.failedInRange),
                                        rateText(*r.donePerHour / 60.0))
                             : visibleText(o.throughputNote));
        m_table->setItem(row, col++, rate);
        auto* p50 = durationCell(r.waitP50);
        p50->setToolTip(tr("over %1 claimed job(s)").arg(localeCount(r.waitCount)));
        m_table->setItem(row, col++, p50);
        m_table->setItem(row, col++, durationCell(r.waitP99));
        m_table->setItem(row, col++,
                         durationCell(r.backlogSince ? std::optional(std::max<core::TimeNs>(
                                                           0, o.now - *r.backlogSince))
                                                     : std::nullopt));
        ++row;
    }
    m_table->setSortingEnabled(true);
    m_table->resizeColumnsToContents();
    if (const int r = rowOf(was); r >= 0) {
        m_table->selectRow(r);
    }
}

} // namespace lq::ui
