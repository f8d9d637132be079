// SPDX-License-Identifier: MIT
#include "statemodel.h"

#include "formats/queueformat.h"
#include "stats.h"

#include <algorithm>
#include <cctype>

namespace lq::core {

namespace {

/// The wire name of a state a row can have: the canonical ones by their
/// own name, a lease by the canonical LOCKED it is.
std::string wireName(State s) {
    if (s == State::Leased)
        return "locked";
    std::string n = stateName(s);
    std::transform(n.begin(), n.end(), n.begin(),
                   [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    return n;
}

bool isCanonical(State s) {
    switch (s) {
    case State::Ready:
    case State::Scheduled:
    case State::Locked:
    case State::Leased:
    case State::Done:
    case State::Failed:
    case State::Unknown:
        return true;
    case State::Expired:
        return false;
    }
    return false;
}

std::int64_t countOf(State s, const Counts& c) {
    switch (s) {
    case State::Ready:
        return c.ready;
    case State::Scheduled:
        return c.scheduled;
    case State::Locked:
        return c.locked;
    case State::Leased:
        return c.leased;
    case State::Done:
        return c.done;
    case State::Failed:
        return c.failed;
    case State::Unknown:
        return c.unknown;
    case State::Expired:
        return c.expired;
    }
    return 0;
}

std::int64_t extraCount(const Counts& c, const std::string& name) {
    const auto it = c.extra.find(name);
    return it == c.extra.end() ? 0 : it->second;
}

} // namespace

const std::vector<std::string>& canonicalStateNames() {
    static const std::vector<std::string> names = {"ready", "scheduled", "locked", "done",
                                                   "failed"};
    return names;
}

std::string partitionName(const QueueFormat& format, State s) {
    std::string word = format.stateWord(s);
    return word.empty() ? wireName(s) : word;
}

std::optional<State> stateOfName(const QueueFormat& format, std::string_view name) {
    for (State s : format.states())
        if (partitionName(format, s) == name)
            return s;
    return std::nullopt;
}

std::int64_t StateModel::count(std::string_view name) const {
    for (const Entry& e : partition)
        if (e.state.name == name)
            return e.count;
    return 0;
}

std::int64_t StateModel::subCount(std::string_view name) const {
    for (const Sub& s : subCounts)
        if (s.state.name == name)
            return s.count;
    return 0;
}

std::int64_t StateModel::sum() const {
    std::int64_t n = 0;
    for (const Entry& e : partition)
        n += e.count;
    return n;
}

std::int64_t StateModel::needingAttention() const {
    std::int64_t n = subCount("stuck");
    for (const Entry& e : partition)
        if (e.state.name == "failed" || (!e.state.canonical && e.state.attention))
            n += e.count;
    return n;
}

std::vector<PartitionState> partitionStates(const QueueFormat& format) {
    std::vector<PartitionState> out;
    const auto failures = format.failureStates();
    for (State s : format.states()) {
        if (s == State::Unknown)
            continue; // listed by stateModel() when rows are in it
        PartitionState p;
        p.name = partitionName(format, s);
        p.state = s;
        p.canonical = isCanonical(s) && format.stateWord(s).empty();
        p.attention = std::find(failures.begin(), failures.end(), p.name) != failures.end();
        out.push_back(std::move(p));
    }
    for (const auto& x : format.extraStates()) {
        if (!x.within.empty())
            continue;
        PartitionState p;
        p.name = x.name;
        p.attention = std::find(failures.begin(), failures.end(), x.name) != failures.end();
        out.push_back(std::move(p));
    }
    return out;
}

std::optional<CountsWithQueues> countsOfScan(const QueueFormat& format, const TimingColumns& cols,
                                             TimeNs now, TimeNs stuckAfterNs, bool byQueue) {
    const std::vector<QueueFormat::ExtraState> states = format.extraStates();
    // An abandoned claim is stuck by the format's own rule (ownStuck): only
    // its other states need the column.
    const bool stuckState = std::any_of(states.begin(), states.end(), [](const auto& s) {
        return s.name == QueueFormat::kStuckState;
    });
    if (states.size() > (stuckState ? 1U : 0U) && cols.extra.size() != cols.size())
        return std::nullopt;
    const bool named = byQueue && format.namedQueues();
    if (named && cols.queue.size() != cols.size())
        return std::nullopt;
    std::vector<ExtraTally> extras;
    extras.reserve(states.size());
    for (const QueueFormat::ExtraState& s : states)
        extras.push_back({s.name, s.within.empty()});
    CountsWithQueues r;
    r.total = countsFrom(cols, now, stuckAfterNs, extras);
    format.completeCounts(r.total);
    if (named) {
        r.queues = countsByQueueFrom(cols, now, stuckAfterNs, extras);
        for (auto& [name, c] : r.queues)
            format.completeCounts(c);
    }
    return r;
}

std::vector<SubState> subStates(const QueueFormat& format) {
    std::vector<SubState> out;
    const std::string rule = format.ownStuckRule();
    out.push_back(
        {"stuck", {"locked"}, rule.empty() ? "locked longer than the stuck threshold" : rule});
    for (const auto& x : format.extraStates()) {
        if (x.within.empty())
            continue;
        SubState s;
        s.name = x.name;
        for (State w : x.within)
            s.within.push_back(partitionName(format, w));
        s.description = x.description;
        out.push_back(std::move(s));
    }
    return out;
}

StateModel stateModel(const QueueFormat& format, const Counts& c) {
    StateModel m;
    m.stored = c.stored;
    for (PartitionState& p : partitionStates(format)) {
        const std::int64_t n = p.state ? countOf(*p.state, c) : extraCount(c, p.name);
        m.partition.push_back({std::move(p), n});
    }
    // Rows no rule of the format classifies (a damaged file): their own
    // state, so that the partition still sums to the rows stored.
    if (c.unknown > 0)
        m.partition.push_back({{"unknown", State::Unknown, true, false}, c.unknown});
    for (SubState& s : subStates(format)) {
        const std::int64_t n = s.name == "stuck" ? c.stuck : extraCount(c, s.name);
        m.subCounts.push_back({std::move(s), n});
    }
    return m;
}

std::vector<std::string> pruneStateNames(const QueueFormat& format, bool includeFailed) {
    std::vector<std::string> out;
    const auto add = [&out](const std::string& n) {
        if (std::find(out.begin(), out.end(), n) == out.end())
            out.push_back(n);
    };
    const auto failures = format.failureStates();
    for (const auto& r : format.pruneRules()) {
        for (State s : r.states)
            if (includeFailed || s != State::Failed)
                add(partitionName(format, s));
        for (const auto& x : r.extraStates)
            if (includeFailed || std::find(failures.begin(), failures.end(), x) == failures.end())
                add(x);
    }
    return out;
}

} // namespace lq::core
