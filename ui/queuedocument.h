// SPDX-License-Identifier: MIT
#pragma once

#include "core/actions.h"
#include "core/format.h"

#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QString>

#include <memory>

namespace lq::core {
class QueueBackend;
class QueueFormat;
} // namespace lq::core

namespace lq::ui {

/// The queue open in the window (compare tiled's Document): its path and
/// queue table, the backend that reaches it, its format, whether it is open
/// read-only and whether the file was deleted or replaced since, and whether
/// work on it is running. Views and the action handler read the state here
/// and follow its signals; nothing else keeps a copy.
class QueueDocument : public QObject {
    Q_OBJECT
public:
    /// Work on the document is running while a Busy lives (copies share one
    /// count; the last copy destroyed ends it). Taken by busy(), never
    /// counted by hand.
    class Busy {
    public:
        Busy() = default;
        bool active() const { return m_token != nullptr; }

    private:
        friend class QueueDocument;
        explicit Busy(std::shared_ptr<void> token)
            : m_token(std::move(token)) {}
        std::shared_ptr<void> m_token;
    };

    explicit QueueDocument(QObject* parent = nullptr);
    ~QueueDocument() override;

    /// Opens `path` in a worker; opened() or openFailed() answer. A newer
    /// open (or close()) makes an answer still on its way stale: it is dropped.
    void open(const QString& path, bool readOnly, const QString& table = {});
    /// Shows nothing (a skipped file was picked).
    void close();

    bool isOpen() const { return m_backend != nullptr; }
    std::shared_ptr<core::QueueBackend> backend() const { return m_backend; }
    QString path() const { return m_path; }
    QString table() const { return m_table; }
    QString fileName() const;
    const core::FormatInfo& info() const { return m_info; }
    const core::QueueFormat& format() const;
    /// Why the open queue does not offer `a` ("" when it does): the
    /// backend's answer (core::QueueBackend::whyNot), format and engine.
    std::string whyNot(core::Action a) const;
    /// Open without writing (asked for, not writable, or a read-only format).
    bool readOnly() const { return m_readOnly; }
    /// The file was deleted, replaced or moved since it was opened.
    bool fileGone() const { return m_fileGone; }
    /// Open, not read-only, not gone: writes may be offered.
    bool writable() const { return isOpen() && !m_readOnly && !m_fileGone && m_connected; }
    /// A remote queue's connection is up (always true for a local file).
    bool connected() const { return m_connected; }
    /// Milliseconds since the last open() started.
    qint64 sinceOpenMs() const { return m_openClock.elapsed(); }

    void setFileGone(bool gone);

    [[nodiscard]] Busy busy();
    bool isBusy() const { return m_busy > 0; }

signals:
    /// An open is on its way (the window shows a busy cursor).
    void opening(const QString& path);
    /// A file is open; `samePath` when it was the file already shown (a
    /// reopen, a read-only switch).
    void opened(bool samePath);
    /// The file already shown was opened again (after opened()).
    void reopened();
    void openFailed(const QString& path, const QString& error);
    /// An open() answered (opened, failed or made stale by a newer one).
    void openSettled();
    /// Nothing is shown any more.
    void closed();
    void fileGoneChanged(bool gone);
    void busyChanged(bool busy);
    /// A remote queue's connection dropped (`text` says why) or came back.
    void connectionChanged(bool connected, const QString& text);

private:
    void release();
    void watchConnection();
    void setConnected(bool connected, const QString& text);

    std::shared_ptr<core::QueueBackend> m_backend;
    core::FormatInfo m_info;
    QString m_path;
    QString m_table;
    bool m_readOnly = false;
    bool m_fileGone = false;
    bool m_connected = true;
    quint64 m_generation = 0;
    int m_busy = 0;
    QElapsedTimer m_openClock;
};

} // namespace lq::ui
