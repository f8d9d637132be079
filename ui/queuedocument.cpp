// SPDX-License-Identifier: MIT
#include "ui/queuedocument.h"

#include "core/backend.h"
#include "core/formats/queueformat.h"
#include "ui/queuesettings.h"
#include "ui/runasync.h"
#include "ui/uitext.h"

#include <QFileInfo>

namespace lq::ui {

QueueDocument::QueueDocument(QObject* parent)
    : QObject(parent) {}

QueueDocument::~QueueDocument() = default;

const core::QueueFormat& QueueDocument::format() const {
    return core::QueueFormat::of(m_info);
}

std::string QueueDocument::whyNot(core::Action a) const {
    if (!m_backend)
        return "no queue is open";
    return m_backend->whyNot(a);
}

QString QueueDocument::fileName() const {
    return fromStd(core::shortName(toStd(m_path)));
}

QueueDocument::Busy QueueDocument::busy() {
    if (++m_busy == 1) {
        emit busyChanged(true);
    }
    QPointer<QueueDocument> self(this);
    return Busy(std::shared_ptr<void>(nullptr, [self](void*) {
        if (self) {
            self->release();
        }
    }));
}

void QueueDocument::release() {
    if (--m_busy == 0) {
        emit busyChanged(false);
    }
}

void QueueDocument::setFileGone(bool gone) {
    if (gone == m_fileGone) {
        return;
    }
    m_fileGone = gone;
    emit fileGoneChanged(gone);
}

void QueueDocument::open(const QString& path, bool readOnly, const QString& table) {
    struct Result {
        std::shared_ptr<core::QueueBackend> backend;
        QString error;
    };
    const quint64 gen = ++m_generation;
    m_openClock.start();
    emit opening(path);
    runAsync(
        this,
        [path, readOnly, table, settings = storedQueueSettings(path)]() -> Result {
            Result r;
            try {
                core::BackendOptions o;
                o.readOnly = readOnly;
                o.table = toStd(table);
                o.settings = settings;
                r.backend = core::openBackend(toStd(path), o);
            } catch (const std::exception& e) {
                r.error = QString::fromUtf8(e.what());
            }
            return r;
        },
        [this, gen, path, busy = busy()](const Result& r) mutable {
            const Busy held = std::move(busy);
            emit openSettled();
            if (gen != m_generation) {
                return;
            }
            if (!r.error.isEmpty()) {
                emit openFailed(path, r.error);
                return;
            }
            const bool samePath = path == m_path;
            m_backend = r.backend;
            watchConnection();
            m_info = m_backend->info();
            m_readOnly = m_backend->readOnly();
            m_path = path;
            m_table = fromStd(m_info.table);
            setFileGone(false);
            emit opened(samePath);
            if (samePath) {
                emit reopened();
            }
        });
}

void QueueDocument::watchConnection() {
    setConnected(true, {});
    QPointer<QueueDocument> self(this);
    std::weak_ptr<core::QueueBackend> weak = m_backend;
    m_backend->setConnectionListener([self, weak](bool connected, const std::string& text) {
        QMetaObject::invokeMethod(
            self.data(),
            [self, weak, connected, text] {
                if (self && self->m_backend && self->m_backend == weak.lock()) {
                    self->setConnected(connected, fromStd(text));
                }
            },
            Qt::QueuedConnection);
    });
}

void QueueDocument::setConnected(bool connected, const QString& text) {
    if (connected == m_connected) {
        return;
    }
    m_connected = connected;
    emit connectionChanged(connected, text);
}

void QueueDocument::close() {
    ++m_generation; // an open still running must not land over this
    if (m_backend) {
        m_backend->setConnectionListener({});
    }
    m_backend.reset();
    setConnected(true, {});
    m_info = {};
    m_readOnly = false;
    m_fileGone = false;
    m_path.clear();
    m_table.clear();
    emit closed();
}

} // namespace lq::ui
