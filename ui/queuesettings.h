// SPDX-License-Identifier: MIT
#pragma once

// The library settings a queue file does not store (goqite's maxReceive,
// backlite's ReleaseAfter, Laravel's retry_after): what the open format
// declares (QueueFormat::settings()), the values lqadmin keeps per file
// path, and the table model of the "Queue settings" dialog. Nothing here
// knows a format: the format says which settings it reads.

#include "core/format.h"
#include "core/formats/queueformat.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QStringList>

#include <vector>

namespace lq::ui {

/// The values stored for the file at `path` (none: the library defaults).
core::FormatSettings storedQueueSettings(const QString& path);
/// Every file's stored values, by fileSettingsKey(path), for a worker that
/// meets the paths as it goes: read from QSettings once, then kept in step
/// by storeQueueSettings() (UI thread only; QSettings stays there).
QHash<QString, core::FormatSettings> storedQueueSettingsByKey();
/// The same, read from QSettings now (every group of the settings file).
QHash<QString, core::FormatSettings> readQueueSettingsByKey();
/// Stores `settings` for the file at `path` (empty ones remove the entry).
void storeQueueSettings(const QString& path, const core::FormatSettings& settings);

/// Marks the file's group as used now (its "seen" time).
void touchFileSettings(const QString& path);
/// Forgets the views of all but the `keep` most recently seen files, so
/// the settings file (read whole at start) does not grow with every file
/// ever opened. A group holding library settings the operator set is kept.
void pruneFileSettings(int keep);

/// One row per setting the format declares, plus one per named queue for a
/// setting the library takes per queue. Value is editable (0: not set, the
/// library default or the all-queues value applies).
class QueueSettingsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Setting, Queue, Value, InUse, LibraryDefault, ColumnCount };

    QueueSettingsModel(std::vector<core::QueueFormat::Setting> settings, const QStringList& queues,
                       core::FormatSettings values, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

    /// The row of setting `key` for named queue `queue` ("" for the
    /// all-queues row); -1 when there is none.
    int rowOf(const QString& key, const QString& queue = {}) const;
    /// Sets a row's value (0: not set). False below the setting's minimum.
    bool setValue(int row, qint64 value);
    /// Every value back to not set.
    void clearValues();
    /// The values as the format reads them.
    core::FormatSettings settings() const { return m_values; }

private:
    struct Row {
        std::size_t setting;
        std::string queue; ///< "" for the all-queues row
    };
    qint64 inUse(const Row& r) const;

    std::vector<core::QueueFormat::Setting> m_settings;
    std::vector<Row> m_rows;
    core::FormatSettings m_values;
};

} // namespace lq::ui
