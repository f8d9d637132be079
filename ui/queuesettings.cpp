// SPDX-License-Identifier: MIT
#include "ui/queuesettings.h"

#include "ui/settingsstore.h"
#include "ui/uitext.h"

#include <QDateTime>
#include <QPalette>
#include <QVariantMap>

#include <algorithm>
#include <utility>
#include <vector>

namespace lq::ui {

namespace {

constexpr QLatin1String kLibrarySettings("librarySettings");

QString settingsKey(const QString& path) {
    return fileSettingsKey(path) + u'/' + kLibrarySettings;
}

core::FormatSettings settingsFrom(const QVariantList& entries) {
    core::FormatSettings s;
    for (const QVariant& v : entries) {
        const QVariantMap e = v.toMap();
        // An entry lqadmin cannot use (edited by hand, a newer version's
        // key) is left out: the library default applies.
        (void)s.set(toStd(e.value(QStringLiteral("key")).toString()),
                    e.value(QStringLiteral("value")).toLongLong(),
                    toStd(e.value(QStringLiteral("queue")).toString()));
    }
    return s;
}

} // namespace

core::FormatSettings storedQueueSettings(const QString& path) {
    return settingsFrom(settings::value(settingsKey(path)).toList());
}

namespace {

/// Every file's stored settings, read once (the settings file holds a group
/// for every file ever opened: reading it whole at every fleet scan stalled
/// the UI thread for seconds), then kept in step by storeQueueSettings().
/// UI thread only.
QHash<QString, core::FormatSettings>& settingsCache() {
    static QHash<QString, core::FormatSettings> cache = readQueueSettingsByKey();
    return cache;
}

} // namespace

QHash<QString, core::FormatSettings> storedQueueSettingsByKey() {
    return settingsCache();
}

QHash<QString, core::FormatSettings> readQueueSettingsByKey() {
    QHash<QString, core::FormatSettings> out;
    const QString files = QStringLiteral("files");
    const QStringList groups = settings::childGroups(files);
    for (const QString& g : groups) {
        const QVariant v = settings::value(files + u'/' + g + u'/' + kLibrarySettings);
        if (v.isValid()) {
            out.insert(files + u'/' + g, settingsFrom(v.toList()));
        }
    }
    return out;
}

void storeQueueSettings(const QString& path, const core::FormatSettings& settings) {
    if (settings.empty()) {
        settingsCache().remove(fileSettingsKey(path));
        settings::remove(settingsKey(path));
        return;
    }
    settingsCache().insert(fileSettingsKey(path), settings);
    QVariantList entries;
    for (const core::FormatSettings::Entry& e : settings.entries()) {
        entries.append(QVariantMap{{QStringLiteral("key"), fromStd(e.key)},
                                   {QStringLiteral("queue"), fromStd(e.queue)},
                                   {QStringLiteral("value"), qint64(e.value)}});
    }
    settings::setValue(settingsKey(path), entries);
}

namespace {
constexpr QLatin1String kFilesGroup("files");
constexpr QLatin1String kSeen("seen");
} // namespace

void touchFileSettings(const QString& path) {
    settings::setValue(fileSettingsKey(path) + u'/' + kSeen, QDateTime::currentSecsSinceEpoch());
}

void pruneFileSettings(int keep) {
    struct Group {
        qint64 seen;
        QString key;
    };
    std::vector<Group> groups;
    const QStringList names = settings::childGroups(kFilesGroup);
    for (const QString& name : names) {
        const QString key = kFilesGroup + u'/' + name;
        if (settings::value(key + u'/' + kLibrarySettings).isValid()) {
            continue; // set by the operator: never forgotten
        }
        groups.push_back({settings::value(key + u'/' + kSeen, 0).toLongLong(), key});
    }
    if (std::cmp_less_equal(groups.size(), std::max(keep, 0))) {
        return;
    }
    std::sort(groups.begin(), groups.end(),
              [](const Group& a, const Group& b) { return a.seen > b.seen; });
    for (auto it = groups.begin() + keep; it != groups.end(); ++it) {
        settings::remove(it->key);
    }
}

QueueSettingsModel::QueueSettingsModel(std::vector<core::QueueFormat::Setting> settings,
                                       const QStringList& queues, core::FormatSettings values,
                                       QObject* parent)
    : QAbstractTableModel(parent)
    , m_settings(std::move(settings))
    , m_values(std::move(values)) {
    for (std::size_t i = 0; i < m_settings.size(); ++i) {
        m_rows.push_back({i, {}});
        if (m_settings[i].perQueue) {
            for (const QString& q : queues) {
                m_rows.push_back({i, toStd(q)});
            }
        }
    }
}

int QueueSettingsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_rows.size());
}

int QueueSettingsModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

qint64 QueueSettingsModel::inUse(const Row& r) const {
    const core::QueueFormat::Setting& s = m_settings[r.setting];
    const qint64 v = m_values.value(s.key, r.queue);
    return v > 0 ? v : s.libraryDefault;
}

QVariant QueueSettingsModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) {
        return {};
    }
    const Row& r = m_rows[std::size_t(index.row())];
    const core::QueueFormat::Setting& s = m_settings[r.setting];
    const qint64 own = m_values.value(s.key, r.queue, /*inherit=*/false);
    const QString unit = fromStd(s.unit);
    if (role == Qt::ToolTipRole) {
        return fromStd(s.description);
    }
    if (role == Qt::EditRole && index.column() == Value) {
        return int(own);
    }
    if (role == Qt::ForegroundRole && index.column() == Value && own == 0) {
        return QPalette().color(QPalette::Disabled, QPalette::Text);
    }
    if (role != Qt::DisplayRole) {
        return {};
    }
    switch (index.column()) {
    case Setting:
        return fromStd(s.label);
    case Queue:
        if (!r.queue.empty()) {
            return fromStd(r.queue);
        }
        return s.perQueue ? tr("All queues") : tr("The file");
    case Value:
        if (own > 0) {
            return tr("%1 %2").arg(QString::number(own), unit);
        }
        return r.queue.empty() ? tr("library default") : tr("as all queues");
    case InUse:
        return tr("%1 %2").arg(QString::number(inUse(r)), unit);
    case LibraryDefault:
        return tr("%1 %2").arg(QString::number(s.libraryDefault), unit);
    default:
        return {};
    }
}

bool QueueSettingsModel::setData(const QModelIndex& index, const QVariant& value, int role) {
    if (!index.isValid() || role != Qt::EditRole || index.column() != Value) {
        return false;
    }
    return setValue(index.row(), value.toLongLong());
}

bool QueueSettingsModel::setValue(int row, qint64 value) {
    if (row < 0 || row >= rowCount()) {
        return false;
    }
    const Row& r = m_rows[std::size_t(row)];
    const core::QueueFormat::Setting& s = m_settings[r.setting];
    if (value != 0 && value < s.minimum) {
        return false;
    }
    if (!m_values.set(s.key, value, r.queue)) {
        return false;
    }
    // An all-queues value moves the "in use" of the queue rows below it.
    int last = row;
    while (last + 1 < rowCount() && m_rows[std::size_t(last) + 1].setting == r.setting) {
        ++last;
    }
    emit dataChanged(index(row, Value), index(r.queue.empty() ? last : row, InUse));
    return true;
}

void QueueSettingsModel::clearValues() {
    m_values = {};
    if (rowCount() > 0) {
        emit dataChanged(index(0, Value), index(rowCount() - 1, InUse));
    }
}

Qt::ItemFlags QueueSettingsModel::flags(const QModelIndex& index) const {
    Qt::ItemFlags f = QAbstractTableModel::flags(index);
    if (index.isValid() && index.column() == Value) {
        f |= Qt::ItemIsEditable;
    }
    return f;
}

int QueueSettingsModel::rowOf(const QString& key, const QString& queue) const {
    for (std::size_t i = 0; i < m_rows.size(); ++i) {
        if (fromStd(m_settings[m_rows[i].setting].key) == key &&
            fromStd(m_rows[i].queue) == queue) {
            return int(i);
        }
    }
    return -1;
}

QVariant QueueSettingsModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) {
        return {};
    }
    switch (section) {
    case Setting:
        return tr("Setting");
    case Queue:
        return tr("Queue");
    case Value:
        return tr("Value");
    case InUse:
        return tr("In use");
    case LibraryDefault:
        return tr("Library default");
    default:
        return {};
    }
}

} // namespace lq::ui
