// SPDX-License-Identifier: MIT
// What every format driver shares: time encodings, binds, and the defaults
// of the library calls a format does not offer.
#include "driver.h"

#include "../error.h"
#include "../sqlite.h"
#include "../timefmt.h"
#include "queueformat.h"

#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>

namespace lq::core {

namespace {

std::optional<TimeNs> scaled(std::int64_t v, std::int64_t perUnit) {
    if (v > INT64_MAX / perUnit || v < INT64_MIN / perUnit)
        return std::nullopt;
    return v * perUnit;
}

std::int64_t perUnit(TimeEncoding e) {
    switch (e) {
    case TimeEncoding::Ns:
        return 1;
    case TimeEncoding::Seconds:
    case TimeEncoding::WholeSeconds:
        return kNsPerSecond;
    case TimeEncoding::Ms:
        return 1'000'000;
    case TimeEncoding::Text:
        return 1;
    }
    return 1;
}

std::int64_t floorDiv(std::int64_t a, std::int64_t b) {
    std::int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
        --q;
    return q;
}

} // namespace

std::optional<TimeNs> readTime(const Statement& st, int col, TimeEncoding e) {
    switch (st.columnType(col)) {
    case SQLITE_INTEGER:
        return scaled(st.int64(col), perUnit(e));
    case SQLITE_FLOAT: {
        const double v = st.real(col) * static_cast<double>(perUnit(e));
        if (!std::isfinite(v) || v > 9.2e18 || v < -9.2e18)
            return std::nullopt;
        return static_cast<TimeNs>(std::llround(v));
    }
    case SQLITE_TEXT:
        if (e == TimeEncoding::Text)
            return parseTextTime(st.textView(col));
        return std::nullopt; // TEXT in a numeric column: a damaged file
    default:
        return std::nullopt; // NULL, or a BLOB in a damaged file
    }
}

std::string textTimeKey(const std::string& col) {
    // "T" -> " " and no "Z": ISO, timeString and Go spellings then sort as
    // text in time order (the fraction's '.' sorts above the space of a
    // " +0000 UTC" suffix and below every digit).
    return "replace(replace(" + col + ", 'T', ' '), 'Z', '')";
}

namespace {

std::string keyText(TimeNs t, bool allDigits) {
    std::string iso = isoUtc(t); // "YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ"
    iso[10] = ' ';
    iso.pop_back();
    if (!allDigits) {
        while (iso.back() == '0')
            iso.pop_back();
        if (iso.back() == '.')
            iso.pop_back();
    }
    return iso;
}

} // namespace

std::string textTimeKeyCeil(TimeNs t) {
    return keyText(t, true);
}

BindValue encodeTime(TimeNs t, TimeEncoding e) {
    switch (e) {
    case TimeEncoding::Ns:
        return t;
    case TimeEncoding::Seconds:
        return static_cast<double>(t) / 1e9;
    case TimeEncoding::WholeSeconds:
    case TimeEncoding::Ms:
        return floorDiv(t, perUnit(e));
    case TimeEncoding::Text:
        return keyText(t, false);
    }
    return t;
}

void bindValues(Statement& st, const Binds& binds, int first) {
    int i = first;
    for (const auto& v : binds) {
        if (const auto* iv = std::get_if<std::int64_t>(&v))
            st.bind(i, *iv);
        else if (const auto* dv = std::get_if<double>(&v))
            st.bind(i, *dv);
        else
            st.bind(i, std::string_view(std::get<std::string>(v)));
        ++i;
    }
}

void bindTime(Statement& st, int i, TimeNs t, TimeEncoding e) {
    bindValues(st, {encodeTime(t, e)}, i);
}

void bindOptTime(Statement& st, int i, const std::optional<TimeNs>& t, TimeEncoding e) {
    if (t)
        bindTime(st, i, *t, e);
    else
        st.bindNull(i);
}

std::int64_t textTokenHash(std::string_view text) noexcept {
    std::uint64_t h = 1469598103934665603ULL;
    for (char ch : text) {
        h ^= static_cast<unsigned char>(ch);
        h *= 1099511628211ULL;
    }
    return static_cast<std::int64_t>(h & 0x7fffffffffffffffULL);
}

FormatDriver::FormatDriver(FormatInfo info, std::string path)
    : m_info(std::move(info))
    , m_path(std::move(path)) {}

FormatDriver::~FormatDriver() = default;

std::string FormatDriver::orderKey(SortKey k, bool& desc) const {
    SortColumns c = sortColumns();
    switch (k) {
    case SortKey::Arrival:
        break;
    case SortKey::InTime:
        return std::move(c.inTime);
    case SortKey::Age:
        desc = !desc;
        return std::move(c.inTime);
    case SortKey::LockTime:
        return std::move(c.lockTime);
    case SortKey::DoneTime:
        return std::move(c.doneTime);
    case SortKey::Wait:
        return std::move(c.wait);
    case SortKey::Processing:
        return std::move(c.processing);
    case SortKey::Claim:
        return std::move(c.claim);
    case SortKey::Status:
        return std::move(c.status);
    }
    return std::move(c.arrival);
}

std::string FormatDriver::source() const {
    return quoteIdent(m_info.table);
}

std::string FormatDriver::extraStateCondition(const std::string& name, Binds& binds,
                                              TimeNs now) const {
    // A claim abandoned by the library's own rule is the format's stuck
    // condition (QueueFormat::kStuckState).
    const auto own = QueueFormat::of(m_info).extraStates();
    const bool has =
        std::any_of(own.begin(), own.end(), [&](const auto& x) { return x.name == name; });
    if (has && name == QueueFormat::kStuckState)
        return "(" + stuckCondition(binds, now, kDefaultStuckAfterNs) + ")";
    return "0";
}

std::string FormatDriver::metricCondition(Filter::Metric m, TimeNs lo, TimeNs hi,
                                          Binds& binds) const {
    (void)m;
    (void)lo;
    (void)hi;
    (void)binds;
    return {};
}

ProcessList FormatDriver::processes(Connection& c, TimeNs now) const {
    (void)c;
    (void)now;
    ProcessList out;
    out.notStored = std::string(formatId(info().format)) +
                    " files record no worker processes: there are no heartbeats to show";
    return out;
}

RecurringList FormatDriver::recurringTasks(Connection& c, TimeNs now, int tzOffset) const {
    (void)c;
    (void)now;
    (void)tzOffset;
    RecurringList out;
    out.notStored = std::string(QueueFormat::of(info()).id()) +
                    " files record no recurring tasks: there is no schedule to show";
    return out;
}

FormatDriver::RecurringRun FormatDriver::runRecurring(Connection& c, const std::string& key,
                                                      TimeNs now) const {
    (void)c, (void)key, (void)now;
    unsupported("run now of a recurring task");
}

FormatDriver::PauseRow FormatDriver::readPause(Connection& c, const std::string& queue) const {
    (void)c;
    (void)queue;
    unsupported("pause");
}

std::int64_t FormatDriver::writePause(Connection& c, const std::string& queue, bool pause,
                                      TimeNs now) const {
    (void)c, (void)queue, (void)now;
    unsupported(pause ? "pause" : "resume");
}

std::int64_t FormatDriver::restorePause(Connection& c, const std::string& queue,
                                        const PauseRow& wrote, const PauseRow& before) const {
    (void)c, (void)queue, (void)wrote, (void)before;
    unsupported("undo of a pause or resume");
}

std::vector<std::string> FormatDriver::queueNames(Connection& c) const {
    std::vector<std::string> out;
    const std::string col = queueColumn();
    if (col.empty())
        return out;
    // Arm by arm on a compound source: each by its table's index on the
    // column, where DISTINCT over the UNION ALL computes every row (1.4 s at
    // a million Laravel jobs, a read that blocks a rollback-journal writer).
    std::vector<std::string> froms;
    for (const auto& arm : sourceArms())
        froms.push_back("(" + arm.sql + ")");
    if (froms.empty())
        froms.push_back(source());
    std::set<std::string> names;
    for (const std::string& from : froms)
        distinctValues(c, from, col, names);
    out.assign(names.begin(), names.end());
    return out;
}

void FormatDriver::distinctValues(Connection& c, const std::string& from, const std::string& col,
                                  std::set<std::string>& out) {
    const std::string next = "SELECT min(" + col + ") FROM " + from + " WHERE " + col + " > ?";
    bool seek = false;
    {
        auto plan = c.cached("EXPLAIN QUERY PLAN " + next);
        plan->bind(1, std::string_view());
        while (plan->step())
            seek = seek || plan->text(3).find("SEARCH") != std::string::npos;
    }
    if (!seek) {
        auto st =
            c.cached("SELECT DISTINCT " + col + " FROM " + from + " WHERE " + col + " IS NOT NULL");
        while (st->step())
            out.insert(st->text(0));
        return;
    }
    // The seek binds each value as the type it is stored as (a hostile file
    // may mix numbers, text and blobs in the column: each sorts in its class).
    auto first =
        c.cached("SELECT min(" + col + ") FROM " + from + " WHERE " + col + " IS NOT NULL");
    if (!first->step() || first->isNull(0))
        return;
    auto take = [](const Statement& st, int& type, std::int64_t& i, double& d, std::string& t) {
        type = st.columnType(0);
        i = type == SQLITE_INTEGER ? st.int64(0) : 0;
        d = type == SQLITE_FLOAT ? st.real(0) : 0;
        t = st.text(0);
    };
    int type = 0;
    std::int64_t i = 0;
    double d = 0;
    std::string t;
    take(*first, type, i, d, t);
    first->reset();
    for (;;) {
        out.insert(t);
        auto st = c.cached(next);
        if (type == SQLITE_INTEGER)
            st->bind(1, i);
        else if (type == SQLITE_FLOAT)
            st->bind(1, d);
        else if (type == SQLITE_BLOB)
            st->bindBlob(1, t);
        else
            st->bind(1, std::string_view(t));
        if (!st->step() || st->isNull(0))
            return;
        take(*st, type, i, d, t);
    }
}

void FormatDriver::unsupported(const std::string& what) const {
    throw Unsupported(m_path, what + " is not offered on " + formatId(m_info.format) +
                                  " files: their jobs are written by their own library");
}

Message FormatDriver::insert(Connection&, const std::string&, const std::optional<std::string>&,
                             TimeNs, bool*) const {
    unsupported("put");
}

std::optional<Message> FormatDriver::pop(Connection&, TimeNs) const {
    unsupported("pop");
}

std::optional<Message> FormatDriver::peek(Connection&, TimeNs) const {
    unsupported("peek");
}

bool FormatDriver::transition(Connection&, std::string_view, std::int64_t, int, TimeNs) const {
    unsupported("done/retry/mark_failed by claim");
}

std::int64_t FormatDriver::retryExpired(Connection&, TimeNs) const {
    unsupported("retry_expired");
}

std::int64_t FormatDriver::prune(Connection&, bool, std::optional<TimeNs>) const {
    unsupported("prune by age");
}

Filter FormatDriver::lockedFilter(TimeNs threshold) const {
    (void)threshold;
    Filter f;
    f.states = {State::Locked};
    f.stuckOnly = true;
    return f;
}

void FormatDriver::upgrade(Connection&) const {
    throw Unsupported(m_path, std::string("cannot upgrade a ") + formatId(m_info.format) + " file");
}

std::string FormatDriver::refusal(Action a, const Message& m, TimeNs now) const {
    (void)now;
    return refusalReason(a, m);
}

std::string FormatDriver::tokenShown(const Message& m) const {
    return m.tokenText ? *m.tokenText : std::to_string(m.token);
}

std::int64_t FormatDriver::deleteRow(Connection&, const Message&) const {
    unsupported("deleting an enqueued message");
}

} // namespace lq::core
