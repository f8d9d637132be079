// SPDX-License-Identifier: MIT
#include "pause.h"

#include "timefmt.h"

namespace lq::core {

namespace {

/// A queue's pause as an audit row: the queue name as its id, "paused" or
/// "running" as its status text, the stored values as its format row.
Message pauseMessage(const std::string& queue, const FormatDriver::PauseRow& p) {
    Message m;
    m.messageId = queue;
    m.queueName = queue;
    m.statusText = p.paused ? "paused" : "running";
    m.lockTime = p.since;
    if (!p.stored.empty())
        m.formatRow = p.stored;
    return m;
}

FormatDriver::PauseRow pauseOf(const Message& m) {
    FormatDriver::PauseRow p;
    p.exists = true;
    p.paused = m.statusText == "paused";
    p.since = m.lockTime;
    p.stored = m.formatRow.value_or("");
    return p;
}

std::string pauseShown(const FormatDriver::PauseRow& p) {
    if (!p.paused)
        return "not paused";
    return p.since ? "paused since " + isoUtc(*p.since) : std::string("paused");
}

} // namespace

void pauseQueue(const PauseStore& store, Action a, const std::string& queue, TimeNs t,
                ActionResult& r) {
    const bool pause = a == Action::Pause;
    const FormatDriver::PauseRow before = store.read(queue);
    if (!before.exists) {
        r.skipped.push_back({queue, before.missing, SkipKind::NotApplicable});
        return;
    }
    if (before.paused == pause) {
        r.skipped.push_back({queue, "already " + pauseShown(before), SkipKind::NotApplicable});
        return;
    }
    if (store.write(queue, pause, t) != 1) {
        r.skipped.push_back({queue, "changed while the action ran", SkipKind::Changed});
        return;
    }
    r.applied.push_back({pauseMessage(queue, before), pauseMessage(queue, store.read(queue))});
}

void unpauseQueue(const PauseStore& store, const AppliedRow& row, ActionResult& r) {
    const std::string& queue = row.before.messageId;
    const FormatDriver::PauseRow wrote = pauseOf(row.after);
    const FormatDriver::PauseRow current = store.read(queue);
    if (current.paused != wrote.paused || store.restore(queue, wrote, pauseOf(row.before)) != 1) {
        r.skipped.push_back(
            {queue, "changed since the action: now " + pauseShown(current), SkipKind::Changed});
        return;
    }
    r.applied.push_back({pauseMessage(queue, current), pauseMessage(queue, store.read(queue))});
}

} // namespace lq::core
