// SPDX-License-Identifier: MIT
#pragma once

#include "queueformat.h"

namespace lq::core {

/// plainjob (docs/FORMATS.md#plainjob): table `plainjob_jobs` with a numeric status
/// (0 pending, 1 processing, 2 done, 3 failed), the job `type` as the named
/// queue, INTEGER ms times and no claim token: actions guard on
/// (id, status, next_run_at). `plainjob_scheduled_jobs` holds cron
/// definitions, not jobs.
class PlainjobFormat final : public QueueFormat {
public:
    std::string stuckRule() const override {
        return "processing, due more than 30 min ago (the library's timeout)";
    }
    const char* id() const noexcept override { return "plainjob"; }
    std::vector<State> states() const override;
    bool keepsHistory() const noexcept override { return true; }
    bool hasKeys(const FormatInfo&) const noexcept override { return false; }
    bool namedQueues() const noexcept override { return true; }
    std::string tokenLabel(const FormatInfo&) const override {
        return "status/next_run_at"; // plainjob has no claim token
    }
    std::string timeUnits(const FormatInfo&) const override { return "ms"; }
    std::vector<ExtraState> extraStates() const override;
    std::vector<Field> fields() const override {
        return {Field::Queue, Field::Error, Field::ScheduledAt, Field::StatusText};
    }
    std::string fieldLabel(Field f) const override;
    std::string whyNoMetric(Filter::Metric m, const FormatInfo& info) const override;
    std::vector<Action> rowActions() const override;
    Action retryAction() const noexcept override { return Action::Retry; }
    std::vector<ActionRule> actionRules(const FormatInfo& info) const override;

    std::optional<FormatInfo> recognise(const SchemaFacts& s,
                                        const std::string& preferTable) const override;
    void explainNoMatch(const SchemaFacts& s) const override;
    std::unique_ptr<FormatDriver> driver(const FormatInfo& info,
                                         const std::string& path) const override;
};

} // namespace lq::core
