// SPDX-License-Identifier: MIT
#pragma once

#include "queueformat.h"

namespace lq::core {

/// A library that keeps its jobs in PostgreSQL only (docs/FORMATS.md#postgresql):
/// never recognised in a SQLite file (core/pg/ recognises it from the
/// catalog), and a file offered to it gets a message that says to open the
/// database instead.
class PostgresOnlyFormat : public QueueFormat {
public:
    std::optional<FormatInfo> recognise(const SchemaFacts&, const std::string&) const final {
        return std::nullopt;
    }
    std::unique_ptr<FormatDriver> driver(const FormatInfo& info,
                                         const std::string& path) const final;
    /// The library's name in messages ("Graphile Worker").
    virtual const char* libraryName() const noexcept = 0;
    std::string timeUnits(const FormatInfo&) const override { return "timestamp"; }
    bool namedQueues() const noexcept override { return true; }
};

/// GoodJob (bensheldon/good_job, `good_jobs`): its own statuses
/// (GoodJob::Reportable#status) in the state model: succeeded DONE,
/// discarded FAILED, running LOCKED (performed_at set, not finished), queued
/// READY, scheduled and retried SCHEDULED (retried: an error is kept). A
/// running job is held by its worker's advisory lock on
/// 'good_jobs-<id>'; without one, its worker is gone and the next worker
/// takes it again (stuck). Retry and discard are GoodJob's own
/// (core/pg/actions.cpp).
class GoodJobFormat final : public PostgresOnlyFormat {
public:
    const char* id() const noexcept override { return "good-job"; }
    const char* libraryName() const noexcept override { return "GoodJob"; }
    std::vector<State> states() const override {
        return {State::Ready, State::Scheduled, State::Locked, State::Done, State::Failed};
    }
    bool keepsHistory() const noexcept override { return true; }
    bool hasKeys(const FormatInfo&) const noexcept override { return false; }
    std::string tokenLabel(const FormatInfo&) const override {
        return "status, executions_count, performed_at";
    }
    std::vector<ExtraState> extraStates() const override;
    std::string stateDescription(State s) const override;
    std::vector<Field> fields() const override {
        return {Field::Queue, Field::Job,         Field::Priority, Field::Attempts,
                Field::Error, Field::ScheduledAt, Field::Token,    Field::StatusText};
    }
    std::string fieldLabel(Field f) const override;
    std::string stuckRule() const override {
        return "running, and no session holds its advisory lock: its worker is gone and the next "
               "worker takes the job again";
    }
    std::vector<Action> rowActions() const override {
        return {Action::Retry, Action::MarkFailed, Action::Delete};
    }
    Action retryAction() const noexcept override { return Action::Retry; }
    std::vector<ActionRule> actionRules(const FormatInfo& info) const override;
    std::string whyNoPause(const FormatInfo& info) const override;
    std::string whyNoRunRecurring(const FormatInfo& info) const override;
};

/// Why GoodJob's own actions (GoodJob::Job#retry_job, #discard_job,
/// #destroy_job) would leave job `m` alone for action `a` ("" when they
/// apply): retry takes a discarded job, discard an unfinished one, destroy
/// a finished one. A job whose advisory lock a worker holds is skipped when
/// the action runs (core/pg/actions.cpp).
std::string goodJobRefusal(Action a, const Message& m, TimeNs now);

/// pg-boss (timgit/pg-boss, its `pgboss` schema's `job`): created and retry
/// READY once start_after has come, else SCHEDULED; active LOCKED, past
/// started_on + expire_seconds stuck (its maintenance fails it as "job timed
/// out"); completed DONE; failed FAILED; cancelled its own state. The queue
/// is the job's name; singleton_key is the idempotency key. Retry and
/// delete are its own statements (core/pg/actions.cpp).
class PgBossFormat final : public PostgresOnlyFormat {
public:
    const char* id() const noexcept override { return "pg-boss"; }
    const char* libraryName() const noexcept override { return "pg-boss"; }
    std::string timeUnits(const FormatInfo&) const override { return "timestamptz"; }
    std::vector<State> states() const override {
        return {State::Ready, State::Scheduled, State::Locked, State::Done, State::Failed};
    }
    bool keepsHistory() const noexcept override { return true; }
    bool hasKeys(const FormatInfo&) const noexcept override { return true; }
    std::string tokenLabel(const FormatInfo&) const override {
        return "state, retry_count, started_on";
    }
    std::vector<ExtraState> extraStates() const override;
    std::string stateDescription(State s) const override;
    std::vector<Field> fields() const override {
        return {Field::Queue,       Field::Priority,    Field::Attempts, Field::Error,
                Field::ScheduledAt, Field::LeaseExpiry, Field::Token,    Field::StatusText};
    }
    std::string fieldLabel(Field f) const override;
    std::string stuckRule() const override {
        return "active longer than its expire_seconds: pg-boss's maintenance fails it as \"job "
               "timed out\" (retried while retries remain)";
    }
    std::vector<Action> rowActions() const override { return {Action::Retry, Action::Delete}; }
    Action retryAction() const noexcept override { return Action::Retry; }
    std::vector<ActionRule> actionRules(const FormatInfo& info) const override;
    std::string whyNoPause(const FormatInfo& info) const override;
    std::string whyNoRunRecurring(const FormatInfo& info) const override;
};

/// Why pg-boss's own statements would leave job `m` alone for action `a`
/// ("" when they apply): retry (retryJobs) takes a failed job, and resume
/// (resumeJobs) a cancelled one; delete (deleteJobsById) takes a job in
/// any state.
std::string pgBossRefusal(Action a, const Message& m, TimeNs now);

} // namespace lq::core
