// SPDX-License-Identifier: MIT
#include "ui/percentilemodel.h"

#include "ui/uitext.h"

#include <QLocale>

namespace lq::ui {

PercentileModel::PercentileModel(QObject* parent)
    : QAbstractTableModel(parent) {}

void PercentileModel::setStats(const core::QueueStats& s) {
    m_rows = {s.wait, s.processing, s.total, s.timeToFailure};
    emit dataChanged(index(0, 0), index(RowCount - 1, ColumnCount - 1));
}

void PercentileModel::setUnavailable(Row row, const QString& why) {
    auto& at = m_unavailable.at(static_cast<std::size_t>(row));
    if (at != why) {
        at = why;
        emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
    }
}

int PercentileModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : RowCount;
}

int PercentileModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

std::optional<core::TimeNs> PercentileModel::value(int row, int column) const {
    const core::Summary& s = summary(row);
    switch (column) {
    case CountColumn:
        return s.count;
    case P50Column:
        return s.p50;
    case P90Column:
        return s.p90;
    case P95Column:
        return s.p95;
    case P99Column:
        return s.p99;
    case MaxColumn:
        return s.max;
    default:
        return std::nullopt;
    }
}

QVariant PercentileModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid)) {
        return {};
    }
    const auto v = value(index.row(), index.column());
    const bool isCount = index.column() == CountColumn;
    if (const QString& why = m_unavailable.at(static_cast<std::size_t>(index.row()));
        !why.isEmpty() && (role == Qt::DisplayRole || role == Qt::ToolTipRole)) {
        return role == Qt::DisplayRole ? (isCount ? tr("not stored") : QStringLiteral("—")) : why;
    }
    switch (role) {
    case Qt::DisplayRole:
        if (!v) {
            return QStringLiteral("—");
        }
        return isCount ? QLocale().toString(*v) : humanDuration(*v);
    case Qt::ToolTipRole:
        if (!v) {
            return tr("no messages with this time");
        }
        return isCount ? QLocale().toString(*v) : exactDuration(*v);
    case Qt::TextAlignmentRole:
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    case ValueRole:
        return v ? QVariant::fromValue<qint64>(*v) : QVariant();
    default:
        return {};
    }
}

QVariant PercentileModel::headerData(int section, Qt::Orientation o, int role) const {
    if (role == Qt::ToolTipRole && o == Qt::Vertical) {
        switch (section) {
        case WaitRow:
            return tr("claim − enqueue time, or − due time where the format stores one (Solid "
                      "Queue, Laravel, Oban, River); every message claimed");
        case ProcessingRow:
            return tr("done_time − lock_time, DONE messages");
        case TotalRow:
            return tr("done_time − in_time, DONE messages");
        case TimeToFailureRow:
            return tr("done_time − lock_time, FAILED messages");
        default:
            return {};
        }
    }
    if (role != Qt::DisplayRole) {
        return {};
    }
    if (o == Qt::Vertical) {
        switch (section) {
        case WaitRow:
            return tr("Wait");
        case ProcessingRow:
            return tr("Processing");
        case TotalRow:
            return tr("Total");
        case TimeToFailureRow:
            return tr("Time to failure");
        default:
            return {};
        }
    }
    switch (section) {
    case CountColumn:
        return tr("Count");
    case P50Column:
        return tr("p50");
    case P90Column:
        return tr("p90");
    case P95Column:
        return tr("p95");
    case P99Column:
        return tr("p99");
    case MaxColumn:
        return tr("Max");
    default:
        return {};
    }
}

} // namespace lq::ui
