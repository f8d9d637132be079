// SPDX-License-Identifier: MIT
#pragma once

#include "queueformat.h"

namespace lq::core {

/// liteque (Karakeep's queue.db, docs/FORMATS.md#liteque): table `tasks` with text
/// statuses, named queues, allocationId as the claim token, createdAt and
/// expireAt in seconds, availableAt in milliseconds; completed tasks deleted.
class LitequeFormat final : public QueueFormat {
public:
    std::string stuckRule() const override { return "running with its lease (expireAt) lapsed"; }
    const char* id() const noexcept override { return "liteque"; }
    std::vector<State> states() const override;
    bool keepsHistory() const noexcept override { return false; }
    bool hasKeys(const FormatInfo& info) const noexcept override;
    bool namedQueues() const noexcept override { return true; }
    std::string tokenLabel(const FormatInfo&) const override { return "allocationId"; }
    std::string timeUnits(const FormatInfo&) const override {
        return "seconds (createdAt, expireAt) and ms (availableAt)";
    }
    std::vector<ExtraState> extraStates() const override;
    std::vector<Field> fields() const override {
        return {Field::Queue,       Field::Priority, Field::Attempts,  Field::ScheduledAt,
                Field::LeaseExpiry, Field::Token,    Field::StatusText};
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
