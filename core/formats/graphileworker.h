// SPDX-License-Identifier: MIT
#pragma once

#include "pgonly.h"

namespace lq::core {

/// Graphile Worker (docs/FORMATS.md#postgresql): PostgreSQL only, its
/// `graphile_worker` schema's _private_jobs with _private_tasks and
/// _private_job_queues. A job is deleted when it completes; a locked one
/// is being run (abandoned after 4 hours, when any worker may take it
/// again); attempts up to max_attempts is permanently failed; otherwise it
/// waits for run_at. Never recognised in a SQLite file: core/pg/ reads it.
class GraphileWorkerFormat final : public PostgresOnlyFormat {
public:
    const char* id() const noexcept override { return "graphile-worker"; }
    const char* libraryName() const noexcept override { return "Graphile Worker"; }
    std::vector<State> states() const override {
        return {State::Ready, State::Scheduled, State::Locked, State::Failed};
    }
    bool keepsHistory() const noexcept override { return false; }
    bool storesTime(BaseTime t) const noexcept override { return t != BaseTime::Finished; }
    bool hasKeys(const FormatInfo&) const noexcept override { return true; }
    std::string tokenLabel(const FormatInfo&) const override { return "locked_at, attempts"; }
    std::string timeUnits(const FormatInfo&) const override { return "timestamptz"; }
    std::vector<ExtraState> extraStates() const override;
    std::string stateDescription(State s) const override;
    std::vector<Field> fields() const override {
        return {Field::Queue,       Field::Job,   Field::Priority,
                Field::Attempts,    Field::Error, Field::ScheduledAt,
                Field::LeaseExpiry, Field::Token, Field::StatusText};
    }
    std::string fieldLabel(Field f) const override;
    std::string whyNoMetric(Filter::Metric m, const FormatInfo& info) const override;
    std::string stuckRule() const override {
        return "locked more than 4 hours ago: any worker may take the job again";
    }
    std::vector<Action> rowActions() const override {
        return {Action::Retry, Action::MarkFailed, Action::Delete};
    }
    Action retryAction() const noexcept override { return Action::Retry; }
    std::vector<ActionRule> actionRules(const FormatInfo& info) const override;
    /// Neither is one of its admin functions (the pause text for resume too).
    std::string whyNoPause(const FormatInfo& info) const override;
    std::string whyNoRunRecurring(const FormatInfo& info) const override;
};

/// Why Graphile Worker's own admin functions would leave job `m` alone for
/// action `a` at `now` ("" when they apply): retry is reschedule_jobs()
/// with attempts 0 on a permanently failed job; mark failed is
/// permanently_fail_jobs(); delete is complete_jobs(); none touches a job
/// a worker locked less than 4 hours ago.
std::string graphileWorkerRefusal(Action a, const Message& m, TimeNs now);

} // namespace lq::core
