// SPDX-License-Identifier: MIT
#pragma once

// PacedRead: the reads of one tab view (Failures, Processes, Recurring,
// Queues) off the UI thread, with the rules they share. Never two at once: a
// read asked for while one runs runs once more after it. A change of the
// file reads again once the pace allows (core::ReadPacer: what the file's
// reads cost, in its journal mode). A view that reads only while shown marks
// itself stale instead and reads when shown. A read of a file since closed
// or replaced is dropped, and the open file is read instead.
//
//     void View::refresh() {
//         const auto q = m_doc->backend();
//         if (!q) return;
//         const auto ticket = m_read.begin(isVisible());
//         if (!ticket) return;
//         runAsync(this, [q] { return read(*q); },
//                  [this, t = *ticket](Result r) { if (m_read.end(t)) apply(r); });
//     }

#include "core/pacing.h"

#include <QtGlobal>

#include <functional>
#include <optional>
#include <string>

class QObject;
class QTimer;

namespace lq::ui {

class PacedRead {
public:
    /// `refresh`: the view's read (called when the pace allows, and after a
    /// read that was asked for again while it ran). `onlyWhileShown`: a
    /// hidden view marks itself stale instead of reading.
    PacedRead(QObject* owner, std::function<void()> refresh, bool onlyWhileShown);
    PacedRead(const PacedRead&) = delete;
    PacedRead& operator=(const PacedRead&) = delete;

    /// A queue was opened, paced by its backend's factor
    /// (core::QueueBackend::readPacingFactor): a read in flight is for
    /// another queue.
    void opened(std::int64_t pacingFactor);
    /// The file was closed.
    void closed();
    /// The file changed: the view's refresh now, or once the pace allows.
    void changed();
    /// No read runs, is asked for again, or waits for the pace.
    bool idle() const;
    /// Hidden when a read was due: to read when shown.
    bool stale() const { return m_stale; }

    struct Ticket {
        quint64 generation = 0;
        core::TimeNs start = 0;
    };
    /// A read may start now (the view starts it and calls end()); nullopt
    /// while one runs (it runs again after) or while hidden (`visible`
    /// false, onlyWhileShown: stale). Stops a pending paced read.
    std::optional<Ticket> begin(bool visible);
    /// The read of `t` ended (on the UI thread). True when its result is for
    /// the file open now; a read asked for meanwhile runs next.
    bool end(const Ticket& t);

private:
    QObject* m_owner;
    std::function<void()> m_refresh;
    bool m_onlyWhileShown;
    QTimer* m_timer;
    core::ReadPacer m_pacer;
    quint64 m_generation = 0;
    bool m_busy = false;
    bool m_again = false;
    bool m_stale = false;
};

} // namespace lq::ui
