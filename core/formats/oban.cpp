// SPDX-License-Identifier: MIT
// Oban Lite (docs/FORMATS.md#oban-lite; oban-bg/oban@2939e3134d08 lib/oban/engines/lite.ex,
// basic.ex, lifeline.ex, migrations/sqlite.ex; oban_web job_query.ex). One
// table `oban_jobs`; the claim is (id, state 'executing', attempt,
// attempted_at). Oban's own complete/error UPDATEs match `id` only, so the
// only running rows we touch are those the Lifeline would rescue.
#include "oban.h"

#include "../error.h"
#include "../sqlite.h"
#include "../timefmt.h"
#include "schema.h"

namespace lq::core {

namespace {

const std::set<std::string> kSignature = {
    "id",           "state",        "queue",        "worker",       "args",         "meta",
    "tags",         "errors",       "attempt",      "max_attempts", "priority",     "inserted_at",
    "scheduled_at", "attempted_at", "attempted_by", "cancelled_at", "completed_at", "discarded_at"};

constexpr TimeNs kLifeline = 60LL * 60 * kNsPerSecond; // rescue_after 60 min

class ObanDriver final : public JobTableDriver {
public:
    ObanDriver(const FormatInfo& fi, const std::string& path)
        : JobTableDriver(fi, path,
                         {"oban_jobs",
                          "worker",
                          "inserted_at",
                          "meta",
                          "executing",
                          {"completed_at", "discarded_at", "cancelled_at"},
                          {"retryable", "cancelled", "suspended"},
                          false,
                          true,
                          kLifeline}) {}

protected:
    std::string writeTime(TimeNs t) const override {
        // Ecto's utc_datetime_usec: "2025-01-02T03:04:05.123456Z".
        std::string iso = isoUtc(t);
        return iso.substr(0, 26) + "Z";
    }

    std::string retryRefusal(const Message& m, TimeNs) const override {
        if (m.statusText == "available")
            return "is available: it runs when a worker is free (Oban's retry skips available "
                   "and executing jobs)";
        if (m.state == State::Unknown && m.extraState.empty())
            return "has the unknown state '" + m.statusText + "': left alone";
        return {};
    }

    std::int64_t retryRow(Connection& c, const Message& m, TimeNs now) const override {
        // Oban.retry_job / Oban Web "Retry": attempt and errors are kept.
        auto st = c.cached("UPDATE oban_jobs SET state = 'available', max_attempts = "
                           "max(max_attempts, attempt + 1), scheduled_at = ?2, completed_at = "
                           "NULL, cancelled_at = NULL, discarded_at = NULL WHERE id = ?1 AND "
                           "state NOT IN ('available', 'executing')" +
                           cas(3));
        st->bind(1, m.rowid).bind(2, std::string_view(writeTime(now)));
        bindCas(*st, m, 3);
        st->exec();
        return c.changes();
    }

    std::int64_t releaseRow(Connection& c, const Message& m, TimeNs now) const override {
        // The Lifeline's rescue: available while attempts are left, else
        // discarded with discarded_at; only past rescue_after.
        auto st = c.cached("UPDATE oban_jobs SET state = CASE WHEN attempt < max_attempts THEN "
                           "'available' ELSE 'discarded' END, discarded_at = CASE WHEN attempt < "
                           "max_attempts THEN discarded_at ELSE ?2 END WHERE id = ?1 AND state = "
                           "'executing' AND " +
                           textTimeKey("attempted_at") + " < ?3" + cas(4));
        st->bind(1, m.rowid).bind(2, std::string_view(writeTime(now)));
        bindValues(*st, {encodeTime(now - kLifeline, TimeEncoding::Text)}, 3);
        bindCas(*st, m, 4);
        st->exec();
        return c.changes();
    }
};

} // namespace

std::vector<QueueFormat::ExtraState> ObanFormat::extraStates() const {
    return {{"retryable", {}, "failed, another attempt is scheduled (in no canonical count)"},
            {"cancelled", {}, "cancelled by the app or Oban Web (in no canonical count)"},
            {"suspended", {}, "held, not staged (in no canonical count)"},
            {"locked_expired",
             {State::Locked},
             "executing with attempted_at over 60 min ago: the Lifeline would rescue it; "
             "counted in LOCKED and stuck too"}};
}

// Oban.Plugins.Pruner (lib/oban/pruner.ex): completed, cancelled and
// discarded jobs finished more than max_age (default 60 s) ago.
constexpr std::chrono::seconds kObanMaxAge{60};

std::vector<QueueFormat::PruneRule> ObanFormat::pruneRules() const {
    return {{{State::Done, State::Failed}, {"cancelled"}, kObanMaxAge}};
}

std::string ObanFormat::pruneText() const {
    return "completed, cancelled and discarded jobs finished more than 60 s ago, as Oban's "
           "Pruner (max_age 60 s)";
}

std::vector<QueueFormat::ActionRule> ObanFormat::actionRules(const FormatInfo&) const {
    return {
        {Action::Retry, ""},
        {Action::MarkFailed,
         "Oban discards a job only from its worker (or Oban Web's cancel, which also "
         "signals the running process): delete it, or retry it"},
        {Action::Release, ""},
        {Action::Reschedule, "Oban has no reschedule: retry runs a scheduled job now"},
        {Action::Delete, ""},
        {Action::Prune, ""},
        {Action::RetryExpired,
         "Oban's Lifeline rescues executing jobs by attempted_at: release them"},
        {Action::Enqueue, "enqueue writes litequeue messages; Oban jobs are inserted by their app"},
        {Action::Vacuum, ""},
        {Action::Upgrade, "Oban's SQLite migration has one version, run by the app"},
    };
}

std::optional<FormatInfo> ObanFormat::recognise(const SchemaFacts& s,
                                                const std::string& preferTable) const {
    (void)preferTable;
    if (!s.hasColumns("oban_jobs", kSignature))
        return std::nullopt;
    FormatInfo info = recognisedInfo(s, this, "oban_jobs");
    // Oban on SQLite has no triggers; the app's own tables may have theirs.
    refuseUnexpectedObjects(s, info, {"oban_jobs"}, [](const SchemaObject&) { return false; });
    return info;
}

void ObanFormat::explainNoMatch(const SchemaFacts& s) const {
    if (!s.hasTable("oban_jobs"))
        return;
    std::vector<std::string> missing;
    const auto& cols = s.columns.at("oban_jobs");
    for (const auto& c : kSignature)
        if (!cols.count(c))
            missing.push_back(c);
    if (missing.empty())
        return;
    throw Unsupported(s.path, "table oban_jobs lacks the Oban column(s) " + joinNames(missing) +
                                  ": not a Oban queue this tool can read");
}

std::unique_ptr<FormatDriver> ObanFormat::driver(const FormatInfo& info,
                                                 const std::string& path) const {
    return std::make_unique<ObanDriver>(info, path);
}

} // namespace lq::core
