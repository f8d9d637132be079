// SPDX-License-Identifier: MIT
#pragma once

#include "queueformat.h"

namespace lq::core {

/// Solid Queue, Rails' database-backed Active Job backend (docs/FORMATS.md#solid-queue):
/// `solid_queue_jobs` plus one execution table per state (ready, claimed,
/// failed, scheduled, blocked); a job's state is which table holds its
/// execution row. Times are TEXT UTC with microseconds; the claim token is
/// the execution row (claimed: its id and process_id); named queues.
class SolidQueueFormat final : public QueueFormat {
public:
    std::string stuckRule() const override {
        return "claimed by a process that is gone or whose heartbeat is older than 5 min";
    }
    /// countsByJob()'s "inconsistent": unfinished, in no execution table
    /// or in several.
    std::string unknownText() const override { return "not in one execution table"; }
    const char* id() const noexcept override { return "solid-queue"; }
    std::vector<State> states() const override;
    bool keepsHistory() const noexcept override { return true; }
    bool hasKeys(const FormatInfo&) const noexcept override { return false; }
    bool namedQueues() const noexcept override { return true; }
    std::string tokenLabel(const FormatInfo&) const override { return "execution"; }
    std::string timeUnits(const FormatInfo&) const override {
        return "TEXT UTC with microseconds (Rails datetime(6))";
    }
    std::vector<ExtraState> extraStates() const override;
    std::vector<Field> fields() const override {
        return {Field::Queue,       Field::Job,   Field::Priority,
                Field::Attempts,    Field::Error, Field::ScheduledAt,
                Field::LeaseExpiry, Field::Token, Field::StatusText};
    }
    std::string fieldLabel(Field f) const override;
    std::string whyNoMetric(Filter::Metric m, const FormatInfo& info) const override;
    std::string whyNoPause(const FormatInfo& info) const override;
    std::string whyNoRunRecurring(const FormatInfo& info) const override;
    std::vector<Action> rowActions() const override;
    Action retryAction() const noexcept override { return Action::Retry; }
    std::vector<ActionRule> actionRules(const FormatInfo& info) const override;

    std::optional<FormatInfo> recognise(const SchemaFacts& s,
                                        const std::string& preferTable) const override;
    void explainNoMatch(const SchemaFacts& s) const override;
    std::unique_ptr<FormatDriver> driver(const FormatInfo& info,
                                         const std::string& path) const override;
};

/// The driver, in solidqueue_sql.cpp.
std::unique_ptr<FormatDriver> makeSolidQueueDriver(const FormatInfo& info, const std::string& path);

/// `t` as Rails writes a datetime(6): "2025-04-08 23:41:10.122876" in UTC,
/// with no fraction when the microseconds are 0.
std::string railsTime(TimeNs t);

} // namespace lq::core
