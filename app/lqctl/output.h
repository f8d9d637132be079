// SPDX-License-Identifier: MIT
#pragma once

// Formatting for lqctl: message objects, aligned tables, RFC 4180 CSV, the
// stats object of README.md#lqctl and the Prometheus text exposition format.

#include <core/format.h>
#include <core/json.h>
#include <core/message.h>
#include <core/query.h>
#include <core/statemodel.h>
#include <core/stats.h>

#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace lq::ctl {

/// Writes to stdout (binary-safe).
void out(std::string_view s);
/// Writes to stderr.
void err(std::string_view s);

/// One message with every column (README.md#lqctl `list --json`): message_id,
/// status, claim_id, token, idempotency_key, data, in_time, lock_time,
/// done_time, wait_ns, processing_ns, age_ns. `data` is text (invalid UTF-8
/// replaced by U+FFFD); when it is not exact text, `data_base64` holds the
/// stored bytes. Formats with a schedule add run_at, locked_until and attempts;
/// the fields a format has beyond litequeue follow where the message has
/// them: extra_state, stored_status, queue, job, priority, max_attempts,
/// error, token_text, scheduled_at, lease_expiry, data_note.
core::Json messageJson(const core::Message& m, core::TimeNs now, const core::FormatInfo& info);
/// "READY", ..., the format's own state ("retryable", "blocked") or
/// "UNKNOWN(7)" / "UNKNOWN(weird)". Terminal-safe.
std::string statusText(const core::Message& m);
/// statusText(), plus the format's own state where it refines a canonical
/// one: "FAILED (dead_letter)", "LOCKED (locked_expired)".
std::string statusLabel(const core::Message& m);

std::string base64(std::string_view bytes);
/// Valid UTF-8 without control characters: a stored value worth showing
/// as it is (a text claim token, not a format's internal record).
bool isPlainText(std::string_view s);
/// Text that is safe on a terminal: valid UTF-8, control characters escaped
/// (\n, \t, \x1b), cut to `maxChars` code points with "…". `keepLayout`
/// passes newlines and tabs through (for a payload shown on its own).
std::string terminalSafe(std::string_view s, std::size_t maxChars = std::string_view::npos,
                         bool keepLayout = false);
/// Code points in valid UTF-8 (an approximation of the display width).
std::size_t displayWidth(std::string_view s);

/// An aligned plain-text table.
class Table {
public:
    explicit Table(std::vector<std::string> headers, std::vector<bool> rightAligned = {});
    void addRow(std::vector<std::string> cells);
    std::string render() const;
    std::size_t rowCount() const { return m_rows.size(); }

private:
    std::vector<std::string> m_headers;
    std::vector<bool> m_right;
    std::vector<std::vector<std::string>> m_rows;
};

/// One RFC 4180 record, CRLF-terminated.
std::string csvRecord(const std::vector<std::string>& fields);
std::string optionalInt(const std::optional<std::int64_t>& v);

/// Humane duration or "-" when unset.
std::string durationOrDash(const std::optional<core::TimeNs>& ns);
/// now - t, humanely ("?" when a damaged file's timestamp overflows).
std::string ageText(core::TimeNs now, core::TimeNs t);
/// "in 5 m 0 s" / "3 m 0 s ago" / "-".
std::string relativeTime(const std::optional<core::TimeNs>& t, core::TimeNs now);

/// {"count","p50","p90","p99","max"}; p-values null when count is 0.
core::Json summaryJson(const core::Summary& s);
/// The object of README.md#lqctl `stats --json`.
core::Json statsJson(const core::FormatInfo& info, const core::Counts& c,
                     const core::QueueStats& st);
/// The state model's partition (core/statemodel.h) as a JSON object:
/// ready, scheduled, locked, done, failed (0 where the format has no such
/// state), unknown when rows are in it, active, stored, and `extra` with the
/// format's own exclusive states. Every key but active and stored, and every
/// key of extra, sums to stored.
core::Json countsJson(const core::Counts& c, const core::FormatInfo& info);
/// The model's sub-counts: {"stuck": {"within": ["locked"], "count": N}, ...}.
core::Json subCountsJson(const core::StateModel& m);
core::Json partitionJson(const core::StateModel& m);

/// Prometheus text exposition (version 0.0.4) for the textfile collector.
std::string prometheusText(const std::string& queuePath, const core::FormatInfo& info,
                           const core::Counts& c, const core::QueueStats& st,
                           double stuckAfterSeconds, std::int64_t fileSize, std::int64_t walSize,
                           core::TimeNs now);
/// One queue of a Prometheus exposition.
struct PromQueue {
    std::string path;
    core::FormatInfo info;
    /// The format label ("oban" on PostgreSQL); empty: info.format's id.
    std::string format;
    core::Counts counts;
    core::QueueStats stats;
    std::int64_t fileSize = 0;
    std::int64_t walSize = 0;
    /// A file, with a -wal file beside it; false for a database, which has
    /// no lq_file_bytes{file="wal"} series.
    bool isFile = true;
    /// Formats with named queues: each queue's counts, by name; exported
    /// with a queue_name label (queue is the file's path).
    std::vector<std::pair<std::string, core::Counts>> namedQueues;
};
/// Several queues in one exposition (`lqctl fleet --prometheus`): one
/// HELP/TYPE per family, then the family's samples for every queue, each
/// labelled queue="PATH" (and table="T" when `tableLabel`, so the tables of
/// a multi file stay distinct series).
std::string prometheusText(const std::vector<PromQueue>& queues, double stuckAfterSeconds,
                           core::TimeNs now, bool tableLabel);
/// Label value escaping of the exposition format: \\, \" and \n.
std::string promLabelValue(std::string_view v);
/// Exact decimal seconds from ns ("1.5", "0.000000001").
std::string nsToSecondsText(core::TimeNs ns);

} // namespace lq::ctl
