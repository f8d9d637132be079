// SPDX-License-Identifier: MIT
#pragma once

#include "queueformat.h"

namespace lq::core {

/// Laravel's database queue (docs/FORMATS.md#laravel-database): a jobs table (INTEGER Unix
/// seconds, named queues, a reservation token of id, reserved_at and
/// attempts) and a failed-jobs table (TEXT failed_at); completed jobs are
/// deleted. Tables are recognised by their column sets, not their names.
class LaravelFormat final : public QueueFormat {
public:
    std::string stuckRule() const override {
        return "reserved longer than retry_after (Queue Settings)";
    }
    /// retry_after of Laravel's config/queue.php database connection (90 s).
    static constexpr std::int64_t kDefaultRetryAfterSeconds = 90;
    /// Its setting's key (FormatSettings).
    static constexpr std::string_view kRetryAfterKey = "retry_after";

    const char* id() const noexcept override { return "laravel-database"; }
    std::vector<State> states() const override;
    bool keepsHistory() const noexcept override { return false; }
    bool hasKeys(const FormatInfo&) const noexcept override { return false; }
    bool namedQueues() const noexcept override { return true; }
    std::string tokenLabel(const FormatInfo&) const override {
        return "reservation (id, reserved_at, attempts)";
    }
    std::string timeUnits(const FormatInfo&) const override {
        return "INTEGER seconds (jobs) and TEXT Y-m-d H:i:s UTC (failed_at)";
    }
    std::vector<ExtraState> extraStates() const override;
    std::vector<Field> fields() const override {
        return {Field::Queue,       Field::Job,         Field::Attempts, Field::Error,
                Field::ScheduledAt, Field::LeaseExpiry, Field::Token,    Field::StatusText};
    }
    std::string fieldLabel(Field f) const override;
    std::string whyNoMetric(Filter::Metric m, const FormatInfo& info) const override;
    std::vector<Action> rowActions() const override;
    Action retryAction() const noexcept override { return Action::Retry; }
    std::vector<ActionRule> actionRules(const FormatInfo& info) const override;
    std::vector<Setting> settings() const override;

    std::optional<FormatInfo> recognise(const SchemaFacts& s,
                                        const std::string& preferTable) const override;
    void explainNoMatch(const SchemaFacts& s) const override;
    std::unique_ptr<FormatDriver> driver(const FormatInfo& info,
                                         const std::string& path) const override;
};

/// The driver, in laravel_sql.cpp.
std::unique_ptr<FormatDriver> makeLaravelDriver(const FormatInfo& info, const std::string& path);

} // namespace lq::core
