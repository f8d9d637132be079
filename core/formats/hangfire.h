// SPDX-License-Identifier: MIT
#pragma once

#include "queueformat.h"

namespace lq::core {

/// Hangfire's storage on SQLite, Hangfire.Storage.SQLite
/// (docs/FORMATS.md#hangfire-sqlite): the tables sqlite-net creates for
/// Hangfire (Job, State, JobParameter, JobQueue, Hash, Set, List, Counter,
/// AggregatedCounter, Server, DistributedLock), recognised by their columns,
/// dates as .NET ticks (DateTime.MinValue, 0, for "never"). A job's state is
/// Job.StateName with its history in State rows; a job a worker may take has
/// a JobQueue row, fetched (FetchedAt set) while a worker holds it, and taken
/// again by the next fetch once older than the invisibility timeout.
class HangfireFormat final : public QueueFormat {
public:
    /// SQLiteStorageOptions.InvisibilityTimeout's default: 30 minutes.
    static constexpr std::int64_t kDefaultInvisibilityTimeoutSeconds = 30LL * 60;
    /// Its setting's key (FormatSettings).
    static constexpr std::string_view kInvisibilityTimeoutKey = "invisibility_timeout";
    /// JobStorage.JobExpirationTimeout's default: a finished (Succeeded or
    /// Deleted) job expires a day after it finished.
    static constexpr std::int64_t kJobExpirationSeconds = 24LL * 3600;
    /// The queue EnqueuedState uses when nothing names another.
    static constexpr const char* kDefaultQueue = "default";
    /// The format's own exclusive states.
    static constexpr const char* kDeleted = "deleted";
    static constexpr const char* kAwaiting = "awaiting";

    const char* id() const noexcept override { return "hangfire-sqlite"; }
    std::vector<State> states() const override;
    bool keepsHistory() const noexcept override { return true; }
    bool hasKeys(const FormatInfo&) const noexcept override { return false; }
    bool namedQueues() const noexcept override { return true; }
    std::string tokenLabel(const FormatInfo&) const override {
        return "StateName, the job's last State row and its JobQueue row's FetchedAt";
    }
    std::string timeUnits(const FormatInfo&) const override {
        return "INTEGER .NET ticks (100 ns since 0001-01-01, UTC; sqlite-net "
               "storeDateTimeAsTicks); 0 (DateTime.MinValue) is \"never\"";
    }
    std::string stuckRule() const override {
        return "fetched longer ago than the invisibility timeout (Queue Settings; 30 min by "
               "default): the next worker's fetch takes the job again";
    }
    std::string unknownText() const override {
        return "StateName none of Hangfire's, or Enqueued/Processing without a JobQueue row";
    }
    std::vector<ExtraState> extraStates() const override;
    std::string stateDescription(State s) const override;
    std::vector<Field> fields() const override {
        return {Field::Queue,       Field::Job,   Field::Attempts,    Field::Error,
                Field::ScheduledAt, Field::Token, Field::LeaseExpiry, Field::StatusText};
    }
    std::string fieldLabel(Field f) const override;
    std::string fieldDescription(Field f) const override;
    std::vector<Action> rowActions() const override;
    Action retryAction() const noexcept override { return Action::Retry; }
    std::vector<ActionRule> actionRules(const FormatInfo& info) const override;
    std::vector<PruneRule> pruneRules() const override;
    std::string pruneText() const override;
    std::vector<Setting> settings() const override;

    std::optional<FormatInfo> recognise(const SchemaFacts& s,
                                        const std::string& preferTable) const override;
    void explainNoMatch(const SchemaFacts& s) const override;
    std::unique_ptr<FormatDriver> driver(const FormatInfo& info,
                                         const std::string& path) const override;
};

/// The driver, in hangfire_sql.cpp.
std::unique_ptr<FormatDriver> makeHangfireDriver(const FormatInfo& info, const std::string& path);

} // namespace lq::core
