// SPDX-License-Identifier: MIT
#include "output.h"

#include <core/errors.h>
#include <core/statemodel.h>

#include <core/formats/queueformat.h>

#include <core/timefmt.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <functional>

namespace lq::ctl {

using core::Json;
using core::TimeNs;

void out(std::string_view s) {
    std::fwrite(s.data(), 1, s.size(), stdout);
}

void err(std::string_view s) {
    std::fwrite(s.data(), 1, s.size(), stderr);
}

std::string statusText(const core::Message& m) {
    if (m.state == core::State::Unknown) {
        // A state of the format's own (Oban's retryable, Solid Queue's
        // blocked): its name, not UNKNOWN.
        if (!m.extraState.empty())
            return terminalSafe(m.extraState, 40);
        if (!m.statusText.empty())
            return "UNKNOWN(" + terminalSafe(m.statusText, 40) + ")";
        return "UNKNOWN(" + std::to_string(m.rawStatus) + ")";
    }
    return core::stateName(m.state);
}

std::string statusLabel(const core::Message& m) {
    std::string s = statusText(m);
    if (m.state != core::State::Unknown && !m.extraState.empty())
        s += " (" + terminalSafe(m.extraState, 40) + ")";
    return s;
}

namespace {

Json optTime(const std::optional<TimeNs>& t) {
    return t ? Json(*t) : Json();
}

} // namespace

Json messageJson(const core::Message& m, TimeNs now, const core::FormatInfo& info) {
    Json o = Json::object();
    o.set("message_id", m.messageId);
    o.set("status", statusText(m));
    o.set("claim_id", m.claimId);
    o.set("token", m.token);
    o.set("idempotency_key", m.idempotencyKey ? Json(*m.idempotencyKey) : Json());
    o.set("data", m.data);
    if (m.dataIsBlob || !core::isValidUtf8(m.data))
        o.set("data_base64", base64(m.data));
    o.set("in_time", optTime(m.inTime));
    o.set("lock_time", optTime(m.lockTime));
    o.set("done_time", optTime(m.doneTime));
    o.set("wait_ns", optTime(m.waitNs()));
    o.set("processing_ns", optTime(m.processingNs()));
    o.set("age_ns", optTime(m.ageNs(now)));
    const core::QueueFormat& qf = core::QueueFormat::of(info);
    if (qf.hasField(core::QueueFormat::Field::Attempts)) {
        o.set("attempts", m.attempts);
    }
    // The fields of the formats beyond litequeue, where the message has them.
    if (!m.extraState.empty())
        o.set("extra_state", m.extraState);
    if (!m.statusText.empty())
        o.set("stored_status", m.statusText);
    const auto optText = [&](const char* key, const std::optional<std::string>& v) {
        if (v)
            o.set(key, *v);
    };
    const auto optInt = [&](const char* key, const std::optional<std::int64_t>& v) {
        if (v)
            o.set(key, *v);
    };
    optText("queue", m.queueName);
    optText("job", m.jobName);
    optInt("priority", m.priority);
    optInt("max_attempts", m.maxAttempts);
    optText("error", m.lastError);
    // The error's class, as `lqctl errors` groups it and list's ERROR column shows it.
    if (m.lastError)
        o.set("error_class", core::errorClassOf(*m.lastError));
    if (m.tokenText && isPlainText(*m.tokenText))
        o.set("token_text", *m.tokenText);
    if (m.scheduledAt)
        o.set("scheduled_at", *m.scheduledAt);
    if (m.leaseExpiry)
        o.set("lease_expiry", *m.leaseExpiry);
    optText("data_note", m.dataNote);
    return o;
}

bool isPlainText(std::string_view s) {
    return core::isValidUtf8(s) && std::none_of(s.begin(), s.end(), [](char c) {
               return static_cast<unsigned char>(c) < 0x20 || c == 0x7F;
           });
}

std::string base64(std::string_view bytes) {
    static constexpr char kAlphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string r;
    r.reserve((bytes.size() + 2) / 3 * 4);
    std::size_t i = 0;
    for (; i + 2 < bytes.size(); i += 3) {
        const std::uint32_t v = (static_cast<unsigned char>(bytes[i]) << 16) |
                                (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                                static_cast<unsigned char>(bytes[i + 2]);
        r += kAlphabet[(v >> 18) & 63];
        r += kAlphabet[(v >> 12) & 63];
        r += kAlphabet[(v >> 6) & 63];
        r += kAlphabet[v & 63];
    }
    const std::size_t rest = bytes.size() - i;
    if (rest > 0) {
        std::uint32_t v = static_cast<unsigned char>(bytes[i]) << 16;
        if (rest == 2)
            v |= static_cast<unsigned char>(bytes[i + 1]) << 8;
        r += kAlphabet[(v >> 18) & 63];
        r += kAlphabet[(v >> 12) & 63];
        r += rest == 2 ? kAlphabet[(v >> 6) & 63] : '=';
        r += '=';
    }
    return r;
}

std::string terminalSafe(std::string_view s, std::size_t maxChars, bool keepLayout) {
    std::string r;
    std::size_t chars = 0;
    for (std::size_t i = 0; i < s.size();) {
        if (chars >= maxChars) {
            r += "…";
            break;
        }
        const auto c = static_cast<unsigned char>(s[i]);
        const std::size_t n = core::utf8SequenceLength(s, i);
        std::string piece;
        if (n == 0) {
            piece = "\xEF\xBF\xBD"; // U+FFFD
            i += 1;
        } else if (n == 1) {
            if (keepLayout && (c == '\n' || c == '\t'))
                // A kept newline or tab is one char too. NOLINTNEXTLINE(bugprone-branch-clone)
                piece.assign(1, static_cast<char>(c));
            else if (c == '\n')
                piece = "\\n";
            else if (c == '\t')
                piece = "\\t";
            else if (c == '\r')
                piece = "\\r";
            else if (c < 0x20 || c == 0x7F) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\x%02x", c);
                piece = buf;
            } else {
                piece.assign(1, static_cast<char>(c));
            }
            i += 1;
        } else {
            // C1 controls (U+0080..U+009F) are terminal escapes too.
            const bool c1 = n == 2 && c == 0xC2 && static_cast<unsigned char>(s[i + 1]) < 0xA0;
            piece = c1 ? std::string("\xEF\xBF\xBD") : std::string(s.substr(i, n));
            i += n;
        }
        r += piece;
        chars += displayWidth(piece);
    }
    return r;
}

std::size_t displayWidth(std::string_view s) {
    std::size_t n = 0;
    for (const char ch : s) {
        if ((static_cast<unsigned char>(ch) & 0xC0) != 0x80)
            ++n;
    }
    return n;
}

Table::Table(std::vector<std::string> headers, std::vector<bool> rightAligned)
    : m_headers(std::move(headers))
    , m_right(std::move(rightAligned)) {
    m_right.resize(m_headers.size(), false);
}

void Table::addRow(std::vector<std::string> cells) {
    cells.resize(m_headers.size());
    m_rows.push_back(std::move(cells));
}

std::string Table::render() const {
    std::vector<std::size_t> width(m_headers.size(), 0);
    auto measure = [&](const std::vector<std::string>& row) {
        for (std::size_t i = 0; i < row.size(); ++i)
            width[i] = std::max(width[i], displayWidth(row[i]));
    };
    measure(m_headers);
    for (const auto& row : m_rows)
        measure(row);

    std::string r;
    auto emit = [&](const std::vector<std::string>& row) {
        std::string line;
        for (std::size_t i = 0; i < row.size(); ++i) {
            const std::size_t pad = width[i] - displayWidth(row[i]);
            const bool last = i + 1 == row.size();
            if (m_right[i])
                line.append(pad, ' ');
            line += row[i];
            if (!m_right[i] && !last)
                line.append(pad, ' ');
            if (!last)
                line += "  ";
        }
        while (!line.empty() && line.back() == ' ')
            line.pop_back();
        r += line;
        r += '\n';
    };
    emit(m_headers);
    for (const auto& row : m_rows)
        emit(row);
    return r;
}

std::string csvRecord(const std::vector<std::string>& fields) {
    std::string r;
    for (std::size_t i = 0; i < fields.size(); ++i) {
        if (i > 0)
            r += ',';
        const std::string& f = fields[i];
        if (f.find_first_of(",\"\r\n") == std::string::npos) {
            r += f;
            continue;
        }
        r += '"';
        for (const char c : f) {
            if (c == '"')
                r += '"';
            r += c;
        }
        r += '"';
    }
    r += "\r\n";
    return r;
}

std::string optionalInt(const std::optional<std::int64_t>& v) {
    return v ? std::to_string(*v) : std::string();
}

std::string durationOrDash(const std::optional<TimeNs>& ns) {
    return ns ? core::humanDuration(*ns) : std::string("-");
}

/// "in 5 m 0 s" / "3 m 0 s ago" / "-".
// now - t, humanely; "?" when a damaged file's timestamp makes it overflow.
std::string ageText(TimeNs now, TimeNs t) {
    const auto d = core::diffNs(now, t);
    return d ? core::humanDuration(*d) : std::string("?");
}

std::string relativeTime(const std::optional<TimeNs>& t, TimeNs now) {
    if (!t)
        return "-";
    // Damaged files can hold any timestamp: no difference may overflow.
    const auto ahead = core::diffNs(*t, now);
    if (!ahead)
        return "?";
    if (*ahead >= 0)
        return "in " + core::humanDuration(*ahead);
    return ageText(now, *t) + " ago";
}

Json summaryJson(const core::Summary& s) {
    Json o = Json::object();
    o.set("count", s.count);
    const bool any = s.count > 0;
    o.set("p50", any ? optTime(s.p50) : Json());
    o.set("p90", any ? optTime(s.p90) : Json());
    o.set("p99", any ? optTime(s.p99) : Json());
    o.set("max", any ? optTime(s.max) : Json());
    return o;
}

Json partitionJson(const core::StateModel& m) {
    Json o = Json::object();
    // The canonical states for every format (0 where it has none), then
    // unknown when rows are in it; the format's own states under "extra".
    for (const std::string& name : core::canonicalStateNames())
        o.set(name, m.count(name));
    Json extra = Json::object();
    for (const auto& e : m.partition) {
        if (e.state.name == "unknown")
            o.set("unknown", e.count);
        else if (!e.state.canonical)
            extra.set(e.state.name, e.count);
    }
    o.set("active", m.active());
    o.set("stored", m.stored);
    o.set("extra", std::move(extra));
    return o;
}

Json subCountsJson(const core::StateModel& m) {
    Json o = Json::object();
    for (const auto& s : m.subCounts) {
        Json e = Json::object();
        Json within = Json::array();
        for (const auto& w : s.state.within)
            within.push(w);
        e.set("within", std::move(within));
        e.set("count", s.count);
        o.set(s.state.name, std::move(e));
    }
    return o;
}

Json countsJson(const core::Counts& c, const core::FormatInfo& info) {
    return partitionJson(core::stateModel(core::QueueFormat::of(info), c));
}

Json statsJson(const core::FormatInfo& info, const core::Counts& c, const core::QueueStats& st) {
    const core::StateModel m = core::stateModel(core::QueueFormat::of(info), c);
    Json o = Json::object();
    o.set("format", core::formatId(info.format));
    o.set("counts", partitionJson(m));
    o.set("sub_counts", subCountsJson(m));
    o.set("maxsize", info.maxsize ? Json(*info.maxsize) : Json());
    Json lat = Json::object();
    lat.set("wait", summaryJson(st.wait));
    lat.set("processing", summaryJson(st.processing));
    lat.set("total", summaryJson(st.total));
    o.set("latency_ns", std::move(lat));
    o.set("stuck", c.stuck);
    return o;
}

std::string promLabelValue(std::string_view v) {
    std::string r;
    r.reserve(v.size());
    for (const char c : v) {
        if (c == '\\')
            r += "\\\\";
        else if (c == '"')
            r += "\\\"";
        else if (c == '\n')
            r += "\\n";
        else
            r += c;
    }
    return r;
}

std::string nsToSecondsText(TimeNs ns) {
    const bool neg = ns < 0;
    // Work in unsigned to survive INT64_MIN.
    const std::uint64_t a =
        neg ? 0 - static_cast<std::uint64_t>(ns) : static_cast<std::uint64_t>(ns);
    std::string r = neg ? "-" : "";
    r += std::to_string(a / 1'000'000'000ULL);
    std::uint64_t frac = a % 1'000'000'000ULL;
    if (frac != 0) {
        char buf[16];
        std::snprintf(buf, sizeof buf, "%09" PRIu64, frac);
        std::string f(buf);
        while (!f.empty() && f.back() == '0')
            f.pop_back();
        r += '.';
        r += f;
    }
    return r;
}

namespace {

class PromWriter {
public:
    void family(const char* name, const char* type, const char* help) {
        m_text += "# HELP ";
        m_text += name;
        m_text += ' ';
        m_text += help;
        m_text += "\n# TYPE ";
        m_text += name;
        m_text += ' ';
        m_text += type;
        m_text += '\n';
    }

    // `base` is the queue's own labels, already escaped (queue="..."[,table="..."]);
    // `labels` are extra label pairs after it.
    void sample(const std::string& name, const std::string& base,
                const std::vector<std::pair<std::string, std::string>>& labels,
                const std::string& value) {
        m_text += name;
        m_text += '{';
        m_text += base;
        for (const auto& [k, v] : labels) {
            m_text += ',';
            m_text += k;
            m_text += "=\"";
            m_text += promLabelValue(v);
            m_text += '"';
        }
        m_text += "} ";
        m_text += value;
        m_text += '\n';
    }

    std::string take() { return std::move(m_text); }

private:
    std::string m_text;
};

} // namespace

std::string prometheusText(const std::string& queuePath, const core::FormatInfo& info,
                           const core::Counts& c, const core::QueueStats& st,
                           double stuckAfterSeconds, std::int64_t fileSize, std::int64_t walSize,
                           TimeNs now) {
    PromQueue q;
    q.path = queuePath;
    q.info = info;
    q.counts = c;
    q.stats = st;
    q.fileSize = fileSize;
    q.walSize = walSize;
    return prometheusText(std::vector<PromQueue>{q}, stuckAfterSeconds, now, false);
}

std::string prometheusText(const std::vector<PromQueue>& queues, double stuckAfterSeconds,
                           TimeNs now, bool tableLabel) {
    PromWriter w;
    const auto n = [](std::int64_t v) { return std::to_string(v); };
    std::vector<std::string> bases;
    bases.reserve(queues.size());
    for (const auto& q : queues) {
        std::string b = "queue=\"" + promLabelValue(q.path) + '"';
        if (tableLabel)
            b += ",table=\"" + promLabelValue(q.info.table) + '"';
        bases.push_back(std::move(b));
    }
    // One HELP/TYPE per family, then that family's samples for every queue.
    const auto each = [&](auto&& fn) {
        for (std::size_t i = 0; i < queues.size(); ++i)
            fn(queues[i], bases[i]);
    };

    // One series per state of the partition, in the names --json uses:
    // they sum to lq_stored_messages. Sub-counts are families of their own.
    const auto partition = [&](const PromQueue& q, const core::Counts& c,
                               const std::function<void(const std::string&, std::int64_t)>& put) {
        const core::StateModel m = core::stateModel(core::QueueFormat::of(q.info), c);
        for (const std::string& name : core::canonicalStateNames())
            put(name, m.count(name));
        for (const auto& e : m.partition)
            if (!e.state.canonical || e.state.name == "unknown")
                put(e.state.name, e.count);
    };
    w.family("lq_messages", "gauge",
             "Jobs in the queue by state: every job in exactly one state; the series sum to "
             "lq_stored_messages.");
    each([&](const PromQueue& q, const std::string& b) {
        partition(q, q.counts, [&](const std::string& status, std::int64_t v) {
            w.sample("lq_messages", b, {{"status", status}}, n(v));
        });
    });
    w.family("lq_sub_messages", "gauge",
             "Jobs that are part of a state (within): stuck and locked_expired inside locked, "
             "the format's nested states.");
    each([&](const PromQueue& q, const std::string& b) {
        const core::StateModel m = core::stateModel(core::QueueFormat::of(q.info), q.counts);
        for (const auto& s : m.subCounts) {
            std::string within;
            for (const auto& x : s.state.within)
                within += (within.empty() ? "" : ",") + x;
            w.sample("lq_sub_messages", b, {{"status", s.state.name}, {"within", within}},
                     n(s.count));
        }
    });

    if (std::any_of(queues.begin(), queues.end(),
                    [](const PromQueue& q) { return !q.namedQueues.empty(); })) {
        w.family("lq_named_queue_messages", "gauge",
                 "Jobs of one named queue inside the file (queue_name) by state, as "
                 "lq_messages.");
        each([&](const PromQueue& q, const std::string& b) {
            for (const auto& named : q.namedQueues)
                partition(q, named.second, [&](const std::string& status, std::int64_t v) {
                    w.sample("lq_named_queue_messages", b,
                             {{"queue_name", named.first}, {"status", status}}, n(v));
                });
        });
        w.family("lq_named_queue_stuck_messages", "gauge",
                 "Stuck messages of one named queue inside the file (queue_name).");
        each([&](const PromQueue& q, const std::string& b) {
            for (const auto& [name, c] : q.namedQueues)
                w.sample("lq_named_queue_stuck_messages", b, {{"queue_name", name}}, n(c.stuck));
        });
    }

    w.family("lq_stored_messages", "gauge", "Rows stored in the queue file, in any status.");
    each([&](const PromQueue& q, const std::string& b) {
        w.sample("lq_stored_messages", b, {}, n(q.counts.stored));
    });

    w.family("lq_stuck_messages", "gauge",
             "LOCKED messages whose lock is older than the stuck threshold.");
    each([&](const PromQueue& q, const std::string& b) {
        w.sample("lq_stuck_messages", b, {}, n(q.counts.stuck));
    });

    w.family("lq_stuck_threshold_seconds", "gauge",
             "Lock age after which a LOCKED message counts as stuck.");
    each([&](const PromQueue&, const std::string& b) {
        w.sample("lq_stuck_threshold_seconds", b, {},
                 nsToSecondsText(core::secondsToNs(stuckAfterSeconds)));
    });

    w.family("lq_latency_seconds", "summary",
             "Message latency: wait = lock - in (or - due where the format stores a due "
             "time), processing = done - lock (DONE), "
             "total = done - in (DONE); nearest-rank quantiles.");
    each([&](const PromQueue& q, const std::string& b) {
        const std::pair<const char*, const core::Summary*> metrics[] = {
            {"wait", &q.stats.wait},
            {"processing", &q.stats.processing},
            {"total", &q.stats.total}};
        for (const auto& [metric, s] : metrics) {
            const std::pair<const char*, const std::optional<TimeNs>*> qs[] = {
                {"0.5", &s->p50}, {"0.9", &s->p90}, {"0.99", &s->p99}};
            for (const auto& [quantile, v] : qs) {
                w.sample("lq_latency_seconds", b, {{"metric", metric}, {"quantile", quantile}},
                         s->count > 0 && v->has_value() ? nsToSecondsText(**v)
                                                        : std::string("NaN"));
            }
            char sum[64];
            std::snprintf(sum, sizeof sum, "%.9f", s->mean * static_cast<double>(s->count) / 1e9);
            w.sample("lq_latency_seconds_sum", b, {{"metric", metric}}, sum);
            w.sample("lq_latency_seconds_count", b, {{"metric", metric}}, n(s->count));
        }
    });

    w.family("lq_oldest_ready_age_seconds", "gauge",
             "Age of the oldest READY message (backlog age); 0 when none is waiting.");
    each([&](const PromQueue& q, const std::string& b) {
        w.sample("lq_oldest_ready_age_seconds", b, {},
                 q.stats.oldestReadyInTime && core::diffNs(now, *q.stats.oldestReadyInTime)
                     ? nsToSecondsText(*core::diffNs(now, *q.stats.oldestReadyInTime))
                     : std::string("0"));
    });

    if (std::any_of(queues.begin(), queues.end(),
                    [](const PromQueue& q) { return q.info.maxsize.has_value(); })) {
        w.family("lq_maxsize", "gauge", "The queue's maxsize limit on READY messages.");
        each([&](const PromQueue& q, const std::string& b) {
            if (q.info.maxsize)
                w.sample("lq_maxsize", b, {}, n(*q.info.maxsize));
        });
    }

    w.family("lq_file_bytes", "gauge",
             "Size of the queue file and of its -wal file (a database: its tables).");
    each([&](const PromQueue& q, const std::string& b) {
        w.sample("lq_file_bytes", b, {{"file", "db"}}, n(q.fileSize));
        if (q.isFile)
            w.sample("lq_file_bytes", b, {{"file", "wal"}}, n(q.walSize));
    });

    w.family("lq_read_only", "gauge",
             "1 when the file's format makes the queue read-only for this tool.");
    each([&](const PromQueue& q, const std::string& b) {
        w.sample(
            "lq_read_only", b,
            {{"format", q.format.empty() ? std::string(core::formatId(q.info.format)) : q.format}},
            q.info.formatReadOnly() ? "1" : "0");
    });
    return w.take();
}

} // namespace lq::ctl
