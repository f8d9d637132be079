// SPDX-License-Identifier: MIT
#pragma once

// The oracle of the jobs-lease stress runs (tst_stress jobsLease*): reads the
// logs of lqjobstress's producers, workers, operator and final drain, and the
// rows left in the file, and checks the history. See tst_stress.cpp for what
// is checked and why each check is sound.

#include <QByteArray>
#include <QFile>
#include <QFileInfo>
#include <QList>
#include <QString>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace lqstress::jobs {

struct Claim {
    std::int64_t attempts;
    double now, until; ///< the seed's time.time() and locked_until, as bound
    std::int64_t s, e;
    std::string who; ///< log file name
};

/// A worker's guarded write (finish or retry_later) with its claim's attempts.
struct WorkerWrite {
    bool finish; ///< false: retry_later
    std::int64_t attempts;
    bool ok;
    bool slow;
    std::int64_t s, e;
};

struct OpRow {
    std::string action;
    std::int64_t carried, before;
    std::string state;
    std::int64_t s, e;
    std::string who; ///< log file name
};

struct Unrow {
    std::string action;
    std::int64_t token, s, e;
};

struct FileRow {
    std::string payload;
    std::int64_t attempts;
};

struct Logs {
    std::unordered_map<std::string, std::string> puts; ///< id -> payload
    std::int64_t duplicatePuts = 0;
    std::unordered_map<std::string, std::vector<Claim>> claims;
    std::unordered_map<std::string, std::vector<WorkerWrite>> writes;
    std::unordered_map<std::string, std::vector<OpRow>> opRows;
    std::unordered_map<std::string, std::vector<Unrow>> unrows;
    /// A killed worker's last line was this claim: its finish or retry_later
    /// may have committed without a log line.
    std::set<std::pair<std::string, std::int64_t>> maybeWritten;
    std::vector<std::string> errors;
    std::int64_t abandoned = 0, opCalls = 0, opApplied = 0, opSkipped = 0, opStale = 0;
    std::int64_t undoCalls = 0, undoApplied = 0, undoSkipped = 0;
    std::map<std::string, std::int64_t> appliedBy;     ///< action -> rows
    std::map<std::string, std::int64_t> undoneBy;      ///< action -> rows
    std::map<std::string, std::int64_t> undoSkippedBy; ///< action -> rows that moved on
    std::int64_t lines = 0;
};

inline std::vector<std::string> words(const std::string& line, std::size_t max = 0) {
    std::vector<std::string> out;
    std::size_t i = 0;
    while (i <= line.size()) {
        if (max && out.size() + 1 == max) {
            out.push_back(line.substr(i));
            break;
        }
        const std::size_t j = line.find(' ', i);
        out.push_back(line.substr(i, j == std::string::npos ? std::string::npos : j - i));
        if (j == std::string::npos)
            break;
        i = j + 1;
    }
    return out;
}

inline std::int64_t num(const std::string& s) {
    return std::stoll(s);
}

inline double real(const std::string& s) {
    return std::stod(s);
}

/// Adds one process's log. `killed`: the process was killed with SIGKILL.
inline void parse(const QString& path, bool killed, Logs& h) {
    QFile f(path);
    const std::string name = QFileInfo(path).fileName().toStdString();
    if (killed && !f.exists())
        return; // killed before it had opened its log
    if (!f.open(QIODevice::ReadOnly)) {
        h.errors.push_back("cannot read " + name);
        return;
    }
    const QList<QByteArray> lines = f.readAll().split('\n');
    if (killed) {
        for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
            if (it->isEmpty())
                continue;
            const auto w = words(it->toStdString());
            if (w[0] == "claim" && w.size() == 7)
                h.maybeWritten.insert({w[1], num(w[2])});
            break;
        }
    }
    for (const QByteArray& raw : lines) {
        if (raw.isEmpty())
            continue;
        ++h.lines;
        const std::string line = raw.toStdString();
        auto w = words(line);
        const std::string k = w[0];
        try {
            if (k == "error" || k == "stuck") {
                h.errors.push_back(name + ": " + line);
            } else if (k == "put" && w.size() == 6) {
                if (!h.puts.emplace(w[1], w[2]).second)
                    ++h.duplicatePuts;
            } else if (k == "claim" && w.size() == 7) {
                h.claims[w[1]].push_back(
                    {num(w[2]), real(w[3]), real(w[4]), num(w[5]), num(w[6]), name});
            } else if (k == "finish" && w.size() == 7) {
                h.writes[w[1]].push_back(
                    {true, num(w[2]), w[3] == "1", w[4] == "1", num(w[5]), num(w[6])});
            } else if (k == "later" && w.size() == 7) {
                h.writes[w[1]].push_back(
                    {false, num(w[2]), w[3] == "1", false, num(w[5]), num(w[6])});
            } else if (k == "abandon" && w.size() == 3) {
                ++h.abandoned;
            } else if (k == "apply" && w.size() == 7) {
                ++h.opCalls;
                h.opApplied += num(w[2]);
                h.opSkipped += num(w[3]);
                h.opStale += num(w[4]);
            } else if (k == "row" && w.size() == 8) {
                h.opRows[w[2]].push_back(
                    {w[1], num(w[3]), num(w[4]), w[5], num(w[6]), num(w[7]), name});
                ++h.appliedBy[w[1]];
            } else if (k == "skip" && (w = words(line, 7)).size() == 7) {
                // Reasons are checked by Queue's own tests; the row stays as it was.
            } else if (k == "undo" && w.size() == 6) {
                ++h.undoCalls;
                h.undoApplied += num(w[2]);
                h.undoSkipped += num(w[3]);
                h.undoSkippedBy[w[1]] += num(w[3]);
            } else if (k == "unrow" && w.size() == 6) {
                h.unrows[w[2]].push_back({w[1], num(w[3]), num(w[4]), num(w[5])});
                ++h.undoneBy[w[1]];
            } else {
                h.errors.push_back("malformed log line in " + name + ": " + line);
            }
        } catch (const std::exception&) {
            h.errors.push_back("malformed log line in " + name + ": " + line);
        }
    }
}

struct Verdict {
    std::vector<std::string> violations;
    std::int64_t claims = 0, finished = 0, later = 0, refused = 0, slowRefused = 0;
    std::int64_t lapsedReclaimed = 0;   ///< claims of a job whose previous lease had lapsed
    std::int64_t releasedLive = 0;      ///< operator Release rows taken from a live lease
    std::int64_t unloggedClaims = 0;    ///< attempts nobody logged (killed after COMMIT)
    std::int64_t unloggedWrites = 0;    ///< jobs gone with no logged finish (killed after COMMIT)
    std::int64_t deletedByOperator = 0; ///< jobs whose last removal was an operator Delete
    std::int64_t lost = 0, finishedTwice = 0, staleApplied = 0, stolen = 0;
    std::int64_t killedHeld = 0;          ///< jobs a worker held when it was killed
    std::int64_t killedHeldReclaimed = 0; ///< ... claimed again by another worker
    std::int64_t killedHeldOperator = 0;  ///< ... released, rescheduled or deleted first
    std::int64_t killedHeldDrained = 0;   ///< ... still in the file after the run, claimed by the
                                          ///< drain (after a lapse or the final Release)
    std::int64_t killedHeldWritten = 0;   ///< ... finished just before the kill

    void violate(std::string s) { violations.push_back(std::move(s)); }
};

inline bool isRemoval(const OpRow& r) {
    return r.action == "delete";
}

/// Checks the history against the rows left in the file (none after the
/// final drain); `kills`: how many workers were killed.
inline Verdict check(const Logs& h, const std::unordered_map<std::string, FileRow>& rows,
                     int kills) {
    Verdict v;
    const auto opRowsOf = [&](const std::string& id) -> const std::vector<OpRow>* {
        auto it = h.opRows.find(id);
        return it == h.opRows.end() ? nullptr : &it->second;
    };

    for (const auto& [id, cl] : h.claims) {
        v.claims += std::int64_t(cl.size());
        if (!h.puts.count(id))
            v.violate("claimed a job nobody put: " + id);
    }

    // Per job: claims in attempts order, unique, consecutive but for what a
    // killed worker claimed without logging.
    std::unordered_map<std::string, std::vector<Claim>> sorted;
    for (const auto& [id, cl] : h.claims) {
        auto s = cl;
        std::sort(s.begin(), s.end(),
                  [](const Claim& a, const Claim& b) { return a.attempts < b.attempts; });
        for (std::size_t i = 1; i < s.size(); ++i)
            if (s[i].attempts == s[i - 1].attempts)
                v.violate("claimed twice with attempts " + std::to_string(s[i].attempts) + ": " +
                          id + " (" + s[i - 1].who + ", " + s[i].who + ")");
        sorted[id] = std::move(s);
    }
    std::unordered_map<std::string, std::set<std::int64_t>> gaps; ///< unlogged attempts
    for (const auto& [id, payload] : h.puts) {
        std::int64_t maxAttempts = 0;
        std::set<std::int64_t> seen;
        if (auto it = sorted.find(id); it != sorted.end())
            for (const auto& c : it->second) {
                seen.insert(c.attempts);
                maxAttempts = std::max(maxAttempts, c.attempts);
            }
        if (auto r = rows.find(id); r != rows.end()) {
            if (r->second.attempts < maxAttempts)
                v.violate("attempts went backwards: " + id);
            maxAttempts = std::max(maxAttempts, r->second.attempts);
        }
        for (std::int64_t a = 1; a <= maxAttempts; ++a)
            if (!seen.count(a)) {
                ++v.unloggedClaims;
                gaps[id].insert(a);
            }
    }
    if (v.unloggedClaims > kills)
        v.violate(std::to_string(v.unloggedClaims) + " attempts that no worker logged, only " +
                  std::to_string(kills) + " kills");

    // Lease exclusivity: claim N+1 may find lease N still live only if
    // someone freed it (operator Release/Reschedule of N, or the worker's own
    // retry_later of N).
    for (const auto& [id, s] : sorted) {
        for (std::size_t i = 1; i < s.size(); ++i) {
            const Claim& prev = s[i - 1];
            const Claim& next = s[i];
            if (next.attempts != prev.attempts + 1)
                continue;
            bool freed = false;
            if (const auto* ops = opRowsOf(id))
                for (const auto& r : *ops)
                    freed |= (r.action == "release" || r.action == "reschedule") &&
                             r.carried == prev.attempts;
            if (auto w = h.writes.find(id); w != h.writes.end())
                for (const auto& x : w->second)
                    freed |= !x.finish && x.ok && x.attempts == prev.attempts;
            // A worker killed after its retry_later committed, before logging it.
            freed |= h.maybeWritten.count({id, prev.attempts}) > 0;
            if (freed)
                continue;
            if (next.now > prev.until)
                ++v.lapsedReclaimed; // the lease lapsed, nobody freed it
            else
                v.violate("claimed while another lease was live and nobody freed it: " + id +
                          " attempts " + std::to_string(next.attempts) + " by " + next.who +
                          " (lease of " + prev.who + ")");
        }
    }

    // Operator rows: applied only with the token they carried, and never
    // after a newer claim had surely been given out (claim returned before
    // the apply started) or after the job had surely been finished.
    for (const auto& [id, ops] : h.opRows) {
        for (const auto& r : ops) {
            if (r.action == "release" && r.state == "LEASED")
                ++v.releasedLive;
            bool stale = r.carried != r.before;
            if (auto it = sorted.find(id); it != sorted.end())
                for (const auto& c : it->second)
                    stale |= c.attempts > r.carried && c.e < r.s;
            if (auto w = h.writes.find(id); w != h.writes.end())
                for (const auto& x : w->second)
                    if (x.finish && x.ok && x.e < r.s) {
                        stale = true;
                    }
            if (stale) {
                ++v.staleApplied;
                v.violate("operator " + r.action + " of " + id + " applied with attempts " +
                          std::to_string(r.carried) + " after the job had moved on");
            }
        }
    }

    // Worker writes: a successful one never after a newer claim was surely
    // given out; a refused one only because the job was claimed again or
    // deleted by the operator (never "stolen").
    for (const auto& [id, ws] : h.writes) {
        const auto cl = sorted.find(id);
        for (const auto& x : ws) {
            if (x.ok) {
                if (x.finish)
                    ++v.finished;
                else
                    ++v.later;
                if (cl != sorted.end())
                    for (const auto& c : cl->second)
                        if (c.attempts > x.attempts && c.e < x.s)
                            v.violate(std::string(x.finish ? "finish" : "retry_later") + " of " +
                                      id + " with attempts " + std::to_string(x.attempts) +
                                      " won after attempts " + std::to_string(c.attempts) +
                                      " had been claimed");
                continue;
            }
            ++v.refused;
            v.slowRefused += x.slow ? 1 : 0;
            bool explained = false;
            if (cl != sorted.end())
                for (const auto& c : cl->second)
                    explained |= c.attempts > x.attempts && c.s < x.e;
            if (const auto* ops = opRowsOf(id))
                for (const auto& r : *ops)
                    explained |= isRemoval(r) && r.carried == x.attempts && r.s < x.e;
            if (auto g = gaps.find(id); g != gaps.end())
                explained |= g->second.upper_bound(x.attempts) != g->second.end();
            if (!explained) {
                ++v.stolen;
                v.violate(std::string(x.finish ? "finish" : "retry_later") + " of " + id +
                          " with attempts " + std::to_string(x.attempts) +
                          " refused, yet no newer claim and no operator Delete explains it");
            }
        }
    }

    // Accounting: every job put is in the file, or was removed exactly once:
    // finished by a worker, or deleted by the operator and not restored.
    for (const auto& [id, payload] : h.puts) {
        std::int64_t finishes = 0, deletes = 0, restores = 0;
        if (auto w = h.writes.find(id); w != h.writes.end())
            for (const auto& x : w->second)
                finishes += x.finish && x.ok ? 1 : 0;
        if (const auto* ops = opRowsOf(id))
            for (const auto& r : *ops)
                deletes += isRemoval(r) ? 1 : 0;
        if (auto u = h.unrows.find(id); u != h.unrows.end())
            for (const auto& x : u->second)
                restores += x.action == "delete" ? 1 : 0;
        if (finishes > 1) {
            ++v.finishedTwice;
            v.violate("finished " + std::to_string(finishes) + " times: " + id);
        }
        const std::int64_t removals = finishes + deletes - restores;
        const auto r = rows.find(id);
        if (r != rows.end()) {
            if (removals != 0)
                v.violate("in the file, yet removed " + std::to_string(removals) + " times: " + id);
            if (r->second.payload != payload)
                v.violate("payload changed: " + id + ": " + r->second.payload + " != " + payload);
            continue;
        }
        if (removals == 1) {
            if (finishes == 0)
                ++v.deletedByOperator;
            continue;
        }
        if (removals == 0) {
            bool unlogged = false;
            if (auto cl = sorted.find(id); cl != sorted.end())
                for (const auto& c : cl->second)
                    unlogged |= h.maybeWritten.count({id, c.attempts}) > 0;
            if (unlogged) {
                ++v.unloggedWrites;
                continue;
            }
            ++v.lost;
            v.violate("lost: " + id + " (" + payload + ")");
        } else {
            ++v.finishedTwice;
            v.violate("removed " + std::to_string(removals) + " times: " + id);
        }
    }
    if (v.unloggedWrites > kills)
        v.violate(std::to_string(v.unloggedWrites) + " jobs gone without a logged finish, only " +
                  std::to_string(kills) + " kills");
    for (const auto& [id, row] : rows)
        if (!h.puts.count(id))
            v.violate("in the file but never put: " + id);

    // Jobs a worker held when it was killed: claimed again (by another
    // worker or the final drain), or freed or deleted by the operator.
    for (const auto& [id, attempts] : h.maybeWritten) {
        ++v.killedHeld;
        const auto cl = sorted.find(id);
        const bool reclaimed =
            cl != sorted.end() &&
            std::any_of(cl->second.begin(), cl->second.end(),
                        [&, a = attempts](const Claim& c) { return c.attempts > a; });
        bool byOperator = false;
        if (const auto* ops = opRowsOf(id))
            for (const auto& r : *ops)
                byOperator |= r.carried == attempts && r.who == "operator.log";
        const bool drained =
            reclaimed &&
            std::all_of(cl->second.begin(), cl->second.end(), [&, a = attempts](const Claim& c) {
                return c.attempts <= a || c.who == "drain.log";
            });
        const bool gone = !rows.count(id);
        if (reclaimed && !drained)
            ++v.killedHeldReclaimed;
        else if (byOperator)
            ++v.killedHeldOperator;
        else if (drained)
            ++v.killedHeldDrained;
        else if (gone)
            ++v.killedHeldWritten; // its finish committed just before the kill
        else
            v.violate("held by a killed worker and never claimable again: " + id);
    }
    return v;
}

} // namespace lqstress::jobs
