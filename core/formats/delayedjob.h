// SPDX-License-Identifier: MIT
#pragma once

#include "queueformat.h"

namespace lq::core {

/// Delayed::Job with its Active Record backend (docs/FORMATS.md#delayed-job):
/// one table `delayed_jobs` (recognised by its columns, also beside an app's
/// own tables) with a YAML `handler`, Active Record TEXT UTC datetimes, a
/// named `queue` (NULL: the default queue, shown as "(default)"), and a lock
/// of locked_at and locked_by. A job that succeeds is deleted; one that fails
/// for good keeps failed_at (destroy_failed_jobs = false) and its lock.
class DelayedJobFormat final : public QueueFormat {
public:
    /// Delayed::Worker::DEFAULT_MAX_RUN_TIME: 4 hours.
    static constexpr std::int64_t kDefaultMaxRunTimeSeconds = 4LL * 3600;
    /// Its setting's key (FormatSettings).
    static constexpr std::string_view kMaxRunTimeKey = "max_run_time";
    /// The name shown for the jobs whose queue is NULL (the default queue).
    static constexpr const char* kDefaultQueue = "(default)";

    const char* id() const noexcept override { return "delayed-job"; }
    std::vector<State> states() const override;
    bool keepsHistory() const noexcept override { return false; }
    bool hasKeys(const FormatInfo&) const noexcept override { return false; }
    bool namedQueues() const noexcept override { return true; }
    std::string tokenLabel(const FormatInfo&) const override {
        return "lock (locked_by, locked_at, attempts, failed_at)";
    }
    std::string timeUnits(const FormatInfo&) const override {
        return "TEXT UTC 'YYYY-MM-DD HH:MM:SS.ffffff' (Active Record datetime)";
    }
    std::string stuckRule() const override {
        return "locked longer than max_run_time (Queue Settings; 4 h by default): the next "
               "worker takes the job again";
    }
    std::vector<ExtraState> extraStates() const override;
    std::string stateDescription(State s) const override;
    std::vector<Field> fields() const override {
        return {Field::Queue, Field::Job,         Field::Priority, Field::Attempts,
                Field::Error, Field::ScheduledAt, Field::Token};
    }
    std::string fieldLabel(Field f) const override;
    std::string fieldDescription(Field f) const override;
    std::string whyNoMetric(Filter::Metric m, const FormatInfo& info) const override;
    std::vector<Action> rowActions() const override;
    Action retryAction() const noexcept override { return Action::Retry; }
    std::vector<ActionRule> actionRules(const FormatInfo& info) const override;
    std::vector<PruneRule> pruneRules() const override {
        return {{{State::Failed}, {}, std::nullopt}};
    }
    std::string pruneText() const override;
    std::vector<Setting> settings() const override;

    std::optional<FormatInfo> recognise(const SchemaFacts& s,
                                        const std::string& preferTable) const override;
    void explainNoMatch(const SchemaFacts& s) const override;
    std::unique_ptr<FormatDriver> driver(const FormatInfo& info,
                                         const std::string& path) const override;
};

/// The driver, in delayedjob_sql.cpp.
std::unique_ptr<FormatDriver> makeDelayedJobDriver(const FormatInfo& info, const std::string& path);

} // namespace lq::core
