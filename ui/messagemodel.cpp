// SPDX-License-Identifier: MIT
#include "ui/messagemodel.h"

#include "core/backend.h"
#include "core/formats/queueformat.h"
#include "ui/heapwarmup.h"
#include "ui/messageloader.h"
#include "ui/theme.h"
#include "ui/uitext.h"

#include <QBrush>
#include <QColor>
#include <QFontDatabase>
#include <QLoggingCategory>
#include <QPainter>
#include <QPixmap>
#include <QSet>

#include <algorithm>

Q_LOGGING_CATEGORY(lcModel, "lq.ui.model", QtInfoMsg)

namespace lq::ui {

using core::Message;
using core::State;
using core::TimeNs;

namespace {

QIcon dotIcon(const QColor& c) {
    QPixmap pm(16, 16);
    pm.fill(Qt::transparent);
    QPainter p(&pm);
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(c.darker(130));
    p.setBrush(c);
    p.drawEllipse(QRectF(3.5, 3.5, 9, 9));
    return QIcon(pm);
}

} // namespace

MessageModel::MessageModel(QObject* parent)
    : QAbstractTableModel(parent)
    , m_order(std::make_shared<Ordering>()) {
    m_loader = new MessageLoader([this](bool reset) { return pollRequest(reset); }, this);
    connect(m_loader, &MessageLoader::pollFinished, this, &MessageModel::applyPoll);
    connect(m_loader, &MessageLoader::earlyRows, this, &MessageModel::applyEarlyRows);
    connect(m_loader, &MessageLoader::othersStale, this, &MessageModel::markOthersStale);
    connect(m_loader, &MessageLoader::firstRows, this, &MessageModel::applyFirstRows);
    connect(m_loader, &MessageLoader::countsEstimated, this,
            [this](quint64 generation, const core::Counts& c) {
                // Only until the exact counts of this generation arrive.
                if (generation == m_loader->generation() && m_exactCountsOf != generation) {
                    m_counts = c;
                    emit countsChanged(m_counts);
                }
            });
    connect(m_loader, &MessageLoader::blockLoaded, this, &MessageModel::applyBlock);
    connect(m_loader, &MessageLoader::orderingSized, this, [this](quint64 generation, qint64 rows) {
        // The view's header keeps its memory across resets: only growth past
        // the largest table yet is new memory to fault in. It holds the
        // window's rows at most.
        rows = std::min<qint64>(rows, m_windowRows);
        if (generation == m_loader->generation() && rows > m_warmedRows) {
            m_warmedRows = rows;
            warmHeapForRows(std::size_t(rows));
        }
    });
    connect(m_loader, &MessageLoader::located, this,
            [this](const QString& id, bool found, qint64 rowid, qint64 position) {
                const Locating asked = m_locating.take(id);
                if (!found) {
                    emit located(id, -1);
                    return;
                }
                // The worker's answer holds while the ordering it searched is
                // still the one shown (-1: not in it, filtered out).
                const bool searchedShown = asked.order.lock() == m_order;
                const bool current =
                    !m_edit && ((searchedShown && position < 0) ||
                                (position >= 0 && std::size_t(position) < m_order->size() &&
                                 (*m_order)[std::size_t(position)] == rowid));
                if (current) {
                    emit located(id, position < 0 ? -1 : rowOfPosition(int(position)));
                    return;
                }
                // The ordering changed meanwhile: search the new one, in a
                // worker too (a search of millions of rows here would
                // stall). Only an ordering that keeps changing is searched
                // here, as it was before.
                if (asked.retries < kLocateRetries) {
                    m_locating.insert(id, {m_order, asked.retries + 1});
                    m_loader->locate(id, m_order);
                    return;
                }
                emit located(id, rowOfPosition(positionOfRowId(rowid)));
            });
    connect(m_loader, &MessageLoader::fileStateChanged, this, &MessageModel::fileStateChanged);
    connect(m_loader, &MessageLoader::errorOccurred, this, &MessageModel::errorOccurred);
    m_stuckIcon = QIcon(QStringLiteral(":/icons/stuck.svg"));
    m_fixedFont = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    m_boldFont.setBold(true);
    for (State s : {State::Ready, State::Locked, State::Done, State::Failed, State::Unknown,
                    State::Scheduled, State::Leased, State::Expired}) {
        m_stateIcons.insert(int(s), dotIcon(theme::stateColor(s)));
    }
}

MessageModel::~MessageModel() {
    delete m_loader; // waits for its worker before the model goes
}

void MessageModel::setQueue(std::shared_ptr<core::Queue> queue, const QString& path) {
    setBackend(core::localBackend(std::move(queue)), path);
}

void MessageModel::setBackend(std::shared_ptr<core::QueueBackend> backend, const QString& path) {
    m_loader->newGeneration();
    ++m_layout;
    beginResetModel();
    m_format = backend ? &core::QueueFormat::of(backend->info()) : nullptr;
    m_fields = m_format ? m_format->fields() : std::vector<core::QueueFormat::Field>{};
    replaceOrder(std::make_shared<Ordering>());
    m_windowStart = 0;
    m_hasOrdering = false;
    m_provisional = false;
    m_cache.clear();
    m_counts = {};
    m_lastRefresh = {};
    endResetModel();
    // Each format names its field columns in its own words.
    emit headerDataChanged(Qt::Horizontal, 0, ColumnCount - 1);
    m_loader->setBackend(std::move(backend), path);
    emit countsChanged(m_counts);
    if (m_loader->backend()) {
        m_loader->requestReset();
    }
}

std::shared_ptr<core::QueueBackend> MessageModel::backend() const {
    return m_loader->backend();
}

PollRequest MessageModel::pollRequest(bool reset) const {
    PollRequest req;
    req.layout = m_layout;
    req.filter = m_filter;
    req.sort = m_sort;
    req.stuckNs = stuckNs();
    if (!reset) {
        req.cached = m_cache.fingerprints();
        if (!m_shownRows) {
            req.shown = req.cached;
        } else {
            const auto [first, last] = m_shownRows();
            for (int row = std::max(0, first); row <= last; ++row) {
                const std::size_t pos = std::size_t(m_windowStart) + std::size_t(row);
                if (pos >= m_order->size())
                    break;
                if (const MessageRow* cached = m_cache.find((*m_order)[pos]))
                    req.shown.emplace_back(cached->msg.rowid, cached->fingerprint);
            }
        }
    }
    req.order = m_order;
    return req;
}

void MessageModel::setFilter(const core::Filter& filter) {
    m_filter = filter;
    m_filter.stuckAfterNs = stuckNs();
    m_loader->newGeneration();
    m_loader->requestReset();
}

void MessageModel::setStuckThresholdSeconds(int seconds) {
    if (seconds == m_stuckSeconds) {
        return;
    }
    m_stuckSeconds = std::max(1, seconds);
    m_filter.stuckAfterNs = stuckNs();
    if (m_filter.stuckOnly) {
        m_loader->newGeneration();
        m_loader->requestReset();
    } else {
        m_loader->requestPoll(true);
    }
    emitTimeColumnsChanged();
}

void MessageModel::setUtc(bool utc) {
    if (utc == m_utc) {
        return;
    }
    m_utc = utc;
    const int n = rowCount();
    if (n > 0) {
        emit dataChanged(index(0, Enqueued), index(n - 1, Finished));
        emit dataChanged(index(0, ScheduledAt), index(n - 1, LeaseExpiry));
    }
}

void MessageModel::setLiveRefresh(bool on) {
    m_loader->setLive(on);
}

bool MessageModel::liveRefresh() const {
    return m_loader->live();
}

void MessageModel::refreshNow() {
    m_loader->requestPoll(true);
}

bool MessageModel::isIdle() const {
    return m_loader->isIdle() && !m_cache.hasPending();
}

bool MessageModel::isSettled() const {
    return m_loader->isSettled() && !m_cache.hasPending();
}

qint64 MessageModel::walBytes() const {
    return m_loader->walBytes();
}

MessageModel::FileState MessageModel::fileState() const {
    return m_loader->fileState();
}

qint64 MessageModel::lastJobMs() const {
    return m_loader->lastJobMs();
}

TimeNs MessageModel::stuckNs() const {
    return TimeNs(m_stuckSeconds) * core::kNsPerSecond;
}

void MessageModel::emitTimeColumnsChanged() {
    const int n = rowCount();
    if (n <= 0) {
        return;
    }
    // Ages and the stuck mark move with the clock.
    emit dataChanged(index(0, Status), index(n - 1, Status));
    emit dataChanged(index(0, Age), index(n - 1, Age));
}

const MessageRow* MessageModel::rowAt(int row) const {
    if (row < 0 || row >= rowCount()) {
        return nullptr;
    }
    return m_cache.find(rowIdAt(row));
}

qint64 MessageModel::rowIdAt(int row) const {
    if (row < 0 || row >= rowCount()) {
        return -1;
    }
    if (!m_edit) {
        return (*m_order)[std::size_t(row) + std::size_t(m_windowStart)];
    }
    // Mid edit script: the rows shown are the base without the skipped runs.
    std::size_t at = std::size_t(row);
    for (const auto& [first, count] : m_edit->skip) {
        if (at < std::size_t(first)) {
            break;
        }
        at += std::size_t(count);
    }
    return (*m_edit->base)[at];
}

int MessageModel::positionOfRowId(qint64 rowid) const {
    auto it = std::find(m_order->begin(), m_order->end(), rowid);
    return it == m_order->end() ? -1 : int(it - m_order->begin());
}

int MessageModel::orderedRows() const {
    return m_edit ? m_edit->rows : int(m_order->size());
}

void MessageModel::setWindowStart(int start) {
    start = std::clamp(start, 0, std::max(0, orderedRows() - m_windowRows));
    if (start == m_windowStart || m_edit) {
        return;
    }
    // The row count stays windowRows(): a layout change, which QHeaderView
    // answers without a loop over its sections.
    moveWindow(
        start, [](int position) { return position; }, [] {});
}

int MessageModel::rowOfPosition(int pos) {
    if (pos < 0 || pos >= orderedRows()) {
        return -1;
    }
    if (pos < m_windowStart || pos >= m_windowStart + rowCount()) {
        setWindowStart(pos - m_windowRows / 2);
    }
    return pos - m_windowStart;
}

void MessageModel::setWindowRows(int rows) {
    beginResetModel();
    m_windowRows = std::max(1, rows);
    m_windowStart = 0;
    endResetModel();
}

void MessageModel::locate(const QString& messageId) {
    m_locating.insert(messageId, {m_order, 0});
    m_loader->locate(messageId, m_order);
}

void MessageModel::requestBlock(int block) const {
    const std::size_t first = std::size_t(block) * kBlockSize;
    if (m_edit || !m_loader->backend() || first >= m_order->size() || !m_cache.markPending(block)) {
        return;
    }
    const std::size_t last = std::min(m_order->size(), first + kBlockSize);
    m_loader->loadBlock(m_layout, block,
                        std::vector<std::int64_t>(m_order->begin() + qsizetype(first),
                                                  m_order->begin() + qsizetype(last)));
}

int MessageModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid()) {
        return 0;
    }
    if (m_edit) {
        return m_edit->rows;
    }
    return std::min(int(m_order->size()) - m_windowStart, m_windowRows);
}

int MessageModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

bool MessageModel::isStuck(const Message& m) const {
    return m.isStuck(core::systemNowNs(), stuckNs());
}

bool MessageModel::isSortable(int column) {
    // The format-field columns have no sort key in core.
    return column != IdempotencyKey && column != Payload && column >= 0 && column < Queue;
}

QVariant MessageModel::displayData(const MessageRow& r, int column) const {
    const Message& m = r.msg;
    if (fieldOf(column)) {
        return fieldDisplayData(m, column);
    }
    switch (Column(column)) {
    case MessageId:
        return fromStd(m.messageId);
    case Status:
        return stateText(m, m_format);
    case Claim:
        return fieldDisplayData(m, column);
    case IdempotencyKey:
        return m.idempotencyKey ? fromStd(*m.idempotencyKey) : QString();
    case Payload:
        return r.preview;
    case Enqueued:
        return formatInstant(m.inTime, m_utc, false, false);
    case Claimed:
        return formatInstant(m.lockTime, m_utc, false, false);
    case Finished:
        return formatInstant(m.doneTime, m_utc, false, false);
    case Wait:
        return humanDuration(m.waitNs());
    case Processing:
        return humanDuration(m.processingNs());
    case Age: {
        const TimeNs now = core::systemNowNs();
        if (m.state == State::Locked || m.state == State::Leased) {
            return humanDuration(m.lockAgeNs(now));
        }
        if (m.state == State::Ready || m.state == State::Scheduled || m.state == State::Expired) {
            return humanDuration(m.ageNs(now));
        }
        return QString();
    }
    default:
        break;
    }
    return {};
}

QVariant MessageModel::toolTipData(const MessageRow& r, int column) const {
    const Message& m = r.msg;
    if (fieldOf(column)) {
        return fieldToolTip(m, column);
    }
    auto instant = [](const std::optional<TimeNs>& t) {
        return t ? plainToolTip(exactInstant(*t)) : QVariant();
    };
    auto duration = [](const std::optional<TimeNs>& d) {
        return d ? plainToolTip(exactDuration(*d)) : QVariant();
    };
    switch (Column(column)) {
    case MessageId:
        return plainToolTip(fromStd(m.messageId));
    case Status: {
        QString t = stateText(m, m_format);
        if (!m.extraState.empty() && m.state != State::Unknown) {
            t += QStringLiteral(" (") + fromStd(m.extraState) + u')';
        }
        if (!m.statusText.empty()) {
            t += u'\n' + tr("Stored state: %1").arg(fromStd(m.statusText));
        }
        if (isStuck(m)) {
            t += u'\n' + tr("Stuck: locked for %1 (threshold %2 s)")
                             .arg(humanDuration(m.lockAgeNs(core::systemNowNs())))
                             .arg(m_stuckSeconds);
        }
        return plainToolTip(t);
    }
    case Claim:
        if (m.tokenText) {
            return fieldToolTip(m, column);
        }
        return plainToolTip(tr("Claim token %1 (claim_id; lock_time in legacy files, attempts "
                               "in lease queues)")
                                .arg(m.token));
    case IdempotencyKey:
        return m.idempotencyKey ? plainToolTip(fromStd(*m.idempotencyKey)) : QVariant();
    case Payload: {
        QString text =
            QString::fromUtf8(m.data.data(), qsizetype(std::min<std::size_t>(m.data.size(), 600)));
        if (r.dataBytes > 600) {
            text += QChar(0x2026) + u'\n' + tr("(%1 in total)").arg(humanBytes(r.dataBytes));
        }
        return plainToolTip(text);
    }
    case Enqueued:
        return instant(m.inTime);
    case Claimed:
        return instant(m.lockTime);
    case Finished:
        return instant(m.doneTime);
    case Wait:
        return duration(m.waitNs());
    case Processing:
        return duration(m.processingNs());
    case Age: {
        const TimeNs now = core::systemNowNs();
        if (m.state == State::Locked || m.state == State::Leased) {
            return duration(m.lockAgeNs(now));
        }
        return duration(m.ageNs(now));
    }
    default:
        break;
    }
    return {};
}

QVariant MessageModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
        return {};
    }
    const int row = index.row();
    const int column = index.column();
    const qint64 rowid = rowIdAt(row);
    const MessageRow* cached = m_cache.find(rowid);
    if (!cached) {
        if (!m_cache.isGone(rowid)) {
            requestBlock((row + m_windowStart) / kBlockSize);
        }
        switch (role) {
        case Qt::DisplayRole:
            return QStringLiteral("\u2026");
        case Qt::ForegroundRole:
            return QBrush(theme::mutedText());
        case RowIdRole:
            return rowid;
        case LoadedRole:
            return false;
        default:
            return {};
        }
    }
    m_cache.touch((row + m_windowStart) / kBlockSize);
    if (m_cache.isStale(rowid)) {
        // Changed on file since it was read, off screen then: shown as it
        // was until its block is read again (a few ms).
        requestBlock((row + m_windowStart) / kBlockSize);
    }
    const MessageRow& r = *cached;
    const Message& m = r.msg;
    switch (role) {
    case Qt::DisplayRole:
        return displayData(r, column);
    case Qt::ToolTipRole:
        return toolTipData(r, column);
    case Qt::DecorationRole:
        if (column == Status) {
            return isStuck(m) ? m_stuckIcon : m_stateIcons.value(int(m.state));
        }
        return {};
    case Qt::ForegroundRole:
        if (column == Status) {
            return QBrush(theme::stateColor(m.state));
        }
        return {};
    case Qt::BackgroundRole:
        if (isStuck(m)) {
            return QBrush(theme::stuckBackground());
        }
        return {};
    case Qt::FontRole:
        // Asked for every painted cell: the fonts are made once.
        if (column == MessageId || column == Claim) {
            return m_fixedFont;
        }
        if (column == Status) {
            return m_boldFont;
        }
        return {};
    case Qt::TextAlignmentRole:
        if ((column == Claim && !m.tokenText) || column == Wait || column == Processing ||
            column == Age || column == Priority || column == Attempts) {
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        }
        return QVariant::fromValue(Qt::AlignLeft | Qt::AlignVCenter);
    case MessageIdRole:
        return fromStd(m.messageId);
    case TokenRole:
        return qint64(m.token);
    case StateRole:
        return int(m.state);
    case StuckRole:
        return isStuck(m);
    case RowIdRole:
        return rowid;
    case LoadedRole:
        return true;
    case PayloadBytesRole:
        return r.dataBytes;
    case SortValueRole: {
        auto v = [](const std::optional<TimeNs>& t) {
            return t ? QVariant(qint64(*t)) : QVariant();
        };
        switch (column) {
        case Enqueued:
            return v(m.inTime);
        case Claimed:
            return v(m.lockTime);
        case Finished:
            return v(m.doneTime);
        case Wait:
            return v(m.waitNs());
        case Processing:
            return v(m.processingNs());
        case Claim:
            return qint64(m.token);
        case ScheduledAt:
            return v(m.scheduledAt);
        case LeaseExpiry:
            return v(m.leaseExpiry);
        case Priority:
            return m.priority ? QVariant(qint64(*m.priority)) : QVariant();
        case Attempts:
            return qint64(m.attempts);
        default:
            return {};
        }
    }
    default:
        return {};
    }
}

QVariant MessageModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount) {
        return QAbstractTableModel::headerData(section, orientation, role);
    }
    if (role == Qt::DisplayRole || role == Qt::ToolTipRole) {
        if (QVariant v = fieldHeader(section, role); v.isValid()) {
            return v;
        }
    }
    if (role == Qt::DisplayRole) {
        switch (Column(section)) {
        case MessageId:
            return tr("Message id");
        case Status:
            return tr("Status");
        case Claim:
            return tr("Claim");
        case IdempotencyKey:
            return tr("Key");
        case Payload:
            return tr("Payload");
        case Enqueued:
            return tr("Enqueued");
        case Claimed:
            return tr("Claimed");
        case Finished:
            return tr("Finished");
        case Wait:
            return tr("Wait");
        case Processing:
            return tr("Processing");
        case Age:
            return tr("Age");
        default:
            break; // the format's fields: fieldHeader()
        }
    } else if (role == Qt::ToolTipRole) {
        switch (Column(section)) {
        case MessageId:
            return tr("UUIDv7 message id; sorts in arrival (pop) order");
        case IdempotencyKey:
            return tr("Idempotency key");
        case Claim:
            return tr("The claim token actions check: claim_id, or lock_time in legacy files");
        case Enqueued:
            return tr("in_time");
        case Claimed:
            return tr("lock_time: the last claim");
        case Finished:
            return tr("done_time");
        case Wait:
            return tr("lock_time - in_time");
        case Processing:
            return tr("done_time - lock_time (DONE rows)");
        case Age:
            return tr("now - in_time for READY rows; lock age (now - lock_time) for LOCKED rows");
        default:
            return {};
        }
    }
    return {};
}

void MessageModel::sort(int column, Qt::SortOrder order) {
    if (!isSortable(column)) {
        return;
    }
    core::Sort s;
    switch (Column(column)) {
    case Enqueued:
        s.key = core::SortKey::InTime;
        break;
    case Claimed:
        s.key = core::SortKey::LockTime;
        break;
    case Finished:
        s.key = core::SortKey::DoneTime;
        break;
    case Wait:
        s.key = core::SortKey::Wait;
        break;
    case Processing:
        s.key = core::SortKey::Processing;
        break;
    case Age:
        s.key = core::SortKey::Age;
        break;
    case Claim:
        s.key = core::SortKey::Claim;
        break;
    case Status:
        s.key = core::SortKey::Status;
        break;
    default:
        s.key = core::SortKey::Arrival;
        break;
    }
    s.descending = order == Qt::DescendingOrder;
    if (s.key == m_sort.key && s.descending == m_sort.descending) {
        return;
    }
    m_sort = s;
    m_loader->newGeneration();
    m_loader->requestReset();
}

} // namespace lq::ui
