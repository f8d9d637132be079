// SPDX-License-Identifier: MIT
#include "ui/filewatcher.h"

#include <QFileInfo>
#include <QFileSystemWatcher>

namespace lq::ui {

FileWatcher::FileWatcher(QObject* parent)
    : QObject(parent)
    , m_watcher(new QFileSystemWatcher(this)) {
    m_timer.setSingleShot(true);
    // Coalesce a burst of writes (a commit touches the -wal and -shm
    // several times) without delaying what the operator sees.
    m_timer.setInterval(30);
    connect(&m_timer, &QTimer::timeout, this, [this] {
        reAddMissing();
        emit changed();
    });
    connect(m_watcher, &QFileSystemWatcher::fileChanged, this, &FileWatcher::onFileChanged);
    connect(m_watcher, &QFileSystemWatcher::directoryChanged, this,
            &FileWatcher::onDirectoryChanged);
}

void FileWatcher::addPath(const QString& path) {
    if (path.isEmpty()) {
        return;
    }
    if (m_refs[path]++ > 0) {
        return;
    }
    if (!QFileInfo::exists(path) || !m_watcher->addPath(path)) {
        m_missing.insert(path);
    }
}

void FileWatcher::removePath(const QString& path) {
    auto it = m_refs.find(path);
    if (it == m_refs.end()) {
        return;
    }
    if (--it.value() > 0) {
        return;
    }
    m_refs.remove(path);
    m_missing.remove(path);
    m_watcher->removePath(path);
}

void FileWatcher::clear() {
    const QStringList files = m_watcher->files();
    const QStringList dirs = m_watcher->directories();
    if (!files.isEmpty()) {
        m_watcher->removePaths(files);
    }
    if (!dirs.isEmpty()) {
        m_watcher->removePaths(dirs);
    }
    m_refs.clear();
    m_missing.clear();
    m_timer.stop();
}

void FileWatcher::onFileChanged(const QString& path) {
    // A file removed or replaced by rename drops out of the watch list:
    // remember it so the next event (or the folder's) adds it back.
    if (m_refs.contains(path) && !m_watcher->files().contains(path)) {
        m_missing.insert(path);
    }
    if (!m_timer.isActive()) {
        m_timer.start();
    }
}

void FileWatcher::onDirectoryChanged(const QString&) {
    if (!m_timer.isActive()) {
        m_timer.start();
    }
}

void FileWatcher::reAddMissing() {
    m_missing.removeIf([this](const QString& path) {
        return QFileInfo::exists(path) && m_watcher->addPath(path);
    });
}

} // namespace lq::ui
