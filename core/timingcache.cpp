// SPDX-License-Identifier: MIT
#include "timingcache.h"

#include <algorithm>
#include <atomic>

namespace lq::core {

namespace {
template <class T> void appendAll(std::vector<T>& to, const std::vector<T>& from) {
    to.insert(to.end(), from.begin(), from.end());
}

template <class Column> std::vector<std::int64_t> unpacked(const Column& c) {
    return std::vector<std::int64_t>(c.begin(), c.end());
}

/// What every TimingCache of the process keeps, in bytes.
std::atomic<std::size_t> g_processBytes{0};

/// Takes `bytes` of the process's budget; false, nothing taken, past it.
bool reserve(std::size_t bytes) {
    std::size_t now = g_processBytes.load();
    do {
        if (now + bytes > TimingCache::kMaxProcessBytes)
            return false;
    } while (!g_processBytes.compare_exchange_weak(now, now + bytes));
    return true;
}
} // namespace

TimingCache::~TimingCache() {
    release(m_bytes);
}

void TimingCache::release(std::size_t bytes) {
    m_bytes -= bytes;
    g_processBytes -= bytes;
}

std::size_t TimingCache::processBytes() {
    return g_processBytes.load();
}

void appendTiming(TimingColumns& to, const TimingColumns& from) {
    appendAll(to.state, from.state);
    to.inTime.append(from.inTime);
    to.lockTime.append(from.lockTime);
    to.doneTime.append(from.doneTime);
    appendAll(to.attempts, from.attempts);
    to.dueTime.append(from.dueTime);
    appendAll(to.ownStuck, from.ownStuck);
    appendAll(to.extra, from.extra);
    appendQueues(to, from);
    to.changesAt = std::min(to.changesAt, from.changesAt);
}

std::size_t TimingCache::Rows::bytes() const {
    std::size_t names_ = 0;
    for (const std::string& n : names)
        names_ += n.size() + sizeof(std::string);
    return state.size() + ownStuck.size() + extra.size() +
           (in.size() + lock.size() + done.size() + due.size() + attempts.size()) *
               sizeof(std::int64_t) +
           queue.size() * sizeof(std::uint32_t) + names_ + sizeof(Rows);
}

bool TimingCache::appendTo(TimingColumns& to, Range range, bool withQueue, std::uint64_t print,
                           TimeNs now) {
    const std::lock_guard lock(m_mutex);
    const auto it = m_kept.find(Key{withQueue, range.first, range.second});
    // Before the read, a row since fallen due was not; from changesAt on, a
    // row reads otherwise.
    if (it == m_kept.end() || it->second.print != print || now < it->second.readAt ||
        now >= it->second.changesAt)
        return false;
    const Rows& r = it->second;
    to.changesAt = std::min(to.changesAt, r.changesAt);
    appendAll(to.state, r.state);
    appendAll(to.ownStuck, r.ownStuck);
    appendAll(to.extra, r.extra);
    appendAll(to.attempts, r.attempts);
    for (const std::int64_t v : r.in)
        to.inTime.push_back(v);
    for (const std::int64_t v : r.lock)
        to.lockTime.push_back(v);
    for (const std::int64_t v : r.done)
        to.doneTime.push_back(v);
    for (const std::int64_t v : r.due)
        to.dueTime.push_back(v);
    for (const std::uint32_t q : r.queue)
        appendQueueName(to, q == TimingColumns::kNoQueue
                                ? std::nullopt
                                : std::optional<std::string_view>(r.names[q]));
    ++m_hits;
    return true;
}

void TimingCache::dropOverlapping(bool withQueue, Range range) {
    for (auto it = m_kept.begin(); it != m_kept.end();) {
        const auto& [q, lo, hi] = it->first;
        if (q == withQueue && lo <= range.second && range.first <= hi) {
            release(it->second.bytes());
            it = m_kept.erase(it);
        } else {
            ++it;
        }
    }
}

void TimingCache::keep(Range range, bool withQueue, std::uint64_t print, TimeNs readAt,
                       const TimingColumns& rows) {
    Rows r;
    r.print = print;
    r.readAt = readAt;
    r.changesAt = rows.changesAt;
    r.state = rows.state;
    r.ownStuck = rows.ownStuck;
    r.extra = rows.extra;
    r.attempts = rows.attempts;
    r.in = unpacked(rows.inTime);
    r.lock = unpacked(rows.lockTime);
    r.done = unpacked(rows.doneTime);
    r.due = unpacked(rows.dueTime);
    r.queue = rows.queue;
    r.names = rows.queueNames;
    r.state.shrink_to_fit();
    r.ownStuck.shrink_to_fit();
    r.extra.shrink_to_fit();
    r.attempts.shrink_to_fit();
    r.queue.shrink_to_fit();
    const std::size_t bytes = r.bytes();
    const std::lock_guard lock(m_mutex);
    dropOverlapping(withQueue, range);
    if (m_bytes + bytes > kMaxBytes || !reserve(bytes))
        return; // read every time: the memory is worth more than the read
    m_bytes += bytes;
    m_kept.emplace(Key{withQueue, range.first, range.second}, std::move(r));
}

void TimingCache::clear() {
    const std::lock_guard lock(m_mutex);
    m_kept.clear();
    release(m_bytes);
}

std::size_t TimingCache::ranges() const {
    const std::lock_guard lock(m_mutex);
    return m_kept.size();
}

std::size_t TimingCache::rows() const {
    const std::lock_guard lock(m_mutex);
    std::size_t n = 0;
    for (const auto& [key, r] : m_kept)
        n += r.state.size();
    return n;
}

std::uint64_t TimingCache::hits() const {
    const std::lock_guard lock(m_mutex);
    return m_hits;
}

} // namespace lq::core
