// SPDX-License-Identifier: MIT
#include "ui/pacedread.h"

#include <QObject>
#include <QTimer>

#include <algorithm>
#include <climits>
#include <utility>

namespace lq::ui {

PacedRead::PacedRead(QObject* owner, std::function<void()> refresh, bool onlyWhileShown)
    : m_owner(owner)
    , m_refresh(std::move(refresh))
    , m_onlyWhileShown(onlyWhileShown)
    , m_timer(new QTimer(owner)) {
    m_timer->setSingleShot(true);
    QObject::connect(m_timer, &QTimer::timeout, owner, [this] { m_refresh(); });
}

void PacedRead::opened(std::int64_t pacingFactor) {
    ++m_generation;
    m_timer->stop();
    m_pacer.reset();
    m_pacer.setFactor(pacingFactor);
}

void PacedRead::closed() {
    ++m_generation;
    m_timer->stop();
    m_stale = false;
}

void PacedRead::changed() {
    const core::TimeNs wait = m_pacer.waitAt(core::steadyNowNs());
    if (wait <= 0) {
        m_refresh();
    } else if (!m_timer->isActive()) {
        m_timer->start(int(std::min<core::TimeNs>(wait / 1'000'000 + 1, INT_MAX)));
    }
}

bool PacedRead::idle() const {
    return !m_busy && !m_again && !m_timer->isActive();
}

std::optional<PacedRead::Ticket> PacedRead::begin(bool visible) {
    m_timer->stop();
    if (m_onlyWhileShown && !visible) {
        m_stale = true; // a hidden tab costs nothing; it catches up when shown
        return std::nullopt;
    }
    m_stale = false;
    if (m_busy) {
        m_again = true;
        return std::nullopt;
    }
    m_busy = true;
    m_again = false;
    return Ticket{m_generation, core::steadyNowNs()};
}

bool PacedRead::end(const Ticket& t) {
    m_busy = false;
    m_pacer.ran(t.start, core::steadyNowNs());
    const bool current = t.generation == m_generation;
    if (!current || std::exchange(m_again, false)) {
        // After the caller applied this result: the next read starts then.
        QTimer::singleShot(0, m_owner, [this] { m_refresh(); });
    }
    return current;
}

} // namespace lq::ui
