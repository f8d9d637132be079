// SPDX-License-Identifier: MIT
#include "format.h"

#include "error.h"
#include "sqlite.h"

#include <sqlite3.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace lq::core {

const char* formatId(Format f) noexcept {
    switch (f) {
    case Format::Litequeue014:
        return "litequeue-0.14";
    case Format::Litequeue013:
        return "litequeue-0.13";
    case Format::LitequeueLegacy:
        return "litequeue-legacy";
    case Format::LitequeueMulti:
        return "litequeue-multi";
    case Format::LitequeueOther:
        return "litequeue-unknown";
    case Format::JobsLease:
        return "jobs-lease";
    }
    return "unknown";
}

namespace {

struct SchemaObject {
    std::string type, name, table, sql;
};

const std::set<std::string> kLegacyColumns = {"data",    "message_id", "status",
                                              "in_time", "lock_time",  "done_time"};
const std::set<std::string> kJobsColumns = {"id", "payload", "run_at", "locked_until", "attempts"};

std::set<std::string> columnsOf(Connection& c, const std::string& table) {
    std::set<std::string> cols;
    auto st = c.prepare("PRAGMA table_info(" + quoteIdent(table) + ")");
    while (st.step())
        cols.insert(st.text(1));
    return cols;
}

bool hasAll(const std::set<std::string>& cols, const std::set<std::string>& want) {
    return std::includes(cols.begin(), cols.end(), want.begin(), want.end());
}

std::string joinNames(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& n : names) {
        if (!out.empty())
            out += ", ";
        out += n;
    }
    return out;
}

// The maxsize limit N of a trigger that is exactly litequeue's maxsize trigger
// on `table` (SPEC §2), compared with case, white space, identifier quotes and
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

} // namespace

FormatInfo detectFormat(Connection& c, const std::string& preferTable) {
    const std::string& path = c.path();
    std::vector<SchemaObject> objects;
    {
        auto st = c.prepare("SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_master");
        while (st.step())
            objects.push_back({st.text(0), st.text(1), st.text(2), st.text(3)});
    }
    std::vector<std::string> tables;
    for (const auto& o : objects) {
        if (o.type == "table" && o.name.rfind("sqlite_", 0) != 0)
            tables.push_back(o.name);
    }
    if (tables.empty())
        throw NotAQueue(path, "empty database: no queue table (nothing to show)");

    FormatInfo info;
    info.userVersion = c.pragmaInt("user_version");
    info.journalMode = c.pragmaText("journal_mode");

    // Classify every table by its columns.
    std::vector<std::string> queueShaped, others;
    std::map<std::string, std::set<std::string>> columns;
    for (const auto& t : tables) {
        columns[t] = columnsOf(c, t);
        if (hasAll(columns[t], kLegacyColumns))
            queueShaped.push_back(t);
        else
            others.push_back(t);
    }

    const bool onlyQueueTable = tables.size() == 1 && tables[0] == "Queue";
    if (tables.size() == 1 && tables[0] == "jobs" && hasAll(columns["jobs"], kJobsColumns)) {
        info.format = Format::JobsLease;
        info.table = "jobs";
        info.queueTables = {"jobs"};
        info.timeUnit = TimeUnit::Seconds;
    } else if (onlyQueueTable || (queueShaped.size() == 1 && queueShaped[0] == "Queue")) {
        const auto& cols = columns["Queue"];
        if (!hasAll(cols, kLegacyColumns)) {
            if (cols.count("message"))
                throw Unsupported(path, "pre-0.6 litequeue schema (column `message`): "
                                        "unsupported; migrate it with litequeue 0.6 or later");
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
                info.format = Format::Litequeue014;
            } else if (info.userVersion == 2) {
                info.format = Format::Litequeue013;
                info.timeUnit = TimeUnit::Seconds;
            } else {
                info.format = Format::LitequeueOther;
                auto st =
                    c.prepare("SELECT in_time FROM \"Queue\" WHERE in_time IS NOT NULL LIMIT 1");
                if (st.step() && st.real(0) < 1e12)
                    info.timeUnit = TimeUnit::Seconds;
                info.readOnlyReason = "unknown litequeue user_version " +
                                      std::to_string(info.userVersion) + ": shown read-only";
            }
        } else {
            info.format = Format::LitequeueLegacy;
        }
        if (!others.empty())
            info.readOnlyReason = "unexpected table(s) " + joinNames(others) +
                                  " beside Queue (litequeue refuses such files): read-only";
    } else if (queueShaped.size() >= 1 && others.empty()) {
        info.format = Format::LitequeueMulti;
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
        for (const auto& t : tables) {
            if (columns[t].count("message") && columns[t].count("status"))
                throw Unsupported(path, "pre-0.6 litequeue schema (column `message`): "
                                        "unsupported; migrate it with litequeue 0.6 or later");
        }
        throw NotAQueue(path, "not a queue file: found tables " + joinNames(tables));
    }

    // Triggers and views: only the litequeue maxsize trigger is expected.
    std::vector<std::string> unexpected;
    for (const auto& o : objects) {
        if (o.type == "view") {
            unexpected.push_back("view `" + o.name + "`");
        } else if (o.type == "trigger") {
            const bool isMaxsize = o.name == "maxsize_control_" + o.table &&
                                   maxsizeFromTrigger(o.sql, o.table).has_value() &&
                                   std::find(info.queueTables.begin(), info.queueTables.end(),
                                             o.table) != info.queueTables.end();
            if (!isMaxsize) {
                unexpected.push_back("trigger `" + o.name + "`");
            } else if (o.table == info.table) {
                info.maxsize = maxsizeFromTrigger(o.sql, o.table);
                info.maxsizeTrigger = o.name;
            }
        } else if (o.type == "index" && o.table == info.table &&
                   o.sql.find("idempotency_key") != std::string::npos) {
            info.hasIdempotencyIndex = true;
        }
    }
    if (!unexpected.empty()) {
        const std::string reason = "unexpected " + joinNames(unexpected) +
                                   " in the file: writes are disabled so it cannot run";
        info.readOnlyReason =
            info.readOnlyReason.empty() ? reason : info.readOnlyReason + "; " + reason;
    }
    // WITHOUT ROWID tables cannot be paged by rowid.
    {
        auto st = c.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ? AND "
                            "sql LIKE '%WITHOUT ROWID%'");
        st.bind(1, std::string_view(info.table));
        if (st.step())
            throw Unsupported(path, "table " + info.table + " is WITHOUT ROWID: unsupported");
    }
    return info;
}

} // namespace lq::core
