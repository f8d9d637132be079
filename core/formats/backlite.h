// SPDX-License-Identifier: MIT
#pragma once

#include "queueformat.h"

namespace lq::core {

/// backlite (docs/FORMATS.md#backlite): live tasks in `backlite_tasks`, finished ones
/// (only with the queue's Retention) in `backlite_tasks_completed`; INTEGER
/// ms times; the token is (id, claimed_at, attempts). ReleaseAfter, after
/// which a claim is fetched again, is client config and not stored: this
/// tool uses kReleaseAfter.
class BackliteFormat final : public QueueFormat {
public:
    std::string stuckRule() const override {
        return "claimed longer than ReleaseAfter (Queue Settings)";
    }
    /// The release timeout (backlite's ReleaseAfter) the counts assume.
    static constexpr std::int64_t kReleaseAfterSeconds = 600;
    /// Its setting's key (FormatSettings).
    static constexpr std::string_view kReleaseAfterKey = "release_after";

    const char* id() const noexcept override { return "backlite"; }
    std::vector<State> states() const override;
    bool keepsHistory() const noexcept override { return true; }
    bool hasKeys(const FormatInfo&) const noexcept override { return false; }
    bool namedQueues() const noexcept override { return true; }
    std::string tokenLabel(const FormatInfo&) const override { return "claimed_at/attempts"; }
    std::string timeUnits(const FormatInfo&) const override { return "ms"; }
    std::vector<ExtraState> extraStates() const override;
    std::vector<Field> fields() const override {
        return {Field::Queue,       Field::Attempts,    Field::Error,
                Field::ScheduledAt, Field::LeaseExpiry, Field::StatusText};
    }
    std::string fieldLabel(Field f) const override;
    std::string whyNoMetric(Filter::Metric m, const FormatInfo& info) const override;
    std::vector<Action> rowActions() const override;
    Action retryAction() const noexcept override { return Action::Release; }
    std::vector<ActionRule> actionRules(const FormatInfo& info) const override;
    std::vector<Setting> settings() const override;
    std::vector<PruneRule> pruneRules() const override;
    std::string pruneText() const override;

    std::optional<FormatInfo> recognise(const SchemaFacts& s,
                                        const std::string& preferTable) const override;
    std::unique_ptr<FormatDriver> driver(const FormatInfo& info,
                                         const std::string& path) const override;
};

} // namespace lq::core
