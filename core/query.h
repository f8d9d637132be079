// SPDX-License-Identifier: MIT
#pragma once

#include "clock.h"
#include "message.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace lq::core {

/// Exact counts per state. For jobs-lease files `ready/locked` hold
/// READY/LEASED and the derived states are in scheduled/leased/expired.
struct Counts {
    std::int64_t ready = 0;
    std::int64_t locked = 0;
    std::int64_t done = 0;
    std::int64_t failed = 0;
    std::int64_t unknown = 0; ///< rows whose status is none of 0..3
    std::int64_t stuck = 0;   ///< LOCKED with lock age over the stuck threshold
    // jobs-lease
    std::int64_t scheduled = 0;
    std::int64_t leased = 0;
    std::int64_t expired = 0;
    std::int64_t stored = 0; ///< every row
    /// The format's own states (state name -> count), e.g. liteque's
    /// pending_retry. The format says whether one is a subset of a canonical
    /// state (QueueFormat::extraStates()).
    std::map<std::string, std::int64_t> extra;
    /// From the engine's statistics while the exact counts are read
    /// (QueueBackend::estimatedCounts): shown as an estimate, stuck not
    /// counted.
    bool estimated = false;

    std::int64_t active() const { return ready + locked; }
    /// Adds the counts of a disjoint set of rows (a chunk of a scan).
    Counts& operator+=(const Counts& o);
};

/// The counts of a whole queue and of each of its named queues, by name
/// (none for a format without named queues).
struct CountsWithQueues {
    Counts total;
    std::vector<std::pair<std::string, Counts>> queues;
};

/// Which messages a listing, a count or a batch action covers. Every field
/// narrows; a default Filter matches everything. Thresholds are evaluated at
/// the Queue's clock "now" (or `now` if set), so a Filter is fixed once
/// `now` is pinned (docs/ARCHITECTURE.md#how-a-user-action-travels: "the filter is fixed at that
/// moment").
struct Filter {
    std::vector<State> states; ///< empty: any state (unless extraStates is set)
    /// The format's own states by name (QueueFormat::extraStates(), e.g.
    /// Oban's "cancelled"), matched in addition to `states`.
    std::vector<std::string> extraStates;
    bool stuckOnly = false; ///< LOCKED with lock age > stuckAfterNs
    TimeNs stuckAfterNs = kDefaultStuckAfterNs;
    std::string search; ///< substring of message id, idempotency key or payload
    /// A condition on a JSON field of the job ("args.user_id = 42";
    /// core/jsonwhere.h); empty: none.
    std::string where;
    std::optional<std::chrono::nanoseconds> olderThan; ///< age (now - in_time) above this
    std::optional<TimeNs> inTimeFrom;                  ///< in_time >= this
    std::optional<TimeNs> inTimeTo;                    ///< in_time < this
    /// Finished (done_time) strictly before this: prune cutoffs.
    std::optional<TimeNs> doneBefore;
    /// Only rows whose own stored expiry (FormatDriver::expiryColumn,
    /// backlite's expires_at) is at or before this: the library's cleaner.
    std::optional<TimeNs> expiredAt;
    /// A latency band, for "click a histogram bar": metric in [lo, hi).
    enum class Metric { None, Wait, Processing, Total, TimeToFailure };
    Metric metric = Metric::None;
    TimeNs metricLo = 0;
    TimeNs metricHi = 0;
    std::optional<TimeNs> now; ///< pinned "now"; unset: the queue's clock
    /// Only this named queue (Queue::queueNames()); empty: every queue.
    std::string queue;
};

/// Sort keys of the message table. Ties break on rowid, so order is stable.
enum class SortKey {
    Arrival, ///< message_id (litequeue pop order) / run_at for jobs-lease
    InTime,
    LockTime,
    DoneTime,
    Wait,
    Processing,
    Age, ///< same rows as InTime, reversed meaning
    Claim,
    Status,
};

struct Sort {
    SortKey key = SortKey::Arrival;
    bool descending = false;
};

/// The jobs `ids` in their order, fetched `batch` at a time by `fetch` (ids
/// → messages) and each handed to `fn`: one rule for every reader that walks
/// an ordering of any size (a failure grouping, a plan of a whole filter).
template <class Fetch, class Fn>
void forEachFetched(const std::vector<std::int64_t>& ids, Fetch&& fetch, Fn&& fn,
                    std::size_t batch = 500) {
    for (std::size_t i = 0; i < ids.size(); i += batch) {
        const std::vector<std::int64_t> part(
            ids.begin() + static_cast<std::ptrdiff_t>(i),
            ids.begin() + static_cast<std::ptrdiff_t>(std::min(ids.size(), i + batch)));
        for (const Message& m : fetch(part))
            fn(m);
    }
}

} // namespace lq::core
