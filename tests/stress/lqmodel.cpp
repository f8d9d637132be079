// SPDX-License-Identifier: MIT
// lqmodel: the processes of the model-based operator test (tst_model, issue
// 11). lqcore and the SQLite C API only, no Qt. Every role appends one line
// per event to its own log, line-buffered (one write(2) per line, so a line
// survives a kill -9 of its writer), and tst_model checks the file, the logs
// and the audit log against each other after every operator step.
//
//   lqmodel producer FILE --log F --stop F --id K --seed N
//   lqmodel worker   FILE --log F --stop F --seed N [--tx 1]
//   lqmodel writer   FILE --log F --stop F --seed N
//   lqmodel operator FILE --log F --audit DIR --seed N [--since RECORD] [--broken 1]
//
// Log lines (fields separated by one space):
//   producer  put ID DATA [KEY]             after put/putMany returned
//             conflict KEY
//   worker    claim ID CLAIM                 after pop returned
//             done|retry|fail ID CLAIM OK    after the call returned (OK 0/1)
//             txbegin / txcommit             around a Queue::transaction():
//                                            the lines between them count only
//                                            once txcommit is there
//   writer    xupdate ID DATA                BEFORE the UPDATE (intent)
//             xinsert ID DATA                BEFORE the INSERT (intent)
//             xdelete ID N                   after the DELETE (N rows)
//   operator  carry RECORD ID TOKEN          the token it carried, per target
//             report RECORD ACTION UNDO APPLIED SKIPPED ERROR
//             refused ACTION KIND            after a file replacement
//   any       error KIND MESSAGE             then exit 2
//
// The operator reads one command per line on stdin and answers one line on
// stdout once its log is written: "step" (one random operator action),
// "upgrade" (Operator::upgrade of the legacy file the test made),
// "bulk" (a long chunked run; prints "running" first so the test can kill it
// mid-run), "replace" (renames another queue over the path, then tries every
// write and expects FileChanged), "quit".
//
// LQ_MODEL_BROKEN=1 (or --broken 1) makes the operator, once per step, mark a
// READY message failed through plain SQL without an audit line: the oracle's
// self-check must catch it.

#include "core/actions.h"
#include "core/audit.h"
#include "core/error.h"
#include "core/operator.h"
#include "core/queue.h"
#include "procutil.h"

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <sys/prctl.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

using namespace lq::core;
namespace fs = std::filesystem;

using lqproc::Args;
using lqproc::sleepUs;
using lqproc::stopRequested;

/// One log per process of a run, appended line by line (survives kill -9).
class Log : public lqproc::Log {
public:
    explicit Log(const std::string& path)
        : lqproc::Log(path, "lqmodel", "a") {}
};

std::string word(ErrorKind k) {
    std::string s = errorKindName(k);
    for (char& c : s)
        if (c == ' ')
            c = '-';
    return s;
}

std::string n(std::int64_t v) {
    return std::to_string(v);
}

int producer(const Args& a) {
    Log log(a.str("log"));
    const std::string id = a.str("id", "0");
    const std::string stop = a.str("stop");
    std::mt19937_64 rng(static_cast<std::uint64_t>(a.num("seed", 1)));
    try {
        auto q = Queue::open(a.file);
        std::int64_t i = 0;
        // Keys come from a pool that grows slowly, so keys are reused: some
        // still stored (the put returns the stored message), some pruned
        // since (the put stores a new message under the freed key).
        const auto key = [&] { return "k" + id + "-" + n(rng() % (1 + i / 6)); };
        while (!stopRequested(stop)) {
            sleepUs(2000 + static_cast<std::int64_t>(rng() % 6000));
            const auto dice = rng() % 10;
            try {
                if (dice < 6) {
                    const std::string data = "p" + id + "-" + n(i++);
                    const Message m = q->put(data);
                    log.line("put " + m.messageId + " " + data);
                } else if (dice < 8) {
                    const std::string k = key();
                    const Message m = q->put("d-" + k, k);
                    log.line("put " + m.messageId + " " + m.data + " " + k);
                    ++i;
                } else {
                    std::vector<PutItem> items;
                    const int count = 2 + static_cast<int>(rng() % 3);
                    for (int j = 0; j < count; ++j) {
                        if (j == 0 && rng() % 2) {
                            const std::string k = key();
                            items.push_back({"d-" + k, k});
                        } else {
                            items.push_back({"p" + id + "-" + n(i), {}});
                        }
                        ++i;
                    }
                    for (const Message& m : q->putMany(items))
                        log.line("put " + m.messageId + " " + m.data +
                                 (m.idempotencyKey ? " " + *m.idempotencyKey : std::string()));
                }
            } catch (const IdempotencyConflict&) {
                log.line("conflict");
            }
        }
    } catch (const Error& e) {
        log.line("error " + word(e.kind()) + " " + e.what());
        return 2;
    }
    return 0;
}

int worker(const Args& a) {
    Log log(a.str("log"));
    const std::string stop = a.str("stop");
    const bool txMode = a.num("tx", 0) != 0;
    std::mt19937_64 rng(static_cast<std::uint64_t>(a.num("seed", 1)));
    const auto finish = [&](Queue& q, const Message& m, const std::string& suffix) {
        const auto dice = rng() % 10;
        const char* what = dice < 7 ? "done" : dice < 9 ? "retry" : "fail";
        const bool ok = dice < 7   ? q.done(m.messageId, m.claimId)
                        : dice < 9 ? q.retry(m.messageId, m.claimId)
                                   : q.markFailed(m.messageId, m.claimId);
        log.line(std::string(what) + " " + m.messageId + " " + n(m.claimId) + " " +
                 (ok ? "1" : "0") + suffix);
    };
    try {
        auto q = Queue::open(a.file);
        while (!stopRequested(stop)) {
            if (txMode && rng() % 2 == 0) {
                // pop and finish inside one explicit transaction, holding it
                // a moment: the test kills some of these inside it.
                log.line("txbegin");
                auto tx = q->transaction();
                const auto m = q->pop();
                if (m) {
                    log.line("claim " + m->messageId + " " + n(m->claimId));
                    finish(*q, *m, "");
                }
                std::fputs("intx\n", stdout);
                std::fflush(stdout);
                sleepUs(5000 + static_cast<std::int64_t>(rng() % 20000));
                tx->commit();
                log.line("txcommit");
                if (!m)
                    sleepUs(2000);
                continue;
            }
            const auto m = q->pop();
            if (!m) {
                sleepUs(2000);
                continue;
            }
            log.line("claim " + m->messageId + " " + n(m->claimId));
            sleepUs(static_cast<std::int64_t>(rng() % 4000)); // "work"
            finish(*q, *m, "");
        }
    } catch (const Error& e) {
        log.line("error " + word(e.kind()) + " " + e.what());
        return 2;
    }
    return 0;
}

/// Plain SQL through the C API, as another program on the machine would.
class RawDb {
public:
    explicit RawDb(const std::string& path) {
        if (sqlite3_open_v2(path.c_str(), &m_db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK)
            fail("open");
        sqlite3_busy_timeout(m_db, 10000);
    }
    ~RawDb() { sqlite3_close_v2(m_db); }
    RawDb(const RawDb&) = delete;
    RawDb& operator=(const RawDb&) = delete;

    /// Runs `sql` with text binds; returns the first column of every row.
    std::vector<std::string> exec(const char* sql, const std::vector<std::string>& binds = {}) {
        sqlite3_stmt* st = nullptr;
        if (sqlite3_prepare_v2(m_db, sql, -1, &st, nullptr) != SQLITE_OK)
            fail(sql);
        for (std::size_t i = 0; i < binds.size(); ++i)
            sqlite3_bind_text(st, static_cast<int>(i + 1), binds[i].c_str(), -1, SQLITE_TRANSIENT);
        std::vector<std::string> out;
        int rc;
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            const auto* t = sqlite3_column_text(st, 0);
            out.emplace_back(t ? reinterpret_cast<const char*>(t) : "");
        }
        sqlite3_finalize(st);
        if (rc != SQLITE_DONE)
            fail(sql);
        return out;
    }
    std::int64_t changes() const { return sqlite3_changes(m_db); }

private:
    [[noreturn]] void fail(const char* what) {
        throw Error(ErrorKind::Sqlite, "raw", std::string(what) + ": " + sqlite3_errmsg(m_db));
    }
    sqlite3* m_db = nullptr;
};

int writer(const Args& a) {
    Log log(a.str("log"));
    const std::string stop = a.str("stop");
    std::mt19937_64 rng(static_cast<std::uint64_t>(a.num("seed", 1)));
    try {
        RawDb db(a.file);
        std::int64_t i = 0;
        while (!stopRequested(stop)) {
            sleepUs(5000 + static_cast<std::int64_t>(rng() % 15000));
            if (rng() % 2 == 0) {
                // Rewrite the payload of a READY message without a key.
                const auto ids = db.exec("SELECT message_id FROM Queue WHERE status = 0 AND "
                                         "idempotency_key IS NULL ORDER BY random() LIMIT 1");
                if (ids.empty())
                    continue;
                const std::string data =
                    "x-" + n(static_cast<std::int64_t>(getpid())) + "-" + n(i++);
                log.line("xupdate " + ids[0] + " " + data);
                db.exec("UPDATE Queue SET data = ?2 WHERE message_id = ?1 AND status = 0",
                        {ids[0], data});
            } else {
                // A row inserted, visible a moment, then deleted if still READY.
                const std::string id = "x" + n(static_cast<std::int64_t>(getpid())) + "-" + n(i);
                const std::string data = "xd-" + n(i++);
                log.line("xinsert " + id + " " + data);
                db.exec("INSERT INTO Queue (data, message_id, status, in_time, claim_id) "
                        "VALUES (?2, ?1, 0, CAST(strftime('%s','now') AS INTEGER) * 1000000000, "
                        "0)",
                        {id, data});
                sleepUs(static_cast<std::int64_t>(rng() % 5000));
                db.exec("DELETE FROM Queue WHERE message_id = ?1 AND status = 0 AND claim_id = 0",
                        {id});
                log.line("xdelete " + id + " " + n(db.changes()));
            }
        }
    } catch (const Error& e) {
        log.line("error " + word(e.kind()) + " " + e.what());
        return 2;
    }
    return 0;
}

class OperatorRole {
public:
    explicit OperatorRole(const Args& a)
        : m_log(a.str("log"))
        , m_auditDir(a.str("audit"))
        , m_since(a.str("since"))
        , m_rng(static_cast<std::uint64_t>(a.num("seed", 1)))
        , m_file(a.file) {
        const char* b = std::getenv("LQ_MODEL_BROKEN");
        m_broken = a.num("broken", 0) != 0 || (b && std::strcmp(b, "1") == 0);
    }

    int run() {
        try {
            open();
            std::string cmd;
            while (std::getline(std::cin, cmd)) {
                std::string reply;
                if (cmd == "step")
                    reply = step();
                else if (cmd == "bulk")
                    reply = bulk();
                else if (cmd == "upgrade")
                    reply = upgrade();
                else if (cmd == "replace")
                    reply = replace();
                else if (cmd == "quit")
                    break;
                else
                    reply = "unknown " + cmd;
                std::fputs(("ok " + reply + "\n").c_str(), stdout);
                std::fflush(stdout);
            }
        } catch (const Error& e) {
            m_log.line("error " + word(e.kind()) + " " + e.what());
            std::fputs(("error " + std::string(e.what()) + "\n").c_str(), stdout);
            std::fflush(stdout);
            return 2;
        }
        return 0;
    }

private:
    void open() {
        m_q = Queue::open(m_file);
        m_op = std::make_unique<Operator>(*m_q, "lqmodel", AuditLog(m_auditDir));
    }

    /// Rows of some states as the operator's table shows them, with tokens.
    std::vector<Target> shown(std::vector<State> states, std::size_t pick) {
        Filter f;
        f.states = std::move(states);
        auto rows = m_q->list(f, Sort{}, 0, 40);
        std::shuffle(rows.begin(), rows.end(), m_rng);
        std::vector<Target> out;
        for (const auto& m : rows) {
            if (out.size() >= pick)
                break;
            out.push_back({m.messageId, m.token});
        }
        return out;
    }

    void pause() { sleepUs(static_cast<std::int64_t>(m_rng() % 3000)); }

    std::string logReport(const Report& r, const Plan* p) {
        if (p && !r.recordId.empty())
            for (const Target& t : p->targets)
                m_log.line("carry " + r.recordId + " " + t.messageId + " " + n(t.token));
        m_log.line("report " + (r.recordId.empty() ? std::string("-") : r.recordId) + " " +
                   actionName(r.action) + " " + (r.undo ? "1" : "0") + " " +
                   n(static_cast<std::int64_t>(r.applied())) + " " +
                   n(static_cast<std::int64_t>(r.skipped())) + " " +
                   (r.result.errorKind ? word(*r.result.errorKind) : std::string("-")));
        return std::string(r.undo ? "undo-" : "") + actionName(r.action) + " " +
               n(static_cast<std::int64_t>(r.applied()));
    }

    std::string runPlan(Plan p) {
        p.chunkSize = p.action == Action::RetryExpired ? p.chunkSize : 1 + m_rng() % 4;
        const Report r = m_op->run(p);
        return logReport(r, &p);
    }

    /// Records of this file's lifetime (after --since) that undo can take.
    std::vector<AuditEntry> undoable() {
        std::vector<AuditEntry> out;
        for (auto& e : m_op->records())
            if (e.id > m_since && !e.undone && isUndoable(e.action) && !e.applied.empty() &&
                e.undoneBy.empty())
                out.push_back(std::move(e));
        return out;
    }

    std::string undo(bool last) {
        auto all = undoable();
        if (all.empty())
            return "undo-none";
        const AuditEntry& rec = last ? all.back() : all[m_rng() % all.size()];
        // Operator::record(id) is how an older record is found again.
        const auto found = last ? m_op->lastUndoable() : m_op->record(rec.id);
        if (!found || found->id != rec.id)
            return "undo-mismatch " + rec.id;
        const Report r = m_op->undo(*found);
        m_log.line("undo " + r.recordId + " " + rec.id);
        return logReport(r, nullptr);
    }

    std::string step() {
        if (m_broken && m_steps++ % 3 == 1) {
            if (auto s = brokenWrite(); !s.empty())
                return s;
        }
        const auto dice = m_rng() % 100;
        if (dice < 18) {
            auto t = shown({State::Locked, State::Failed}, 1 + m_rng() % 3);
            pause();
            return runPlan(m_op->planTargets(Action::Retry, std::move(t)));
        }
        if (dice < 32) {
            auto t = shown({State::Locked, State::Ready}, 1 + m_rng() % 3);
            pause();
            return runPlan(m_op->planTargets(Action::MarkFailed, std::move(t)));
        }
        if (dice < 40)
            return runPlan(m_op->planRetryExpired(std::chrono::milliseconds(20 * (m_rng() % 5))));
        if (dice < 52) {
            const bool includeFailed = m_rng() % 2;
            std::optional<std::chrono::nanoseconds> older;
            if (m_rng() % 2)
                older = std::chrono::milliseconds(10 * (m_rng() % 20));
            Plan p = m_op->planPrune(includeFailed, older);
            pause();
            return runPlan(std::move(p));
        }
        if (dice < 66)
            return undo(true);
        if (dice < 76)
            return undo(false);
        if (dice < 79) {
            const Report r = m_op->vacuum();
            return logReport(r, nullptr);
        }
        if (dice < 81) {
            // 0.14 already: a recorded no-op that must change no row.
            const Report r = m_op->upgrade();
            return logReport(r, nullptr);
        }
        // Enqueue, half of them with a key from a small pool (reused).
        std::optional<std::string> key;
        std::string data = "op-" + n(m_enqueued++);
        if (m_rng() % 2) {
            key = "opk-" + n(static_cast<std::int64_t>(m_rng() % 8));
            data = "d-" + *key;
        }
        Message stored;
        try {
            const Report r = m_op->enqueue(data, key, &stored);
            m_log.line("enqueued " + stored.messageId + " " + stored.data);
            return logReport(r, nullptr);
        } catch (const Error& e) {
            m_log.line("enqueue-refused " + word(e.kind()));
            return "enqueue-refused";
        }
    }

    /// The legacy -> 0.14 migration of a file the test made in the legacy
    /// format, before any worker runs (as the action warns).
    std::string upgrade() {
        const std::string from = formatId(m_q->info().format);
        const Report r = m_op->upgrade();
        logReport(r, nullptr);
        return "upgrade " + from + " " + formatId(m_q->info().format) + " " +
               (r.recordId.empty() ? std::string("-") : r.recordId);
    }

    /// A long run in small chunks with a pause between them: the test kills
    /// some of these mid-run and then checks the chunks on record.
    std::string bulk() {
        Filter f;
        f.states = {State::Ready};
        Plan p = m_op->planFilter(Action::MarkFailed, f);
        p.chunkSize = 2;
        std::fputs("running\n", stdout);
        std::fflush(stdout);
        const Report r = m_op->run(p, nullptr, [&](std::size_t, std::size_t) { sleepUs(3000); });
        return logReport(r, &p);
    }

    /// The self-check's fault: a row change with no audit line.
    std::string brokenWrite() {
        std::vector<std::string> touched;
        for (const auto& e : m_op->records())
            for (const auto& r : e.applied)
                touched.push_back(r.before.messageId);
        RawDb db(m_file);
        const auto ids = db.exec("SELECT message_id FROM Queue WHERE status = 0 AND claim_id = 0 "
                                 "ORDER BY message_id DESC LIMIT 50");
        for (const auto& id : ids) {
            if (std::find(touched.begin(), touched.end(), id) != touched.end())
                continue;
            db.exec("UPDATE Queue SET status = 3, done_time = CAST(strftime('%s','now') AS "
                    "INTEGER) * 1000000000 WHERE message_id = ?1 AND status = 0 AND claim_id = 0",
                    {id});
            if (db.changes() == 1)
                return "broken " + id;
        }
        return {};
    }

    /// Renames another queue over the path, then tries every write through
    /// the Queue and Operator opened on the old file: each must be refused
    /// with FileChanged. Then this process exits (the test starts the next
    /// epoch with a new operator).
    std::string replace() {
        const auto targets = shown({State::Locked, State::Ready, State::Failed}, 3);
        const std::string next = m_file + ".next";
        {
            auto other = Queue::create(next);
            other->put("replacement-1");
        }
        // Nothing of the old file may stay in its -wal, which keeps its name
        // next to the new file (everyone else has stopped).
        RawDb(m_file).exec("PRAGMA wal_checkpoint(TRUNCATE)");
        std::error_code ec;
        fs::rename(next, m_file, ec);
        if (ec)
            throw Error(ErrorKind::Io, m_file, "rename: " + ec.message());
        std::int64_t refused = 0, wrong = 0;
        std::string notRefused;
        const auto expect = [&](const char* what,
                                const std::function<std::optional<ErrorKind>()>& f) {
            std::optional<ErrorKind> k;
            try {
                k = f();
            } catch (const Error& e) {
                k = e.kind();
            }
            const bool ok = k && *k == ErrorKind::FileChanged;
            (ok ? refused : wrong) += 1;
            if (!ok)
                notRefused += std::string(" ") + what + ":" + (k ? word(*k) : std::string("none"));
            m_log.line(std::string("refused ") + what + " " + (k ? word(*k) : std::string("none")));
        };
        const auto runKind = [&](const Report& r) { return r.result.errorKind; };
        expect("retry",
               [&] { return runKind(m_op->run(m_op->planTargets(Action::Retry, targets))); });
        expect("mark-failed",
               [&] { return runKind(m_op->run(m_op->planTargets(Action::MarkFailed, targets))); });
        expect("retry-expired", [&] {
            Plan p = m_op->planRetryExpired(std::chrono::nanoseconds{0});
            p.targets = targets; // whatever it listed: the write must be refused
            return runKind(m_op->run(p));
        });
        expect("prune", [&] {
            Plan p = m_op->planPrune(true, {});
            p.targets = targets;
            return runKind(m_op->run(p));
        });
        expect("enqueue", [&]() -> std::optional<ErrorKind> {
            m_op->enqueue("after-replace", std::nullopt);
            return std::nullopt;
        });
        expect("vacuum", [&]() -> std::optional<ErrorKind> {
            m_op->vacuum();
            return std::nullopt;
        });
        // upgrade of a 0.14 file is a no-op that writes nothing to the file
        // (core records it all the same: see tst_model's
        // upgradeAfterReplaceIsRefused). Not counted as a refused write.
        try {
            m_op->upgrade();
            m_log.line("noop upgrade");
        } catch (const Error& e) {
            m_log.line("refused upgrade " + word(e.kind()));
            (e.kind() == ErrorKind::FileChanged ? refused : wrong) += 1;
        }
        expect("undo", [&]() -> std::optional<ErrorKind> {
            auto all = undoable();
            if (all.empty())
                return ErrorKind::FileChanged; // nothing to try
            return runKind(m_op->undo(all.back()));
        });
        m_op.reset();
        m_q.reset();
        // The old file's connections are closed: what they left in the -wal
        // now sits next to the new file and would be replayed into it.
        const auto wal = fs::file_size(m_file + "-wal", ec);
        if (!ec && wal > 0) {
            m_log.line("refused wal " + n(static_cast<std::int64_t>(wal)));
            ++wrong;
            notRefused += " wal:" + n(static_cast<std::int64_t>(wal));
        }
        return "replace " + n(refused) + " " + n(wrong) + notRefused;
    }

    Log m_log;
    std::string m_auditDir;
    std::string m_since;
    std::mt19937_64 m_rng;
    std::string m_file;
    bool m_broken = false;
    std::int64_t m_steps = 0;
    std::int64_t m_enqueued = 0;
    std::unique_ptr<Queue> m_q;
    std::unique_ptr<Operator> m_op;
};

int usage() {
    std::fprintf(stderr,
                 "usage: lqmodel producer|worker|writer|operator FILE [--option value]...\n");
    return 2;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 3)
        return usage();
    // A test that dies (its watchdog, a crash) takes its processes with it:
    // a producer left running would fill /tmp for ever.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() == 1)
        return 2;
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
    if (a.role == "writer")
        return writer(a);
    if (a.role == "operator")
        return OperatorRole(a).run();
    return usage();
}
