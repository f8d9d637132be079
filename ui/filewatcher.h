// SPDX-License-Identifier: MIT
#pragma once

#include <QHash>
#include <QObject>
#include <QSet>
#include <QStringList>
#include <QTimer>

class QFileSystemWatcher;

namespace lq::ui {

/// Watches a set of files and folders and reports changes as one coalesced
/// signal. Paths are reference counted; missing files are remembered and
/// added once they (re)appear, so an atomic save or a `-wal` file created
/// after opening is still watched (QFileSystemWatcher silently drops a file
/// that was replaced or deleted).
class FileWatcher : public QObject {
    Q_OBJECT
public:
    explicit FileWatcher(QObject* parent = nullptr);

    void addPath(const QString& path);
    void removePath(const QString& path);
    void clear();
    /// The bursts of events within this window become one `changed()`.
    void setCoalesceInterval(int ms) { m_timer.setInterval(ms); }

signals:
    /// Something under the watched paths changed (at most once per interval).
    void changed();

private:
    void onFileChanged(const QString& path);
    void onDirectoryChanged(const QString& path);
    void reAddMissing();

    QFileSystemWatcher* m_watcher;
    QHash<QString, int> m_refs;
    QSet<QString> m_missing; ///< wanted but not on disk (or dropped by the watcher)
    QTimer m_timer;
};

} // namespace lq::ui
