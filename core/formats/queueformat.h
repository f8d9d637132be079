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

#include <string>
#include <vector>

namespace lq::core {

class QueueFormat {
public:
    virtual ~QueueFormat() = default;

    /// The implementation for a recognised format (never null).
    static const QueueFormat& of(Format f) noexcept;
    static const QueueFormat& of(const FormatInfo& info) noexcept { return of(info.format); }
    /// By id ("litequeue-0.14", "jobs-lease", ...); null for an unknown id.
    static const QueueFormat* byId(std::string_view id) noexcept;

    /// "litequeue-0.14", "jobs-lease", ...: the id lqctl prints.
    virtual const char* id() const noexcept = 0;

    // ---- what a message of this format has --------------------------------
    /// The states its messages can be in, in display order.
    virtual std::vector<State> states() const = 0;
    /// Finished messages stay (DONE/FAILED), so latency metrics exist.
    virtual bool keepsHistory() const noexcept = 0;
    /// Scheduling columns: run_at, locked_until, attempts.
    virtual bool hasSchedule() const noexcept = 0;
    /// Idempotency keys stored with the messages.
    virtual bool hasKeys(const FormatInfo& info) const noexcept = 0;
    /// Several queue tables in one file, each shown as its own queue.
    virtual bool multiTable() const noexcept { return false; }
    /// What the claim token is called: "claim", "lock_time token", "attempts".
    virtual std::string tokenLabel(const FormatInfo& info) const = 0;

    // ---- what the operator can do --------------------------------------------
    /// The per-message actions, in menu order.
    virtual std::vector<Action> rowActions() const = 0;
    /// What "retry" means here (jobs-lease: release, due now).
    virtual Action retryAction() const noexcept = 0;
    /// Why `a` is not offered on this file ("" when it is): shown as the
    /// tooltip of a disabled action and as lqctl's refusal.
    virtual std::string whyNot(Action a, const FormatInfo& info) const = 0;
    bool offers(Action a, const FormatInfo& info) const { return whyNot(a, info).empty(); }

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
