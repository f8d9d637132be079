// SPDX-License-Identifier: MIT
// Symfony Messenger's Doctrine transport (docs/FORMATS.md#symfony-messenger;
// symfony/messenger and symfony/doctrine-messenger 5.4.53, Debian's
// php-symfony-messenger and php-symfony-doctrine-messenger:
// Bridge/Doctrine/Transport/Connection.php, DoctrineReceiver.php,
// Command/FailedMessages{Retry,Remove}Command.php,
// EventListener/SendFailedMessage{ForRetry,ToFailureTransport}Listener.php):
// what the format offers and how it is recognised. The SQL is in
// messenger_sql.cpp, the envelope read as text in messenger_envelope.cpp.
#include "messenger.h"

#include "../error.h"
#include "driver.h"
#include "schema.h"

#include <set>

namespace lq::core {

namespace {

/// The columns of Connection::addTableToSchema().
const std::set<std::string> kColumns = {"id",         "body",         "headers",     "queue_name",
                                        "created_at", "available_at", "delivered_at"};

} // namespace

std::vector<State> MessengerFormat::states() const {
    return {State::Ready, State::Scheduled, State::Locked, State::Failed};
}

std::vector<QueueFormat::ExtraState> MessengerFormat::extraStates() const {
    return {{kStuckState,
             {State::Locked},
             "delivered longer than redeliver_timeout ago (3600 s by default): the worker that "
             "got it did not ack or reject it, and the next get() of its queue delivers it "
             "again; counted in LOCKED and stuck too"}};
}

std::string MessengerFormat::stateDescription(State s) const {
    switch (s) {
    case State::Ready:
        return "not delivered, available_at due: the next get() of its queue takes it (oldest "
               "available_at first)";
    case State::Scheduled:
        return "available_at in the future: sent with a DelayStamp, or a retry waiting for its "
               "delay (the retry strategy sends a new row)";
    case State::Locked:
        return "delivered_at set by a worker's get(): being handled, or its worker died "
               "(ack and reject delete the row)";
    case State::Failed:
        return "in the failure transport (queue_name 'failed'): failed after its retries, "
               "with the error in the envelope's ErrorDetailsStamp";
    default:
        return {};
    }
}

std::string MessengerFormat::whyNoMetric(Filter::Metric m, const FormatInfo& info) const {
    (void)info;
    switch (m) {
    case Filter::Metric::None:
    case Filter::Metric::Wait:
        return {};
    case Filter::Metric::Processing:
    case Filter::Metric::Total:
        return "Messenger deletes a message when it is acked and stores no finish time, so "
               "processing and total time cannot be computed (wait is shown for delivered "
               "messages)";
    case Filter::Metric::TimeToFailure:
        return "a failed message is a new row of the failure transport: when its first "
               "delivery started is not stored, so time to failure cannot be computed";
    }
    return "unknown metric";
}

std::vector<Action> MessengerFormat::rowActions() const {
    return {Action::Release, Action::Delete};
}

std::vector<QueueFormat::ActionRule> MessengerFormat::actionRules(const FormatInfo&) const {
    return {
        {Action::Retry,
         "Messenger retries a failed message by handling it again in the app's own "
         "process (bin/console messenger:failed:retry ID, or messenger:consume failed); "
         "the row does not say which queue_name it came from (its "
         "SentToFailureTransportStamp names the transport, whose queue_name is in the "
         "app's DSN), so this tool cannot send it back; delete it here once handled"},
        {Action::MarkFailed,
         "Messenger sends a message to the failure transport only from its worker, with "
         "the error in an ErrorDetailsStamp; delete it instead"},
        {Action::Release, ""},
        {Action::Reschedule,
         "Messenger has no reschedule command: available_at is set by a DelayStamp or "
         "the retry strategy when the message is sent"},
        {Action::Delete, ""},
        {Action::Prune, ""},
        {Action::RetryExpired,
         "Messenger has no such command: the next get() of a queue delivers again a "
         "message delivered longer than redeliver_timeout ago; release the LOCKED "
         "messages counted as stuck"},
        {Action::Enqueue,
         "Messenger messages are dispatched by the app (a PHP object serialized into an "
         "envelope), not by this tool"},
        {Action::Vacuum, ""},
        {Action::Upgrade, "the Doctrine transport's table is created and migrated by the app "
                          "(messenger:setup-transports, Doctrine migrations)"},
    };
}

std::string MessengerFormat::pruneText() const {
    return "Messenger keeps nothing it handled (ack deletes the row); prune deletes the "
           "messages of the failure transport, as messenger:failed:remove does";
}

std::optional<FormatInfo> MessengerFormat::recognise(const SchemaFacts& s,
                                                     const std::string& preferTable) const {
    std::string table;
    for (const auto& t : s.tables) {
        if (!s.hasColumns(t, kColumns))
            continue;
        // The table_name option may rename it; prefer the one asked for, then the default.
        if (table.empty() || t == preferTable ||
            (t == "messenger_messages" && table != preferTable))
            table = t;
    }
    if (table.empty())
        return std::nullopt;
    FormatInfo info = recognisedInfo(s, this, table);
    // Connection::setup() creates no triggers.
    refuseUnexpectedObjects(s, info, info.queueTables, [](const SchemaObject&) { return false; });
    return info;
}

void MessengerFormat::explainNoMatch(const SchemaFacts& s) const {
    for (const auto& t : s.tables) {
        const auto& cols = s.columns.at(t);
        if (!(cols.count("body") && cols.count("headers") && cols.count("queue_name")))
            continue;
        std::vector<std::string> missing;
        for (const auto& c : kColumns)
            if (!cols.count(c))
                missing.push_back(c);
        throw Unsupported(s.path, "table " + t +
                                      " looks like a Symfony Messenger Doctrine transport table "
                                      "but lacks " +
                                      joinNames(missing) +
                                      ": not a Messenger queue this tool can read");
    }
}

std::unique_ptr<FormatDriver> MessengerFormat::driver(const FormatInfo& info,
                                                      const std::string& path) const {
    return makeMessengerDriver(info, path);
}

std::vector<QueueFormat::Setting> MessengerFormat::settings() const {
    return {{std::string(kRedeliverTimeoutKey), "Redeliver timeout", "seconds",
             kDefaultRedeliverTimeoutSeconds, 1, true,
             "the Doctrine transport's redeliver_timeout option (its DSN or messenger.yaml; "
             "3600 s by default), per transport and so per queue_name: a delivery older than "
             "this is delivered again by the next get(); not stored in the file",
             "--redeliver-timeout"}};
}

std::string MessengerFormat::fieldLabel(Field f) const {
    switch (f) {
    case Field::Job:
        return "Message";
    case Field::Attempts:
        return "Retries";
    case Field::ScheduledAt:
        return "Available at";
    case Field::LeaseExpiry:
        return "Redelivered after";
    case Field::Token:
        return "Delivery";
    default:
        return defaultFieldLabel(f);
    }
}

std::string MessengerFormat::fieldDescription(Field f) const {
    switch (f) {
    case Field::Queue:
        return "queue_name: the transport's queue ('failed' is the failure transport's)";
    case Field::Job:
        return "the message class, read as text from the envelope (PHP serialize() or the "
               "Serializer's type header); never unserialized";
    case Field::Attempts:
        return "retries so far: the highest RedeliveryStamp retryCount of the envelope";
    case Field::Error:
        return "the envelope's last ErrorDetailsStamp: exception class, message and trace "
               "(before Symfony 5.2: the RedeliveryStamp's message)";
    case Field::ScheduledAt:
        return "available_at: when the message is due (DelayStamp, retry delay)";
    case Field::LeaseExpiry:
        return "delivered_at + redeliver_timeout: when the next get() takes a delivered "
               "message again";
    case Field::Token:
        return "delivered_at as stored: when a worker's get() took the message";
    default:
        return defaultFieldDescription(f);
    }
}

} // namespace lq::core
