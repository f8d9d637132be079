// SPDX-License-Identifier: MIT
#pragma once

#include "queueformat.h"

namespace lq::core {

/// jobs-lease (seed 000, docs/FORMATS.md#the-state-model): derived states, attempts as the token,
/// no finished history (finishing deletes the row).
class JobsLeaseFormat final : public QueueFormat {
public:
    std::string stuckRule() const override {
        return "none: a lapsed lease makes the job claimable again";
    }
    const char* id() const noexcept override { return "jobs-lease"; }
    std::vector<State> states() const override;
    bool keepsHistory() const noexcept override { return false; }
    bool storesTime(BaseTime) const noexcept override { return false; }
    std::vector<Field> fields() const override {
        return {Field::Attempts, Field::ScheduledAt, Field::LeaseExpiry};
    }
    std::optional<Field> tokenField() const noexcept override { return Field::Attempts; }
    std::string fieldLabel(Field f) const override;
    std::string fieldDescription(Field f) const override;
    bool hasKeys(const FormatInfo&) const noexcept override { return false; }
    std::string tokenLabel(const FormatInfo&) const override { return "attempts"; }
    std::vector<Action> rowActions() const override;
    Action retryAction() const noexcept override { return Action::Release; }
    std::vector<ActionRule> actionRules(const FormatInfo& info) const override;
    std::string whyNoMetric(Filter::Metric m, const FormatInfo& info) const override;

    std::optional<FormatInfo> recognise(const SchemaFacts& s,
                                        const std::string& preferTable) const override;
    std::unique_ptr<FormatDriver> driver(const FormatInfo& info,
                                         const std::string& path) const override;
};

} // namespace lq::core
