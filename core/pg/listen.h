// SPDX-License-Identifier: MIT
#pragma once
// Live refresh by LISTEN where the library notifies (issue 41): a session
// of its own waits for the notifications the library sends when a job is
// inserted, so the window reads again at once instead of when the tables'
// write counters (PgQueue::changeMarker) are next published.

#include <atomic>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace lq::core::pg {

class Connection;
struct Found;

/// The channels `lib` notifies on when a job is inserted: River's
/// "<schema>.river_insert" (riverqueue/river@fdf6cdf PGNotifyMany), Oban's
/// "<prefix>.oban_insert" (oban-bg/oban@2939e31 notifiers/postgres.ex),
/// Graphile Worker's "jobs:insert", pg-boss's "pgboss_" and 24 hex digits
/// of the schema name's SHA-224, which `c` computes as pg-boss does
/// (timgit/pg-boss@55ee32f src/plans.ts notifyChannelSql; sent for queues
/// created with notify on), GoodJob's "good_job" (bensheldon/good_job@81db22b7
/// lib/good_job/notifier.rb, sent by its adapter on enqueue; one channel
/// for the whole database); none for Solid Queue (no NOTIFY).
std::vector<std::string> insertChannels(Connection& c, const Found& lib);

/// A session LISTENing on `channels` from a thread of its own: each batch
/// of notifications calls `onChange` (from that thread). A session
/// that fails is opened again a second later. Destroying it wakes and
/// stops the thread at once.
class ChangeListener {
public:
    ChangeListener(std::string url, std::vector<std::string> channels,
                   std::function<void()> onChange);
    ~ChangeListener();
    ChangeListener(const ChangeListener&) = delete;
    ChangeListener& operator=(const ChangeListener&) = delete;

private:
    void run();

    std::string m_url;
    std::vector<std::string> m_channels;
    std::function<void()> m_onChange;
    std::atomic_bool m_stop{false};
    int m_wake[2] = {-1, -1}; ///< a pipe: the destructor's write wakes the thread
    std::thread m_thread;
};

} // namespace lq::core::pg
