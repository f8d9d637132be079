// SPDX-License-Identifier: MIT
#pragma once

#include "queueformat.h"

#include <string_view>

namespace lq::core {

/// Symfony Messenger's Doctrine transport on SQLite
/// (docs/FORMATS.md#symfony-messenger): one table `messenger_messages`
/// (recognised by its columns, also beside an app's own tables) whose rows
/// are envelopes (`body`, `headers`) in named queues (`queue_name`), with
/// Doctrine datetimes as TEXT. A worker's get() sets delivered_at; ack and
/// reject delete the row; a delivery older than redeliver_timeout is taken
/// again. The failure transport is the same table with queue_name 'failed'.
class MessengerFormat final : public QueueFormat {
public:
    /// Connection::DEFAULT_OPTIONS['redeliver_timeout']: 3600 s.
    static constexpr std::int64_t kDefaultRedeliverTimeoutSeconds = 3600;
    /// The key of the redeliver_timeout setting (FormatSettings).
    static constexpr std::string_view kRedeliverTimeoutKey = "redeliver_timeout";
    /// The queue_name of the failure transport (the documented
    /// `doctrine://default?queue_name=failed`): its rows are FAILED.
    static constexpr const char* kFailedQueue = "failed";

    const char* id() const noexcept override { return "symfony-messenger"; }
    std::vector<State> states() const override;
    bool keepsHistory() const noexcept override { return false; }
    bool hasKeys(const FormatInfo&) const noexcept override { return false; }
    bool namedQueues() const noexcept override { return true; }
    std::string tokenLabel(const FormatInfo&) const override {
        return "delivery (delivered_at, available_at, queue_name)";
    }
    std::string timeUnits(const FormatInfo&) const override {
        return "TEXT 'YYYY-MM-DD HH:MM:SS' (Doctrine datetime, the app's time zone, read as UTC)";
    }
    std::string stuckRule() const override {
        return "delivered longer than redeliver_timeout ago (Queue Settings; 3600 s by default): "
               "the next get() of its queue delivers it again";
    }
    std::vector<ExtraState> extraStates() const override;
    std::string stateDescription(State s) const override;
    std::vector<Field> fields() const override {
        return {Field::Queue,       Field::Job,         Field::Attempts, Field::Error,
                Field::ScheduledAt, Field::LeaseExpiry, Field::Token};
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

/// The driver, in messenger_sql.cpp.
std::unique_ptr<FormatDriver> makeMessengerDriver(const FormatInfo& info, const std::string& path);

} // namespace lq::core
