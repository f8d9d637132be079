// SPDX-License-Identifier: MIT
// lqstress: the processes of the stress, crash and hostile-file suites. lqcore
// (and, for `hold`, the SQLite C API) only, no Qt: each role does what a real
// producer, worker or operator does, and logs every outcome, one line each,
// with CLOCK_MONOTONIC timestamps (system-wide, so lines from different
// processes compare), so that tst_stress can check the whole history.
//
//   lqstress producer FILE --id K --log F [--count N] [--stop F] [--pause-us N]
//   lqstress worker   FILE --log F [--stop F] [--idle-ms N] [--seed N]
//   lqstress operator FILE --log F --audit DIR [--stop F] [--seed N]
//   lqstress batch    FILE --hold-ms N
//   lqstress hold     FILE --ms N
//
// Log lines (fields separated by one space; s/e: monotonic ns just before
// the call and just after it returned):
//   producer  put ID PAYLOAD
//   worker    claim ID CLAIM S E
//             done|retry|fail ID CLAIM OK(0/1) S E
//   operator  apply ACTION APPLIED SKIPPED STALE S E [CUTOFF]
//             row ACTION ID BEFORE_STATUS CLAIM AFTER_STATUS DONE_TIME S E
//             undo ACTION APPLIED SKIPPED S E
//             unrow ACTION ID RESTORED_STATUS CLAIM S E
//             expired N | vacuum BEFORE AFTER
//   any       error KIND MESSAGE   (then exit 2)
// Every process exits 0 when it stopped as asked.

#include "core/actions.h"
#include "core/audit.h"
#include "core/error.h"
#include "core/queue.h"
#include "procutil.h"

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

using lqproc::Args;
using lqproc::Log;
using lqproc::mono;
using lqproc::sleepUs;
using lqproc::stopRequested;

using namespace lq::core;
namespace fs = std::filesystem;

const char* kindWord(ErrorKind k) {
    // One token for the log ("busy", "damaged", ...): spaces become '-'.
    static thread_local std::string s;
    s = errorKindName(k);
    for (char& c : s)
        if (c == ' ')
            c = '-';
    return s.c_str();
}

/// The shared options of every role that touches the queue: the default busy
/// timeout, exactly what a real worker would use.
OpenOptions queueOptions() {
    return OpenOptions{};
}

int producer(const Args& a) {
    Log log(a.str("log"), "lqstress");
    const std::int64_t id = a.num("id", 0);
    const std::int64_t count = a.num("count", 0); // 0: until the stop file appears
    const std::string stop = a.str("stop");
    const std::int64_t pauseUs = a.num("pause-us", 0);
    std::mt19937_64 rng(static_cast<std::uint64_t>(a.num("seed", getpid())));
    try {
        auto q = Queue::open(a.file, queueOptions());
        std::int64_t i = 0;
        while ((count == 0 || i < count) && !stopRequested(stop)) {
            if (pauseUs > 0)
                sleepUs(static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(pauseUs + 1)));
            // Every tenth round is a put_many of five: batches contend too.
            if (i % 10 == 9) {
                std::vector<PutItem> items;
                for (int k = 0; k < 5; ++k)
                    items.push_back({"p" + std::to_string(id) + "-" + std::to_string(i + k), {}});
                const auto put = q->putMany(items);
                for (const auto& m : put)
                    log.line("put %s %s", m.messageId.c_str(), m.data.c_str());
                i += 5;
            } else {
                const std::string payload = "p" + std::to_string(id) + "-" + std::to_string(i);
                const Message m = q->put(payload);
                log.line("put %s %s", m.messageId.c_str(), m.data.c_str());
                ++i;
            }
        }
    } catch (const Error& e) {
        log.line("error %s %s", kindWord(e.kind()), e.what());
        return 2;
    }
    return 0;
}

int worker(const Args& a) {
    Log log(a.str("log"), "lqstress");
    const std::string stop = a.str("stop");
    const std::int64_t idleMs = a.num("idle-ms", 0);
    std::mt19937_64 rng(static_cast<std::uint64_t>(a.num("seed", getpid())));
    try {
        auto q = Queue::open(a.file, queueOptions());
        std::int64_t idleSince = mono();
        while (!stopRequested(stop)) {
            std::int64_t s = mono();
            const auto m = q->pop();
            std::int64_t e = mono();
            if (!m) {
                if (idleMs > 0 && e - idleSince > idleMs * 1'000'000)
                    break;
                sleepUs(1000);
                continue;
            }
            idleSince = e;
            log.line("claim %s %lld %lld %lld", m->messageId.c_str(),
                     static_cast<long long>(m->claimId), static_cast<long long>(s),
                     static_cast<long long>(e));
            sleepUs(static_cast<std::int64_t>(rng() % 2001)); // "work": 0-2 ms
            const auto dice = rng() % 100;
            const char* what = dice < 90 ? "done" : dice < 95 ? "retry" : "fail";
            s = mono();
            const bool ok = dice < 90   ? q->done(m->messageId, m->claimId)
                            : dice < 95 ? q->retry(m->messageId, m->claimId)
                                        : q->markFailed(m->messageId, m->claimId);
            e = mono();
            log.line("%s %s %lld %d %lld %lld", what, m->messageId.c_str(),
                     static_cast<long long>(m->claimId), ok ? 1 : 0, static_cast<long long>(s),
                     static_cast<long long>(e));
        }
    } catch (const Error& e) {
        log.line("error %s %s", kindWord(e.kind()), e.what());
        return 2;
    }
    return 0;
}

bool isStale(const SkippedRow& r) {
    // Every target was valid when shown, so a skip means the row moved on
    // between list and apply: another claim ("changed since shown"), another
    // state under the same claim ("is READY: retry applies to ..."), or gone.
    return r.reason.find("does not apply") == std::string::npos &&
           r.reason.find("unknown status") == std::string::npos;
}

class Operator {
public:
    Operator(const Args& a)
        : m_log(a.str("log"), "lqstress")
        , m_stop(a.str("stop"))
        , m_audit(a.str("audit"))
        , m_rng(static_cast<std::uint64_t>(a.num("seed", getpid())))
        , m_file(a.file) {}

    int run() {
        try {
            m_q = Queue::open(m_file, queueOptions());
            for (std::int64_t round = 0; !stopRequested(m_stop); ++round)
                step(round);
        } catch (const Error& e) {
            m_log.line("error %s %s", kindWord(e.kind()), e.what());
            return 2;
        }
        return 0;
    }

private:
    /// A few rows of one state as the operator's table would show them.
    std::vector<Target> shown(State s, std::int64_t limit, std::size_t pick) {
        Filter f;
        f.states = {s};
        auto rows = m_q->list(f, Sort{}, 0, limit);
        std::shuffle(rows.begin(), rows.end(), m_rng);
        std::vector<Target> out;
        for (const auto& m : rows) {
            if (out.size() >= pick)
                break;
            out.push_back({m.messageId, m.token});
        }
        return out;
    }

    void act(Action action, const std::vector<Target>& targets, std::optional<TimeNs> cutoff = {}) {
        if (targets.empty())
            return;
        const std::int64_t s = mono();
        ActionResult r = m_q->apply(action, targets);
        const std::int64_t e = mono();
        std::int64_t stale = 0;
        for (const auto& k : r.skipped)
            stale += isStale(k) ? 1 : 0;
        m_log.line("apply %s %zu %zu %lld %lld %lld %lld", actionName(action), r.applied.size(),
                   r.skipped.size(), static_cast<long long>(stale), static_cast<long long>(s),
                   static_cast<long long>(e), static_cast<long long>(cutoff.value_or(0)));
        for (const auto& row : r.applied)
            m_log.line("row %s %s %lld %lld %lld %lld %lld %lld", actionName(action),
                       row.before.messageId.c_str(), static_cast<long long>(row.before.rawStatus),
                       static_cast<long long>(row.before.token),
                       static_cast<long long>(action == Action::Prune ? -1 : row.after.rawStatus),
                       static_cast<long long>(row.before.doneTime.value_or(-1)),
                       static_cast<long long>(s), static_cast<long long>(e));
        if (!r.applied.empty()) {
            AuditEntry entry;
            entry.when = m_q->now();
            entry.queuePath = m_q->path();
            entry.action = action;
            entry.tool = "lqstress";
            entry.applied = std::move(r.applied);
            entry.skipped = static_cast<std::int64_t>(r.skipped.size());
            m_audit.append(entry);
        }
    }

    /// "Undo last action", through the audit log as lqadmin does it.
    void undoLast() {
        auto last = m_audit.lastUndoable(m_q->path());
        if (!last)
            return;
        const std::int64_t s = mono();
        ActionResult r = m_q->undo(last->action, last->applied);
        const std::int64_t e = mono();
        m_log.line("undo %s %zu %zu %lld %lld", actionName(last->action), r.applied.size(),
                   r.skipped.size(), static_cast<long long>(s), static_cast<long long>(e));
        for (const auto& row : r.applied)
            m_log.line("unrow %s %s %lld %lld %lld %lld", actionName(last->action),
                       row.after.messageId.c_str(), static_cast<long long>(row.after.rawStatus),
                       static_cast<long long>(row.after.token), static_cast<long long>(s),
                       static_cast<long long>(e));
        AuditEntry entry;
        entry.when = m_q->now();
        entry.queuePath = m_q->path();
        entry.action = last->action;
        entry.tool = "lqstress";
        entry.applied = std::move(r.applied);
        entry.skipped = static_cast<std::int64_t>(r.skipped.size());
        entry.undone = true;
        m_audit.append(entry);
    }

    void pause() { sleepUs(static_cast<std::int64_t>(m_rng() % 3001)); }

    void step(std::int64_t round) {
        // Shown, then acted on a moment later: some of these go stale. Only a
        // few LOCKED rows per round, so retry_expired has stuck ones to do.
        auto locked = shown(State::Locked, 20, 1);
        pause();
        act(Action::Retry, locked);

        auto failed = shown(State::Failed, 20, 3);
        pause();
        act(Action::Retry, failed);

        if (round % 4 == 0) {
            auto lockedToFail = shown(State::Locked, 20, 1);
            auto ready = shown(State::Ready, 20, 1);
            lockedToFail.insert(lockedToFail.end(), ready.begin(), ready.end());
            pause();
            act(Action::MarkFailed, lockedToFail);
        }

        m_log.line("expired %lld",
                   static_cast<long long>(m_q->retryExpired(std::chrono::milliseconds(500))));

        if (round % 3 == 0) {
            // Prune with a cutoff fixed now, as the prune dialog does.
            Filter f;
            f.states = {State::Done, State::Failed};
            f.doneBefore = m_q->now() - kNsPerSecond;
            f.now = m_q->now();
            const auto targets = m_q->targetsFor(f);
            act(Action::Prune, targets, f.doneBefore);
        }

        if (round % 25 == 24) {
            const auto [before, after] = m_q->vacuum();
            m_log.line("vacuum %lld %lld", static_cast<long long>(before),
                       static_cast<long long>(after));
        }

        if (m_rng() % 3 == 0)
            undoLast();

        sleepUs(20'000 + static_cast<std::int64_t>(m_rng() % 20'000));
    }

    Log m_log;
    std::string m_stop;
    AuditLog m_audit;
    std::mt19937_64 m_rng;
    std::string m_file;
    std::unique_ptr<Queue> m_q;
};

/// A long operator batch inside one transaction, for the kill -9 test: the
/// test kills this process after "inside" and checks that none of it shows.
int batch(const Args& a) {
    const std::int64_t holdMs = a.num("hold-ms", 2000);
    try {
        auto q = Queue::open(a.file, queueOptions());
        std::size_t changed = 0;
        {
            auto tx = q->transaction();
            Filter locked;
            locked.states = {State::Locked};
            // Small chunks: several chunk "transactions" nest inside this one.
            ActionOptions o;
            o.chunkSize = 50;
            changed += q->apply(Action::Retry, q->targetsFor(locked), o).applied.size();
            Filter ready;
            ready.states = {State::Ready};
            changed += q->apply(Action::MarkFailed, q->targetsFor(ready), o).applied.size();
            std::printf("inside %zu\n", changed);
            std::fflush(stdout);
            std::this_thread::sleep_for(std::chrono::milliseconds(holdMs));
            tx->commit();
        }
        std::printf("committed %zu\n", changed);
    } catch (const Error& e) {
        std::printf("error %s %s\n", kindWord(e.kind()), e.what());
        return 2;
    }
    return 0;
}

/// Holds FILE under an exclusive lock (raw SQLite, as another program
/// would) for `--ms`, for the hostile "locked by another process" case.
int hold(const Args& a) {
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(a.file.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
        std::printf("error %s\n", sqlite3_errmsg(db));
        sqlite3_close_v2(db);
        return 2;
    }
    char* err = nullptr;
    if (sqlite3_exec(db, "BEGIN EXCLUSIVE", nullptr, nullptr, &err) != SQLITE_OK) {
        std::printf("error %s\n", err ? err : "BEGIN EXCLUSIVE failed");
        sqlite3_free(err);
        sqlite3_close_v2(db);
        return 2;
    }
    std::printf("locked\n");
    std::fflush(stdout);
    std::this_thread::sleep_for(std::chrono::milliseconds(a.num("ms", 5000)));
    sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_close_v2(db);
    return 0;
}

int usage() {
    std::fprintf(stderr, "usage: lqstress producer|worker|operator|batch|hold FILE [--option "
                         "value]...\n");
    return 2;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 3)
        return usage();
    Args a;
    a.role = argv[1];
    a.file = argv[2];
    for (int i = 3; i + 1 < argc; i += 2) {
        if (std::strncmp(argv[i], "--", 2) != 0)
            return usage();
        a.opts[argv[i] + 2] = argv[i + 1];
    }
    if (a.role == "producer")
        return producer(a);
    if (a.role == "worker")
        return worker(a);
    if (a.role == "operator")
        return Operator(a).run();
    if (a.role == "batch")
        return batch(a);
    if (a.role == "hold")
        return hold(a);
    return usage();
}
