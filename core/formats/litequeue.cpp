// SPDX-License-Identifier: MIT
// litequeue 0.6 to 0.14 (SPEC §2): one table `Queue`, status 0..3, claim_id
// (0.13+) or lock_time (legacy) as the claim token, DONE/FAILED history.
#include "litequeue.h"

namespace lq::core {

LitequeueFormat::LitequeueFormat(Format f) noexcept
    : m_format(f) {}

const char* LitequeueFormat::id() const noexcept {
    return formatId(m_format);
}

std::vector<State> LitequeueFormat::states() const {
    return {State::Ready, State::Locked, State::Done, State::Failed, State::Unknown};
}

bool LitequeueFormat::hasKeys(const FormatInfo& info) const noexcept {
    return info.hasIdempotencyKey;
}

bool LitequeueFormat::multiTable() const noexcept {
    return m_format == Format::LitequeueMulti;
}

std::string LitequeueFormat::tokenLabel(const FormatInfo& info) const {
    return info.hasClaimId ? "claim" : "lock_time token";
}

std::vector<Action> LitequeueFormat::rowActions() const {
    return {Action::Retry, Action::MarkFailed};
}

std::string LitequeueFormat::whyNot(Action a, const FormatInfo& info) const {
    switch (a) {
    case Action::Retry:
    case Action::MarkFailed:
    case Action::RetryExpired:
    case Action::Prune:
    case Action::Enqueue:
    case Action::Vacuum:
        return {};
    case Action::Upgrade:
        if (upgradeState() == UpgradeState::Offered)
            return {};
        return std::string(id()) + " files cannot be upgraded" +
               (upgradeState() == UpgradeState::Current ? ": already the current format"
                                                        : ": only litequeue-legacy and "
                                                          "litequeue-0.13 files can be");
    case Action::Release:
    case Action::Reschedule:
    case Action::Delete:
        return std::string(actionName(a)) +
               " applies to lease queues; on a litequeue file use retry or mark failed";
    }
    (void)info;
    return "unknown action";
}

QueueFormat::UpgradeState LitequeueFormat::upgradeState() const noexcept {
    switch (m_format) {
    case Format::LitequeueLegacy:
    case Format::Litequeue013:
        return UpgradeState::Offered;
    case Format::Litequeue014:
        return UpgradeState::Current;
    default:
        return UpgradeState::NotApplicable;
    }
}

std::string LitequeueFormat::notice(const FormatInfo& info) const {
    (void)info;
    switch (m_format) {
    case Format::LitequeueLegacy:
        return "Legacy litequeue file (0.6–0.12): no claim ids, so actions check lock_time as "
               "the claim token. Upgrading to 0.14 adds claim ids and idempotency keys.";
    case Format::Litequeue013:
        return "litequeue 0.13 file (times in seconds). Upgrading to 0.14 converts the times to "
               "nanoseconds.";
    default:
        return {};
    }
}

} // namespace lq::core
