// SPDX-License-Identifier: MIT
// litequeue 0.6 to 0.14 (docs/FORMATS.md): one table `Queue`, status 0..3, claim_id
// (0.13+) or lock_time (legacy) as the claim token, DONE/FAILED history.
#include "litequeue.h"

#include "../error.h"
#include "../sqlite.h"
#include "schema.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace lq::core {

LitequeueFormat::LitequeueFormat(Version v) noexcept
    : m_version(v) {}

const LitequeueFormat& LitequeueFormat::of(Version v) noexcept {
    static const LitequeueFormat k014(Version::V014), k013(Version::V013), legacy(Version::Legacy),
        multi(Version::Multi), other(Version::Other);
    switch (v) {
    case Version::V014:
        return k014;
    case Version::V013:
        return k013;
    case Version::Legacy:
        return legacy;
    case Version::Multi:
        return multi;
    case Version::Other:
        break;
    }
    return other;
}

LitequeueFormat::Version LitequeueFormat::versionOf(const FormatInfo& info) noexcept {
    const auto* f = dynamic_cast<const LitequeueFormat*>(&QueueFormat::of(info));
    return f ? f->version() : Version::V014;
}

const char* LitequeueFormat::id() const noexcept {
    switch (m_version) {
    case Version::V014:
        return "litequeue-0.14";
    case Version::V013:
        return "litequeue-0.13";
    case Version::Legacy:
        return "litequeue-legacy";
    case Version::Multi:
        return "litequeue-multi";
    case Version::Other:
        break;
    }
    return "litequeue-unknown";
}

std::vector<State> LitequeueFormat::states() const {
    return {State::Ready, State::Locked, State::Done, State::Failed, State::Unknown};
}

bool LitequeueFormat::hasKeys(const FormatInfo& info) const noexcept {
    return info.hasIdempotencyKey;
}

bool LitequeueFormat::multiTable() const noexcept {
    return m_version == Version::Multi;
}

std::string LitequeueFormat::tokenLabel(const FormatInfo& info) const {
    return info.hasClaimId ? "claim" : "lock_time token";
}

std::vector<Action> LitequeueFormat::rowActions() const {
    return {Action::Retry, Action::MarkFailed};
}

std::vector<QueueFormat::ActionRule> LitequeueFormat::actionRules(const FormatInfo&) const {
    const auto leaseOnly = [](Action a) {
        return std::string(actionName(a)) +
               " applies to lease queues; on a litequeue file use retry or mark failed";
    };
    const UpgradeState upgrade = upgradeState();
    std::string noUpgrade;
    if (upgrade != UpgradeState::Offered)
        noUpgrade = std::string(id()) + " files cannot be upgraded" +
                    (upgrade == UpgradeState::Current ? ": already the current format"
                                                      : ": only litequeue-legacy and "
                                                        "litequeue-0.13 files can be");
    return {
        {Action::Retry, ""},
        {Action::MarkFailed, ""},
        {Action::Release, leaseOnly(Action::Release)},
        {Action::Reschedule, leaseOnly(Action::Reschedule)},
        {Action::Delete, leaseOnly(Action::Delete)},
        {Action::Prune, ""},
        {Action::RetryExpired, ""},
        {Action::Enqueue, ""},
        {Action::Vacuum, ""},
        {Action::Upgrade, noUpgrade},
    };
}

QueueFormat::UpgradeState LitequeueFormat::upgradeState() const noexcept {
    switch (m_version) {
    case Version::Legacy:
    case Version::V013:
        return UpgradeState::Offered;
    case Version::V014:
        return UpgradeState::Current;
    default:
        return UpgradeState::NotApplicable;
    }
}

std::string LitequeueFormat::notice(const FormatInfo& info) const {
    (void)info;
    switch (m_version) {
    case Version::Legacy:
        return "Legacy litequeue file (0.6–0.12): no claim ids, so actions check lock_time as "
               "the claim token. Upgrading to 0.14 adds claim ids and idempotency keys.";
    case Version::V013:
        return "litequeue 0.13 file (times in seconds). Upgrading to 0.14 converts the times to "
               "nanoseconds.";
    default:
        return {};
    }
}

} // namespace lq::core

// ---- recognition -------------------------------------------------------------

namespace lq::core {

namespace {

const std::set<std::string> kLegacyColumns = {"data",    "message_id", "status",
                                              "in_time", "lock_time",  "done_time"};

// The maxsize limit N of a trigger that is exactly litequeue's maxsize trigger
// on `table` (docs/FORMATS.md), compared with case, white space, identifier quotes and
// a trailing ';' folded away. Anything else is not the maxsize trigger, even
// when its name and message look like it.
std::optional<std::int64_t> maxsizeFromTrigger(const std::string& sql, const std::string& table) {
    std::string norm;
    for (char ch : sql) {
        const auto c = static_cast<unsigned char>(ch);
        if (std::isspace(c) || ch == '"' || ch == '`' || ch == '[' || ch == ']')
            continue;
        norm += static_cast<char>(std::tolower(c));
    }
    while (!norm.empty() && norm.back() == ';')
        norm.pop_back();
    std::string t;
    for (char ch : table)
        if (!std::isspace(static_cast<unsigned char>(ch)))
            t += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    const std::string head = "createtriggermaxsize_control_" + t + "beforeinserton" + t +
                             "when(selectcount(*)from" + t + "wherestatus=0)>=";
    if (norm.rfind(head, 0) != 0)
        return std::nullopt;
    std::size_t i = head.size();
    std::string n;
    while (i < norm.size() && std::isdigit(static_cast<unsigned char>(norm[i])))
        n += norm[i++];
    if (n.empty() || n.size() > 18)
        return std::nullopt;
    if (norm.substr(i) != "beginselectraise(abort,'maxqueuelengthreached:" + n + "');end")
        return std::nullopt;
    return std::stoll(n);
}

void throwPre06(const std::string& path) {
    throw Unsupported(path, "pre-0.6 litequeue schema (column `message`): "
                            "unsupported; migrate it with litequeue 0.6 or later");
}

} // namespace

void LitequeueFormat::explainNoMatch(const SchemaFacts& s) const {
    for (const auto& t : s.tables) {
        const auto& cols = s.columns.at(t);
        if (cols.count("message") && cols.count("status"))
            throwPre06(s.path);
    }
}

std::optional<FormatInfo> LitequeueFormat::recognise(const SchemaFacts& s,
                                                     const std::string& preferTable) const {
    const std::string& path = s.path;
    std::vector<std::string> queueShaped, others;
    for (const auto& t : s.tables)
        (s.hasColumns(t, kLegacyColumns) ? queueShaped : others).push_back(t);

    FormatInfo info;
    info.userVersion = s.userVersion;
    info.journalMode = s.journalMode;
    const bool onlyQueueTable = s.tables.size() == 1 && s.tables[0] == "Queue";
    if (onlyQueueTable || (queueShaped.size() == 1 && queueShaped[0] == "Queue")) {
        const auto& cols = s.columns.at("Queue");
        if (!s.hasColumns("Queue", kLegacyColumns)) {
            if (cols.count("message"))
                throwPre06(path);
            if (cols.count("task_id"))
                throw Unsupported(path, "pre-0.4 litequeue schema (column `task_id`): "
                                        "unsupported");
            std::vector<std::string> missing;
            for (const auto& want : kLegacyColumns)
                if (!cols.count(want))
                    missing.push_back(want);
            throw Unsupported(path, "table Queue is missing columns " + joinNames(missing) +
                                        ": not a litequeue queue");
        }
        info.table = "Queue";
        info.queueTables = {"Queue"};
        info.hasClaimId = cols.count("claim_id") > 0;
        info.hasIdempotencyKey = cols.count("idempotency_key") > 0;
        if (info.hasClaimId && info.hasIdempotencyKey) {
            if (info.userVersion == 3) {
                info.format = &of(Version::V014);
            } else if (info.userVersion == 2) {
                info.format = &of(Version::V013);
                info.timeUnit = TimeUnit::Seconds;
            } else {
                info.format = &of(Version::Other);
                auto st = s.conn->prepare(
                    "SELECT in_time FROM \"Queue\" WHERE in_time IS NOT NULL LIMIT 1");
                if (st.step() && st.real(0) < 1e12)
                    info.timeUnit = TimeUnit::Seconds;
                info.readOnlyReason = "unknown litequeue user_version " +
                                      std::to_string(info.userVersion) + ": shown read-only";
            }
        } else {
            info.format = &of(Version::Legacy);
        }
        if (!others.empty())
            info.readOnlyReason = "unexpected table(s) " + joinNames(others) +
                                  " beside Queue (litequeue refuses such files): read-only";
    } else if (!queueShaped.empty() && others.empty()) {
        info.format = &of(Version::Multi);
        info.queueTables = queueShaped;
        info.table = queueShaped.front();
        if (!preferTable.empty()) {
            if (std::find(queueShaped.begin(), queueShaped.end(), preferTable) == queueShaped.end())
                throw Error(ErrorKind::InvalidArgument, path,
                            "no queue table named " + preferTable + " (found " +
                                joinNames(queueShaped) + ")");
            info.table = preferTable;
        }
        info.readOnlyReason = "litequeue ≤ 0.9 file with several queue tables (" +
                              joinNames(queueShaped) +
                              "): read-only; migrate each to its own file with litequeue's "
                              "single-queue migration guide";
    } else {
        return std::nullopt;
    }

    // Triggers and views: only the litequeue maxsize trigger is expected.
    refuseUnexpectedObjects(s, info, {}, [&](const SchemaObject& o) {
        return o.name == "maxsize_control_" + o.table &&
               maxsizeFromTrigger(o.sql, o.table).has_value() &&
               std::find(info.queueTables.begin(), info.queueTables.end(), o.table) !=
                   info.queueTables.end();
    });
    for (const auto& o : s.objects) {
        if (o.type == "trigger" && o.table == info.table &&
            o.name == "maxsize_control_" + o.table) {
            if (auto n = maxsizeFromTrigger(o.sql, o.table)) {
                info.maxsize = n;
                info.maxsizeTrigger = o.name;
            }
        } else if (o.type == "index" && o.table == info.table &&
                   o.sql.find("idempotency_key") != std::string::npos) {
            info.hasIdempotencyIndex = true;
        }
    }
    return info;
}

} // namespace lq::core
