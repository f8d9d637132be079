// SPDX-License-Identifier: MIT
#pragma once

#include "queueformat.h"

namespace lq::core {

/// goqite (docs/FORMATS.md#goqite): table `goqite` with no status column; the state
/// follows from `received`, `timeout` (TEXT UTC times, compared as text as
/// the library does) and maxReceive, which the file does not store
/// (goqite's default 3). Dead letters (received >= maxReceive) stay for
/// ever. The token is (id, received, timeout).
class GoqiteFormat final : public QueueFormat {
public:
    /// Every claim is a lease that frees itself: leased is LOCKED.
    void completeCounts(Counts& c) const override { c.leased = c.locked; }
    std::string stuckRule() const override {
        return "none: a lapsed lease makes the message receivable again";
    }
    /// goqite's default maxReceive (an app option, not stored in the file).
    static constexpr std::int64_t kDefaultMaxReceive = 3;
    /// Its setting's key (FormatSettings).
    static constexpr std::string_view kMaxReceiveKey = "max_receive";

    const char* id() const noexcept override { return "goqite"; }
    std::vector<State> states() const override;
    bool keepsHistory() const noexcept override { return false; }
    bool hasKeys(const FormatInfo&) const noexcept override { return false; }
    bool namedQueues() const noexcept override { return true; }
    std::string tokenLabel(const FormatInfo&) const override { return "received and timeout"; }
    std::string timeUnits(const FormatInfo&) const override {
        return "TEXT UTC times (YYYY-MM-DDTHH:MM:SS.sssZ)";
    }
    std::string stateWord(State s) const override;
    std::string stateDescription(State s) const override;
    std::vector<std::string> failureStates() const override;
    std::vector<Field> fields() const override {
        return {Field::Queue,       Field::Priority, Field::Attempts,  Field::ScheduledAt,
                Field::LeaseExpiry, Field::Token,    Field::StatusText};
    }
    std::string fieldLabel(Field f) const override;
    std::string whyNoMetric(Filter::Metric m, const FormatInfo& info) const override;
    std::vector<Action> rowActions() const override;
    Action retryAction() const noexcept override { return Action::Retry; }
    std::vector<ActionRule> actionRules(const FormatInfo& info) const override;
    std::vector<Setting> settings() const override;

    std::optional<FormatInfo> recognise(const SchemaFacts& s,
                                        const std::string& preferTable) const override;
    std::unique_ptr<FormatDriver> driver(const FormatInfo& info,
                                         const std::string& path) const override;
};

} // namespace lq::core
