// SPDX-License-Identifier: MIT
#pragma once

#include <QHash>
#include <QObject>
#include <QString>
#include <QThread>
#include <QTimer>

namespace lq::ui {

class WatchEngine;

/// Watches a set of files and folders and reports changes as one coalesced
/// signal. Paths are reference counted; missing files are remembered and
/// added once they (re)appear, so an atomic save or a `-wal` file created
/// after opening is still watched (QFileSystemWatcher silently drops a file
/// that was replaced or deleted).
///
/// The watch itself (QFileSystemWatcher: a stat and an inotify call per
/// path) lives on a thread of its own: adding a watch on a big folder such
/// as /tmp took 15 ms of the UI thread in the kernel. It still takes a core
/// for that long (the kernel is not preempted in the call), and a path is
/// watched again after every change: watch a folder only where its own
/// events are wanted (the sidebar's folders).
class FileWatcher : public QObject {
    Q_OBJECT
public:
    explicit FileWatcher(QObject* parent = nullptr);
    ~FileWatcher() override;
    FileWatcher(const FileWatcher&) = delete;
    FileWatcher& operator=(const FileWatcher&) = delete;

    void addPath(const QString& path);
    void removePath(const QString& path);
    void clear();
    /// The bursts of events within this window become one `changed()`.
    void setCoalesceInterval(int ms) { m_timer.setInterval(ms); }

signals:
    /// Something under the watched paths changed (at most once per interval).
    void changed();

private:
    QThread m_thread;
    WatchEngine* m_engine; ///< lives on m_thread
    QHash<QString, int> m_refs;
    QTimer m_timer;
};

} // namespace lq::ui
