// SPDX-License-Identifier: MIT
#include "ui/filewatcher.h"

#include "core/filestamp.h"

#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QHash>
#include <QSet>

#include <utility>

namespace lq::ui {

/// The part of FileWatcher on the watch thread: the QFileSystemWatcher and
/// the paths wanted but not (or no longer) watched.
class WatchEngine : public QObject {
    Q_OBJECT
public:
    /// Made on the watch thread, so its inotify notifier lives there.
    void start() {
        m_watcher = new QFileSystemWatcher(this);
        connect(m_watcher, &QFileSystemWatcher::fileChanged, this, [this](const QString& path) {
            // A file removed or replaced by rename drops out of the watch
            // list: remember it so a later event adds it back.
            if (m_wanted.contains(path) && !m_watcher->files().contains(path)) {
                m_missing.insert(path);
            }
            touch();
        });
        connect(m_watcher, &QFileSystemWatcher::directoryChanged, this, &WatchEngine::touch);
    }
    void add(const QString& path) {
        m_wanted.insert(path);
        // While paused, resume() watches it.
        if (m_paused || !QFileInfo::exists(path) || !m_watcher->addPath(path)) {
            m_missing.insert(path);
        }
    }
    void remove(const QString& path) {
        m_wanted.remove(path);
        m_missing.remove(path);
        m_watcher->removePath(path);
    }
    void clear() {
        const QStringList watched = m_watcher->files() + m_watcher->directories();
        if (!watched.isEmpty()) {
            m_watcher->removePaths(watched);
        }
        m_wanted.clear();
        m_missing.clear();
        m_paused = false;
        m_stamps.clear();
    }
    /// The change was passed on: watch again. A change while not watched
    /// (its stamp moved) is passed on at once.
    void resume() {
        if (m_paused) {
            m_paused = false;
            for (const QString& path : std::as_const(m_wanted)) {
                if (!QFileInfo::exists(path) || !m_watcher->addPath(path)) {
                    m_missing.insert(path);
                }
            }
        }
        m_missing.removeIf([this](const QString& path) {
            return QFileInfo::exists(path) && m_watcher->addPath(path);
        });
        bool moved = false;
        for (auto it = m_stamps.cbegin(); it != m_stamps.cend() && !moved; ++it) {
            moved = !(core::fileStamp(it.key().toStdString()) == it.value());
        }
        m_stamps.clear();
        if (moved) {
            touch();
        }
    }

signals:
    void touched();

private:
    /// A change: passed on once, then the paths are not watched until
    /// resume(). A live file's -wal changes on every write of every
    /// commit (thousands of inotify events a second under a busy worker):
    /// each one took this thread and the UI thread's event loop.
    void touch() {
        if (m_paused) {
            return;
        }
        m_paused = true;
        const QStringList watched = m_watcher->files() + m_watcher->directories();
        for (const QString& path : watched) {
            m_stamps.insert(path, core::fileStamp(path.toStdString()));
        }
        if (!watched.isEmpty()) {
            m_watcher->removePaths(watched);
        }
        emit touched();
    }

    QFileSystemWatcher* m_watcher = nullptr;
    QSet<QString> m_wanted;
    QSet<QString> m_missing; ///< wanted but not on disk (or dropped by the watcher)
    bool m_paused = false;   ///< a change was passed on; not watching until resume()
    QHash<QString, core::FileStamp> m_stamps; ///< of the paths when watching paused
};

namespace {

/// Runs `f` on the engine's thread, after every call queued before it.
template <class F> void onEngine(WatchEngine* engine, F&& f) {
    QMetaObject::invokeMethod(engine, std::forward<F>(f), Qt::QueuedConnection);
}

} // namespace

FileWatcher::FileWatcher(QObject* parent)
    : QObject(parent)
    , m_engine(new WatchEngine) {
    m_thread.setObjectName(QStringLiteral("lq-filewatch"));
    m_engine->moveToThread(&m_thread);
    m_thread.start();
    onEngine(m_engine, [e = m_engine] { e->start(); });
    m_timer.setSingleShot(true);
    // Coalesce a burst of writes (a commit touches the -wal and -shm
    // several times) without delaying what the operator sees.
    m_timer.setInterval(30);
    connect(&m_timer, &QTimer::timeout, this, [this] {
        onEngine(m_engine, [e = m_engine] { e->resume(); });
        emit changed();
    });
    connect(m_engine, &WatchEngine::touched, this, [this] {
        if (!m_timer.isActive()) {
            m_timer.start();
        }
    });
}

FileWatcher::~FileWatcher() {
    m_thread.quit();
    m_thread.wait();
    delete m_engine; // its thread has ended: nothing of it runs any more
}

void FileWatcher::addPath(const QString& path) {
    if (path.isEmpty() || m_refs[path]++ > 0) {
        return;
    }
    onEngine(m_engine, [e = m_engine, path] { e->add(path); });
}

void FileWatcher::removePath(const QString& path) {
    auto it = m_refs.find(path);
    if (it == m_refs.end() || --it.value() > 0) {
        return;
    }
    m_refs.remove(path);
    onEngine(m_engine, [e = m_engine, path] { e->remove(path); });
}

void FileWatcher::clear() {
    if (!m_refs.isEmpty()) {
        onEngine(m_engine, [e = m_engine] { e->clear(); });
    }
    m_refs.clear();
    m_timer.stop();
}

} // namespace lq::ui

#include "filewatcher.moc"
