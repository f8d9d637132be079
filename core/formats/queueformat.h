// SPDX-License-Identifier: MIT
#pragma once

// lq::core::QueueFormat — what one queue format offers. The GUI and lqctl
// ask a format what it has (states, columns, actions, what "retry" means,
// what to tell the operator); they never test which format it is. Each
// format implements this in its own file under core/formats/; adding a
// format adds a file here, its tests and fixtures, and nothing in ui/ or
// app/.

#include "../actions.h"
#include "../format.h"
#include "../message.h"
#include "../query.h"

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace lq::core {

struct SchemaFacts;
class FormatDriver;

class QueueFormat {
public:
    virtual ~QueueFormat() = default;

    /// The implementation of a recognised file's format (info.format; a
    /// FormatInfo no recogniser made reads as litequeue-0.14).
    static const QueueFormat& of(const FormatInfo& info) noexcept;
    /// By id ("litequeue-0.14", "jobs-lease", ...); null for an unknown id.
    static const QueueFormat* byId(std::string_view id) noexcept;
    /// One per format family, in the order detectFormat() asks them.
    static std::vector<const QueueFormat*> recognisers();
    /// Every format lqcore knows, each once (every litequeue version too).
    static std::vector<const QueueFormat*> all();

    // ---- recognition and SQL (lqcore only) ---------------------------------
    /// The file's FormatInfo when its schema is this format (by table and
    /// column sets), nullopt when not. Throws for a file that is this format
    /// but unusable (a pre-0.6 litequeue schema, an unknown multi table).
    virtual std::optional<FormatInfo> recognise(const SchemaFacts& s,
                                                const std::string& preferTable) const = 0;
    /// Called when no format matched: throws a more precise error than "not
    /// a queue file" if the schema looks like an unsupported version.
    virtual void explainNoMatch(const SchemaFacts& s) const { (void)s; }
    /// The SQL of this format on one open file.
    virtual std::unique_ptr<FormatDriver> driver(const FormatInfo& info,
                                                 const std::string& path) const = 0;

    /// "litequeue-0.14", "jobs-lease", ...: the id lqctl prints.
    virtual const char* id() const noexcept = 0;

    // ---- what a message of this format has --------------------------------
    /// The states its messages can be in, in display order.
    virtual std::vector<State> states() const = 0;
    /// Finished messages stay (DONE/FAILED), so latency metrics exist.
    virtual bool keepsHistory() const noexcept = 0;
    /// The times of litequeue's rows (enqueued, claimed, finished) a format
    /// may lack: their columns and detail rows show only where it stores
    /// them (jobs-lease stores none: its times are declared fields).
    enum class BaseTime { Enqueued, Claimed, Finished };
    virtual bool storesTime(BaseTime t) const noexcept {
        (void)t;
        return true;
    }
    /// Idempotency keys stored with the messages.
    virtual bool hasKeys(const FormatInfo& info) const noexcept = 0;
    /// Several queue tables in one file, each shown as its own queue.
    virtual bool multiTable() const noexcept { return false; }
    /// What the claim token is called: "claim", "lock_time token", "attempts".
    virtual std::string tokenLabel(const FormatInfo& info) const = 0;
    /// How the file stores times: "ns", "seconds", or per column for
    /// formats that mix units.
    virtual std::string timeUnits(const FormatInfo& info) const {
        return info.timeUnit == TimeUnit::Seconds ? "seconds" : "ns";
    }
    /// Named queues inside one file (Queue::queueNames() lists them).
    virtual bool namedQueues() const noexcept { return false; }

    /// The extra state that is the library's own stuck rule: a claim it
    /// counts as abandoned. Counts::extra[kStuckState] is Counts::stuck in
    /// every format that has it, and its filter is the stuck condition.
    static constexpr const char* kStuckState = "locked_expired";

    /// A state of the format's own, counted in Counts::extra under `name`.
    struct ExtraState {
        std::string name;          ///< "pending_retry", "locked_expired", ...
        std::vector<State> within; ///< canonical states it is a part of (empty: none)
        std::string description;
    };
    virtual std::vector<ExtraState> extraStates() const { return {}; }
    /// Sets the counts' fields the format derives from others, as its own
    /// counts do: applied to counts tallied from a timing scan
    /// (countsOfScan()). By default, where the format has kStuckState, an
    /// abandoned claim is the stuck part of LOCKED and a lease the rest.
    virtual void completeCounts(Counts& c) const;
    /// The format's own exclusive states that are failures an operator must
    /// see, like FAILED (goqite's dead_letter): health and banners count them.
    virtual std::vector<std::string> failureStates() const { return {}; }
    /// The library's own word for canonical state `s` where it has one
    /// (goqite calls its only failure a dead letter): the state is then that
    /// format's own on the wire and in the views ("" : the canonical name).
    virtual std::string stateWord(State s) const {
        (void)s;
        return {};
    }
    /// What state `s` is in the library's words, for tooltips ("": none).
    virtual std::string stateDescription(State s) const {
        (void)s;
        return {};
    }
    /// The optional fields a format's messages carry (Message's members
    /// beyond litequeue's columns). The GUI shows a column and a detail row
    /// for each field the format declares, under the format's label.
    enum class Field : int {
        Queue,       ///< Message::queueName
        Job,         ///< Message::jobName (class, worker, kind)
        Priority,    ///< Message::priority
        Attempts,    ///< Message::attempts, with maxAttempts when set
        Error,       ///< Message::lastError (error and backtrace)
        ScheduledAt, ///< Message::scheduledAt
        LeaseExpiry, ///< Message::leaseExpiry
        Token,       ///< Message::tokenText (claim owner / token as stored)
        StatusText,  ///< Message::statusText (the stored state)
    };
    static constexpr int kFieldCount = int(Field::StatusText) + 1;
    /// The fields this format fills, in display order (empty: litequeue's
    /// columns only).
    virtual std::vector<Field> fields() const { return {}; }
    bool hasField(Field f) const;
    /// The declared field the claim token is, where it is one (jobs-lease's
    /// attempts): the views show it once, as that field.
    virtual std::optional<Field> tokenField() const noexcept { return std::nullopt; }

    /// What this format calls field `f` ("Class" for Solid Queue's job
    /// class); the default is a neutral name ("Job").
    virtual std::string fieldLabel(Field f) const { return defaultFieldLabel(f); }
    /// One line on what the field holds here, for tooltips.
    virtual std::string fieldDescription(Field f) const { return defaultFieldDescription(f); }
    static std::string defaultFieldLabel(Field f);
    static std::string defaultFieldDescription(Field f);
    /// A stable key for settings and tests: "queue", "job", "priority", ...
    static const char* fieldKey(Field f) noexcept;
    /// Whether `m` has a value for `f`.
    static bool messageHas(const Message& m, Field f) noexcept;

    /// Why the format cannot provide metric `m` ("" when it can): what the
    /// dashboard says instead of an empty chart.
    virtual std::string whyNoMetric(Filter::Metric m, const FormatInfo& info) const;
    /// Whether the format stores what metric `m` reads (whyNoMetric() is
    /// ""): the table's latency columns and the dashboard's page follow it.
    bool storesMetric(Filter::Metric m, const FormatInfo& info) const {
        return whyNoMetric(m, info).empty();
    }

    /// A library setting the file does not store but the state rules read
    /// (FormatSettings): what the GUI's queue settings and lqctl offer.
    struct Setting {
        std::string key;   ///< FormatSettings::kMaxReceive, ...
        std::string label; ///< "Max receive"
        std::string unit;  ///< "receives", "seconds"
        std::int64_t libraryDefault = 0;
        std::int64_t minimum = 1;
        /// The library takes it per named queue (goqite's maxReceive).
        bool perQueue = false;
        /// One line on what it is, citing the library's own option.
        std::string description;
        /// lqctl's option ("--max-receive").
        std::string option;
    };
    /// The unstored settings this format reads (empty: none).
    virtual std::vector<Setting> settings() const { return {}; }
    /// How the library itself tells an abandoned claim, in words for a
    /// banner or a tooltip ("claimed by a process whose heartbeat is older
    /// than 5 min"); "" when it has no rule of its own and stuck means
    /// LOCKED longer than the operator's threshold (litequeue), or "none: "
    /// and why, for the same (a lapsed lease that frees the job itself).
    virtual std::string stuckRule() const { return {}; }
    /// stuckRule() when it is a rule of the library's own; "" when stuck is
    /// LOCKED longer than the operator's threshold ("" or "none: ...").
    std::string ownStuckRule() const {
        std::string r = stuckRule();
        return r.rfind("none", 0) == 0 ? std::string() : r;
    }
    /// What a job in State::Unknown is in this format, in a few words for
    /// a caption ("status not 0–3").
    virtual std::string unknownText() const { return "state not recognised"; }

    // ---- what the operator can do --------------------------------------------
    /// The per-message actions, in menu order.
    virtual std::vector<Action> rowActions() const = 0;
    /// What "retry" means here (jobs-lease: release, due now).
    virtual Action retryAction() const noexcept = 0;
    /// One action and why it is not offered on a file ("" when it is).
    struct ActionRule {
        Action action;
        std::string whyNot;
    };
    /// The format's table of actions on this file: every Action except
    /// Pause, Resume and RunRecurring, each once (tst_formats checks it);
    /// those three come from whyNoPause()/whyNoRunRecurring().
    virtual std::vector<ActionRule> actionRules(const FormatInfo& info) const = 0;
    /// Why `a` is not offered on this file ("" when it is): shown as the
    /// tooltip of a disabled action and as lqctl's refusal. Read from
    /// actionRules(), whyNoPause() and whyNoRunRecurring(); an action the
    /// format describes nowhere is refused, never offered.
    std::string whyNot(Action a, const FormatInfo& info) const;
    bool offers(Action a, const FormatInfo& info) const { return whyNot(a, info).empty(); }
    /// Why this file's queues cannot be paused and resumed ("" when they
    /// can): whyNot(Pause) and whyNot(Resume). Only where the library reads
    /// a pause from the file; by default, one line on why not.
    virtual std::string whyNoPause(const FormatInfo& info) const {
        (void)info;
        return std::string(id()) + " stores no pause: its workers read none from the file, so "
                                   "a queue cannot be paused here";
    }

    /// Why the file's recurring tasks cannot be run now ("" when they can):
    /// whyNot(RunRecurring). Only where the file records the tasks the
    /// library's scheduler runs; by default, one line on why not.
    virtual std::string whyNoRunRecurring(const FormatInfo& info) const {
        (void)info;
        return std::string(id()) + " files record no recurring tasks: there is none to run";
    }

    /// What the library's own pruner deletes: prune's default. Each rule is
    /// a set of states finished more than `olderThan` ago (no value: at any
    /// age). The default: DONE and FAILED, at any age.
    struct PruneRule {
        std::vector<State> states;
        std::vector<std::string> extraStates; ///< the format's own states (by name)
        std::optional<std::chrono::nanoseconds> olderThan;
        /// Only rows whose own stored expiry has passed (backlite's
        /// expires_at; FormatDriver::expiryColumn).
        bool expired = false;
    };
    virtual std::vector<PruneRule> pruneRules() const {
        return {{{State::Done, State::Failed}, {}, std::nullopt}};
    }
    /// The library's pruner in words ("" when the library prunes nothing of
    /// its own): what `lqctl prune --help` and the prune dialog say.
    virtual std::string pruneText() const { return {}; }

    /// Whether Upgrade applies: offered (an older version of the format),
    /// already current, or no upgrade exists for this format.
    enum class UpgradeState { Offered, Current, NotApplicable };
    virtual UpgradeState upgradeState() const noexcept { return UpgradeState::NotApplicable; }
    /// The id of the format an upgrade produces ("" when none).
    virtual const char* upgradeTarget() const noexcept { return ""; }

    /// What to tell the operator about this file's format ("" for nothing),
    /// e.g. that an upgrade is offered.
    virtual std::string notice(const FormatInfo& info) const {
        (void)info;
        return {};
    }
};

} // namespace lq::core
