// SPDX-License-Identifier: MIT
// `lqctl list`: the messages of a queue as a table, JSON or CSV. The
// columns follow what the format declares (QueueFormat::fields(),
// storesTime(), storesMetric()), under the format's own labels; no format
// is named here.
#include "commands.h"
#include "output.h"

#include <core/errors.h>
#include <core/formats/queueformat.h>

#include <algorithm>
#include <cctype>
#include <functional>

namespace lq::ctl {

using core::Message;
using core::TimeNs;
using Field = core::QueueFormat::Field;

namespace {

/// One column of the plain table: its header, alignment, and its cell.
struct Column {
    std::string header;
    bool right = false;
    std::function<std::string(const Message&)> cell;
    /// Dropped when no listed message has a value ("-" in every row).
    bool optional = false;
};

std::string upper(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    return s;
}

std::vector<Column> plainColumns(const core::QueueFormat& qf, const core::FormatInfo& info,
                                 TimeNs now) {
    using Metric = core::Filter::Metric;
    using BaseTime = core::QueueFormat::BaseTime;
    std::vector<Column> cols;
    cols.push_back(
        {"MESSAGE ID", false, [](const Message& m) { return terminalSafe(m.messageId, 40); }});
    cols.push_back({"STATUS", false, [](const Message& m) { return statusLabel(m); }});
    // A numeric claim token is its own column where the format shows no
    // token or attempts field of its own.
    if (!qf.hasField(Field::Token) && !qf.hasField(Field::Attempts))
        cols.push_back({"CLAIM", true, [](const Message& m) { return num(m.token); }});
    if (qf.hasField(Field::Attempts))
        cols.push_back({upper(qf.fieldLabel(Field::Attempts)), true, [](const Message& m) {
                            return m.maxAttempts ? num(m.attempts) + "/" + num(*m.maxAttempts)
                                                 : num(m.attempts);
                        }});
    cols.push_back({"AGE", true, [now](const Message& m) { return durationOrDash(m.ageNs(now)); },
                    !qf.storesTime(BaseTime::Enqueued)});
    if (qf.storesMetric(Metric::Wait, info))
        cols.push_back(
            {"WAIT", true, [](const Message& m) { return durationOrDash(m.waitNs()); }, true});
    if (qf.storesMetric(Metric::Processing, info))
        cols.push_back({"PROCESSING", true,
                        [](const Message& m) { return durationOrDash(m.processingNs()); }, true});
    if (qf.hasField(Field::ScheduledAt))
        cols.push_back({upper(qf.fieldLabel(Field::ScheduledAt)), true,
                        [now](const Message& m) { return relativeTime(m.scheduledAt, now); },
                        true});
    if (qf.hasField(Field::LeaseExpiry))
        cols.push_back({upper(qf.fieldLabel(Field::LeaseExpiry)), true,
                        [now](const Message& m) { return relativeTime(m.leaseExpiry, now); },
                        true});
    if (qf.namedQueues())
        cols.push_back({"QUEUE", false, [](const Message& m) {
                            return m.queueName ? terminalSafe(*m.queueName, 24) : "-";
                        }});
    cols.push_back({"JOB", false,
                    [](const Message& m) { return m.jobName ? terminalSafe(*m.jobName, 32) : "-"; },
                    true});
    if (info.hasIdempotencyKey)
        cols.push_back({"KEY", false, [](const Message& m) {
                            return m.idempotencyKey ? terminalSafe(*m.idempotencyKey, 24) : "-";
                        }});
    // The error's class (core::errorClassOf), as `lqctl errors` groups it.
    cols.push_back({"ERROR", false,
                    [](const Message& m) {
                        const std::string e =
                            m.lastError ? core::errorClassOf(*m.lastError) : std::string();
                        return e.empty() ? std::string("-") : terminalSafe(e, 40);
                    },
                    true});
    cols.push_back({"DATA", false, [](const Message& m) { return terminalSafe(m.data, 48); }});
    return cols;
}

/// The CSV columns beyond litequeue's: the declared fields, by their JSON
/// names (messageJson()).
std::vector<std::pair<std::string, std::function<std::string(const Message&)>>>
csvFieldColumns(const core::QueueFormat& qf) {
    std::vector<std::pair<std::string, std::function<std::string(const Message&)>>> cols;
    if (qf.hasField(Field::Attempts))
        cols.emplace_back("attempts", [](const Message& m) { return num(m.attempts); });
    if (qf.hasField(Field::ScheduledAt))
        cols.emplace_back("scheduled_at",
                          [](const Message& m) { return optionalInt(m.scheduledAt); });
    if (qf.hasField(Field::LeaseExpiry))
        cols.emplace_back("lease_expiry",
                          [](const Message& m) { return optionalInt(m.leaseExpiry); });
    if (qf.namedQueues()) {
        cols.emplace_back("queue",
                          [](const Message& m) { return m.queueName.value_or(std::string()); });
        cols.emplace_back("job",
                          [](const Message& m) { return m.jobName.value_or(std::string()); });
    }
    return cols;
}

} // namespace

int cmdList(const Options& o) {
    auto q = openBackendFor(o, false);
    const auto& info = q->info();
    const core::QueueFormat& qf = core::QueueFormat::of(info);
    checkOwnStates(o, qf);
    const core::Filter f = filterFrom(o, qf);
    const TimeNs now = o.now ? *o.now : q->now();
    const bool plain = !o.json && !o.csv;
    const std::int64_t limit = o.limit ? *o.limit : (plain ? 100 : 0);

    // With a limit: one page and an exact count. Without: a stable snapshot
    // of every matching rowid, fetched in blocks so memory stays bounded.
    std::vector<Message> page;
    std::vector<std::int64_t> rowids;
    std::size_t total = 0;
    if (limit > 0) {
        page = q->list(f, core::Sort{}, 0, limit);
        total = static_cast<std::size_t>(q->count(f));
    } else {
        rowids = q->orderedRowids(f, core::Sort{}, nullptr);
        total = rowids.size();
    }

    constexpr std::size_t kBlock = 1000;
    auto forEachMessage = [&](auto&& fn) {
        for (const auto& m : page)
            fn(m);
        for (std::size_t i = 0; i < rowids.size(); i += kBlock) {
            const std::size_t end = std::min(rowids.size(), i + kBlock);
            const std::vector<std::int64_t> block(rowids.begin() + static_cast<std::ptrdiff_t>(i),
                                                  rowids.begin() +
                                                      static_cast<std::ptrdiff_t>(end));
            for (const auto& m : q->fetchRowids(block))
                fn(m);
        }
    };

    if (o.json) {
        out("[");
        bool first = true;
        forEachMessage([&](const Message& m) {
            out(first ? "\n" : ",\n");
            first = false;
            out(messageJson(m, now, info).dump());
        });
        out(first ? "]\n" : "\n]\n");
        return ExitOk;
    }
    if (o.csv) {
        std::vector<std::string> header = {
            "message_id", "status",    "claim_id",  "token",   "idempotency_key", "data",
            "in_time",    "lock_time", "done_time", "wait_ns", "processing_ns",   "age_ns"};
        const auto fields = csvFieldColumns(qf);
        for (const auto& c : fields)
            header.push_back(c.first);
        out(csvRecord(header));
        forEachMessage([&](const Message& m) {
            std::vector<std::string> row = {m.messageId,
                                            statusText(m),
                                            num(m.claimId),
                                            num(m.token),
                                            m.idempotencyKey.value_or(std::string()),
                                            m.data,
                                            optionalInt(m.inTime),
                                            optionalInt(m.lockTime),
                                            optionalInt(m.doneTime),
                                            optionalInt(m.waitNs()),
                                            optionalInt(m.processingNs()),
                                            optionalInt(m.ageNs(now))};
            for (const auto& c : fields)
                row.push_back(c.second(m));
            out(csvRecord(row));
        });
        return ExitOk;
    }

    std::vector<Column> cols = plainColumns(qf, info, now);
    std::vector<std::vector<std::string>> rows;
    std::vector<bool> used(cols.size(), false);
    forEachMessage([&](const Message& m) {
        std::vector<std::string> row;
        row.reserve(cols.size());
        for (std::size_t i = 0; i < cols.size(); ++i) {
            row.push_back(cols[i].cell(m));
            used[i] = used[i] || row.back() != "-";
        }
        rows.push_back(std::move(row));
    });
    if (rows.empty()) {
        err("no messages match\n");
        return ExitOk;
    }
    // Drop the optional columns no listed message has a value for (the
    // later ones first, so the indexes stay right).
    for (std::size_t i = cols.size(); i-- > 0;) {
        if (!cols[i].optional || used[i])
            continue;
        cols.erase(cols.begin() + static_cast<std::ptrdiff_t>(i));
        for (auto& row : rows)
            row.erase(row.begin() + static_cast<std::ptrdiff_t>(i));
    }
    std::vector<std::string> header;
    std::vector<bool> right;
    for (const Column& c : cols) {
        header.push_back(c.header);
        right.push_back(c.right);
    }
    Table t(header, right);
    for (auto& row : rows)
        t.addRow(std::move(row));
    out(t.render());
    if (t.rowCount() < total) {
        err("showing " + num(static_cast<std::int64_t>(t.rowCount())) + " of " +
            num(static_cast<std::int64_t>(total)) + " messages (--limit 0 shows all)\n");
    }
    return ExitOk;
}

} // namespace lq::ctl
