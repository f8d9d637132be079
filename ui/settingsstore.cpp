// SPDX-License-Identifier: MIT
#include "ui/settingsstore.h"

#include "ui/runasync.h"

#include <QCoreApplication>
#include <QHash>
#include <QMutex>
#include <QSettings>
#include <QThreadPool>
#include <QTimer>

#include <optional>
#include <utility>
#include <vector>

namespace lq::ui::settings {

namespace {

QSettings file() {
    return QSettings(QStringLiteral("LiteQueue"), QStringLiteral("lqadmin"));
}

/// One change on its way to the file: a value, or a removal (nullopt).
using Change = std::pair<QString, std::optional<QVariant>>;

class Store {
public:
    Store() {
        m_writer.setMaxThreadCount(1); // changes reach the file in order
        m_writer.setObjectName(QStringLiteral("lq settings"));
        // At background priority: a sync of the file took up to 9 ms, and at
        // the UI thread's own priority it took the UI thread's core for it.
        startBackgroundThreads(m_writer);
        m_due.setSingleShot(true);
        m_due.setInterval(kWriteDelayMs);
        QObject::connect(&m_due, &QTimer::timeout, &m_due, [this] { startWrite(); });
        QSettings s = file();
        const QStringList keys = s.allKeys();
        for (const QString& k : keys) {
            m_values.insert(k, s.value(k));
        }
        // The last changes reach the file when the application ends.
        qAddPostRoutine([] { settings::flush(); });
    }

    QVariant value(const QString& key, const QVariant& fallback) const {
        const auto it = m_values.constFind(key);
        return it == m_values.cend() ? fallback : it.value();
    }

    void change(const QString& key, std::optional<QVariant> v) {
        if (v) {
            const auto it = m_values.constFind(key);
            if (it != m_values.cend() && it.value() == *v) {
                return; // unchanged: nothing to write
            }
            m_values.insert(key, *v);
        } else {
            const QString prefix = key + u'/';
            m_values.removeIf(
                [&](const auto& it) { return it.key() == key || it.key().startsWith(prefix); });
        }
        {
            QMutexLocker lock(&m_mutex);
            m_pending.emplace_back(key, std::move(v));
        }
        // A burst of changes (a sort, a column dragged, the views of an open)
        // goes to the file in one sync, a moment later.
        if (!m_due.isActive()) {
            m_due.start();
        }
    }

    QStringList childGroups(const QString& group) const {
        const QString prefix = group.isEmpty() ? QString() : group + u'/';
        QStringList out;
        for (auto it = m_values.cbegin(); it != m_values.cend(); ++it) {
            if (!it.key().startsWith(prefix)) {
                continue;
            }
            const qsizetype slash = it.key().indexOf(u'/', prefix.size());
            if (slash > 0) {
                const QString child = it.key().mid(prefix.size(), slash - prefix.size());
                if (!out.contains(child)) {
                    out.append(child);
                }
            }
        }
        out.sort(); // as QSettings lists them
        return out;
    }

    void flush() {
        if (m_due.isActive()) {
            m_due.stop();
            startWrite();
        }
        m_writer.waitForDone();
    }

private:
    static constexpr int kWriteDelayMs = 300;

    /// Hands what is pending to the writer thread.
    void startWrite() {
        m_writer.start([this] { write(); });
    }

    /// On the writer thread: every change queued so far, in one sync.
    void write() {
        std::vector<Change> changes;
        {
            QMutexLocker lock(&m_mutex);
            changes.swap(m_pending);
        }
        QSettings s = file();
        for (const Change& c : changes) {
            if (c.second) {
                s.setValue(c.first, *c.second);
            } else {
                s.remove(c.first);
            }
        }
        s.sync();
    }

    QHash<QString, QVariant> m_values; // UI thread only
    QTimer m_due;                      // UI thread: a write is due when it fires
    QMutex m_mutex;
    std::vector<Change> m_pending; // guarded by m_mutex
    QThreadPool m_writer;
};

Store& store() {
    static Store s;
    return s;
}

} // namespace

QVariant value(const QString& key, const QVariant& fallback) {
    return store().value(key, fallback);
}

void setValue(const QString& key, const QVariant& value) {
    store().change(key, value);
}

void remove(const QString& key) {
    store().change(key, std::nullopt);
}

QStringList childGroups(const QString& group) {
    return store().childGroups(group);
}

void flush() {
    store().flush();
}

void remember(const QString& key, const QString& item, int max) {
    QStringList list = value(key).toStringList();
    list.removeAll(item);
    list.prepend(item);
    while (list.size() > max)
        list.removeLast();
    setValue(key, list);
}

} // namespace lq::ui::settings
