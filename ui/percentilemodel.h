// SPDX-License-Identifier: MIT
#pragma once

#include "core/stats.h"

#include <QAbstractTableModel>

#include <array>

namespace lq::ui {

/// The dashboard's percentile table: one row per timing metric (docs/FORMATS.md#times),
/// nearest-rank values shown humanely with the exact ns in the tooltip.
/// An update is one dataChanged over the table, never a reset.
class PercentileModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Row { WaitRow, ProcessingRow, TotalRow, TimeToFailureRow, RowCount };
    enum Column { CountColumn, P50Column, P90Column, P95Column, P99Column, MaxColumn, ColumnCount };
    enum Roles {
        /// The exact value: qint64 ns (a count for CountColumn); invalid
        /// when the metric has no values.
        ValueRole = Qt::UserRole,
    };

    explicit PercentileModel(QObject* parent = nullptr);

    void setStats(const core::QueueStats& s);
    /// Rows whose metric the file's format does not store: "not stored",
    /// with `why` as the tooltip ("" for a metric it stores).
    void setUnavailable(Row row, const QString& why);
    const core::Summary& summary(int row) const { return m_rows.at(static_cast<std::size_t>(row)); }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

private:
    std::optional<core::TimeNs> value(int row, int column) const;

    std::array<core::Summary, RowCount> m_rows;
    std::array<QString, RowCount> m_unavailable;
};

} // namespace lq::ui
