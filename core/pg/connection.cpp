// SPDX-License-Identifier: MIT
// One libpq session (core/pg/connection.h).
#include "connection.h"

#include <libpq-fe.h>
#include <poll.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <utility>

namespace lq::core::pg {

namespace {

bool startsWith(std::string_view s, std::string_view p) noexcept {
    return s.size() >= p.size() && s.substr(0, p.size()) == p;
}

/// One `key=value` of a keyword string, as spelled (`raw`) and unquoted.
struct Keyword {
    std::string key;
    std::string raw;   ///< the value as written (quotes and escapes kept)
    std::string value; ///< the value libpq reads
};

/// Splits a libpq keyword string; nullopt when it is not one.
std::optional<std::vector<Keyword>> splitKeywords(std::string_view s) {
    std::vector<Keyword> out;
    std::size_t i = 0;
    const auto space = [&] {
        while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i])))
            ++i;
    };
    for (space(); i < s.size(); space()) {
        Keyword k;
        while (i < s.size() && s[i] != '=' && !std::isspace(static_cast<unsigned char>(s[i])))
            k.key += s[i++];
        space();
        if (k.key.empty() || i >= s.size() || s[i] != '=')
            return std::nullopt;
        ++i;
        space();
        const std::size_t from = i;
        if (i < s.size() && s[i] == '\'') {
            ++i;
            bool closed = false;
            while (i < s.size()) {
                if (s[i] == '\\' && i + 1 < s.size()) {
                    k.value += s[i + 1];
                    i += 2;
                } else if (s[i] == '\'') {
                    ++i;
                    closed = true;
                    break;
                } else {
                    k.value += s[i++];
                }
            }
            if (!closed)
                return std::nullopt;
        } else {
            while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i]))) {
                if (s[i] == '\\' && i + 1 < s.size())
                    ++i;
                k.value += s[i++];
            }
        }
        k.raw = std::string(s.substr(from, i - from));
        out.push_back(std::move(k));
    }
    return out;
}

std::string joinKeywords(const std::vector<Keyword>& ks) {
    std::string out;
    for (const auto& k : ks) {
        if (!out.empty())
            out += ' ';
        out += k.key + '=' + k.raw;
    }
    return out;
}

/// The query of a URI split at '&', without the parameters `drop` names;
/// `taken` receives the value of the last `take` parameter.
std::string filterQuery(std::string_view query, std::string_view drop, std::string_view take,
                        std::optional<std::string>* taken) {
    std::string out;
    std::size_t i = 0;
    while (i <= query.size()) {
        std::size_t end = query.find('&', i);
        if (end == std::string_view::npos)
            end = query.size();
        const std::string_view part = query.substr(i, end - i);
        const std::string_view key = part.substr(0, part.find('='));
        const bool dropIt = key == drop || key == take;
        if (key == take && taken) {
            const auto eq = part.find('=');
            *taken =
                eq == std::string_view::npos ? std::string() : std::string(part.substr(eq + 1));
        }
        if (!part.empty() && !dropIt) {
            if (!out.empty())
                out += '&';
            out += part;
        }
        i = end + 1;
    }
    return out;
}

/// A URI with its userinfo's password and its query's `drop`/`take`
/// parameters handled as filterQuery() does.
std::string rewriteUri(std::string_view url, bool dropPassword, std::string_view drop,
                       std::string_view take, std::optional<std::string>* taken) {
    const std::size_t scheme = url.find("://");
    const std::size_t start = scheme == std::string_view::npos ? 0 : scheme + 3;
    std::size_t qpos = url.find('?', start);
    const std::size_t hash = url.find('#', start);
    const std::size_t tail = std::min(qpos, hash);
    std::string head(url.substr(0, std::min(tail, url.size())));
    if (dropPassword) {
        const std::size_t at = head.rfind('@');
        if (at != std::string::npos && at >= start) {
            const std::size_t colon = head.find(':', start);
            if (colon != std::string::npos && colon < at)
                head.erase(colon, at - colon);
        }
    }
    if (qpos == std::string_view::npos || (hash != std::string_view::npos && hash < qpos))
        return head + std::string(hash == std::string_view::npos ? "" : url.substr(hash));
    const std::size_t qend = hash == std::string_view::npos ? url.size() : hash;
    const std::string q = filterQuery(url.substr(qpos + 1, qend - qpos - 1), drop, take, taken);
    return head + (q.empty() ? "" : "?" + q) +
           std::string(hash == std::string_view::npos ? "" : url.substr(hash));
}

std::string sqlState(const PGresult* r) {
    const char* s = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : nullptr;
    return s ? s : "";
}

void quietNotices(void*, const char*) {}

std::string trimmed(std::string s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.pop_back();
    return s;
}

} // namespace

bool isPostgresUrl(std::string_view s) noexcept {
    return startsWith(s, "postgresql://") || startsWith(s, "postgres://");
}

std::string redactedUrl(std::string_view url) {
    if (url.find("://") != std::string_view::npos)
        return rewriteUri(url, true, "password", {}, nullptr);
    auto ks = splitKeywords(url);
    if (!ks)
        return "(a connection string lqadmin cannot read)";
    ks->erase(std::remove_if(ks->begin(), ks->end(),
                             [](const Keyword& k) { return k.key == "password"; }),
              ks->end());
    return joinKeywords(*ks);
}

Target parseTarget(std::string_view url) {
    Target t;
    std::optional<std::string> schema;
    if (url.find("://") != std::string_view::npos) {
        t.conninfo = rewriteUri(url, false, {}, "schema", &schema);
    } else {
        auto ks = splitKeywords(url);
        if (!ks)
            throw Error(ErrorKind::InvalidArgument, "(connection string)",
                        "not a libpq URI or keyword string. Give postgresql://USER@HOST:PORT/DB "
                        "or host=... dbname=...");
        const auto it = std::find_if(ks->begin(), ks->end(),
                                     [](const Keyword& k) { return k.key == "schema"; });
        if (it != ks->end()) {
            schema = it->value;
            ks->erase(it);
        }
        t.conninfo = joinKeywords(*ks);
    }
    t.display = redactedUrl(url);
    if (schema) {
        if (schema->empty())
            throw Error(ErrorKind::InvalidArgument, t.display,
                        "?schema= names no schema. Give ?schema=NAME or leave it out.");
        t.schema = *schema;
    }
    return t;
}

// ---- Result ------------------------------------------------------------------

Result::~Result() {
    if (m_r)
        PQclear(m_r);
}

Result& Result::operator=(Result&& o) noexcept {
    if (this != &o) {
        if (m_r)
            PQclear(m_r);
        m_r = std::exchange(o.m_r, nullptr);
    }
    return *this;
}

int Result::rows() const noexcept {
    return m_r ? PQntuples(m_r) : 0;
}

int Result::columns() const noexcept {
    return m_r ? PQnfields(m_r) : 0;
}

bool Result::isNull(int row, int col) const noexcept {
    return PQgetisnull(m_r, row, col) != 0;
}

std::string Result::text(int row, int col) const {
    if (isNull(row, col))
        return {};
    return {PQgetvalue(m_r, row, col), static_cast<std::size_t>(PQgetlength(m_r, row, col))};
}

std::optional<std::string> Result::optText(int row, int col) const {
    if (isNull(row, col))
        return std::nullopt;
    return text(row, col);
}

std::int64_t Result::int64(int row, int col) const {
    if (isNull(row, col))
        return 0;
    const std::string s = text(row, col);
    std::int64_t v = 0;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size())
        throw Error(ErrorKind::InvalidArgument, {}, "not an integer: " + s);
    return v;
}

bool Result::boolean(int row, int col) const {
    return text(row, col) == "t";
}

// ---- Connection --------------------------------------------------------------

std::unique_ptr<Connection> Connection::open(std::string_view url, Options opts) {
    Target t = parseTarget(url);
    char* err = nullptr;
    PQconninfoOption* parsed = PQconninfoParse(t.conninfo.c_str(), &err);
    if (!parsed) {
        std::string why = err ? trimmed(err) : "out of memory";
        if (err)
            PQfreemem(err);
        // libpq's message quotes a keyword, never a value.
        throw Error(ErrorKind::InvalidArgument, t.display, "not a connection string: " + why);
    }
    std::vector<std::string> keys, values;
    bool hasTimeout = false;
    for (const PQconninfoOption* o = parsed; o->keyword; ++o) {
        if (!o->val || std::string_view(o->keyword) == "application_name" ||
            std::string_view(o->keyword) == "fallback_application_name")
            continue;
        hasTimeout = hasTimeout || std::string_view(o->keyword) == "connect_timeout";
        keys.emplace_back(o->keyword);
        values.emplace_back(o->val);
    }
    PQconninfoFree(parsed);
    keys.emplace_back("application_name");
    values.emplace_back("lqadmin");
    if (!hasTimeout) {
        keys.emplace_back("connect_timeout");
        values.emplace_back(std::to_string(opts.connectTimeoutSeconds));
    }
    std::vector<const char*> kp, vp;
    for (std::size_t i = 0; i < keys.size(); ++i) {
        kp.push_back(keys[i].c_str());
        vp.push_back(values[i].c_str());
    }
    kp.push_back(nullptr);
    vp.push_back(nullptr);
    PGconn* c = PQconnectdbParams(kp.data(), vp.data(), 0);
    if (!c)
        throw Error(ErrorKind::Io, t.display, "cannot connect: out of memory");
    if (PQstatus(c) != CONNECTION_OK) {
        const std::string why = trimmed(PQerrorMessage(c));
        PQfinish(c);
        throw Error(ErrorKind::Io, t.display,
                    "cannot connect: " + why +
                        ". Check host, port, user and sslmode; a password belongs in ~/.pgpass "
                        "or PGPASSWORD, never on the command line.");
    }
    PQsetNoticeProcessor(c, quietNotices, nullptr);
    std::unique_ptr<Connection> conn(new Connection(c, std::move(t), opts));
    conn->setUp();
    return conn;
}

void Connection::setUp() {
    // One round trip: the session's limits. Autocommit is libpq's default.
    const std::string setup =
        "SET statement_timeout = " + std::to_string(m_opts.statementTimeoutMs) +
        "; SET lock_timeout = " + std::to_string(m_opts.lockTimeoutMs) +
        "; SET idle_in_transaction_session_timeout = " +
        std::to_string(m_opts.idleInTransactionTimeoutMs) +
        "; SET default_transaction_read_only = " + (m_opts.readOnly ? "on" : "off") +
        "; SET TimeZone = 'UTC'";
    PGresult* r = PQexec(m_c, setup.c_str());
    if (PQresultStatus(r) != PGRES_COMMAND_OK)
        fail("cannot set up the session", r);
    PQclear(r);
}

Connection::~Connection() {
    PQfinish(m_c);
}

int Connection::serverVersion() const noexcept {
    return PQserverVersion(m_c);
}

Result Connection::exec(const std::string& sql, const std::vector<Param>& params) {
    std::vector<const char*> values;
    values.reserve(params.size());
    for (const auto& p : params)
        values.push_back(p ? p->c_str() : nullptr);
    const auto run = [&] {
        return PQexecParams(m_c, sql.c_str(), static_cast<int>(values.size()), nullptr,
                            values.data(), nullptr, nullptr, 0);
    };
    const auto ok = [](PGresult* r) {
        const auto st = PQresultStatus(r);
        return st == PGRES_TUPLES_OK || st == PGRES_COMMAND_OK;
    };
    PGresult* r = run();
    if (!ok(r) && PQstatus(m_c) != CONNECTION_OK && m_opts.readOnly) {
        // The server restarted or dropped us: a reading session connects
        // again (same parameters, same limits) and asks once more; a read
        // is safe to repeat. A writing one never repeats a statement.
        PQclear(r);
        PQreset(m_c);
        if (PQstatus(m_c) != CONNECTION_OK)
            fail("reconnecting failed", nullptr);
        setUp();
        r = run();
    }
    if (!ok(r))
        fail("query failed", r);
    return Result(r);
}

std::vector<std::string> Connection::takeNotifications() {
    if (PQconsumeInput(m_c) == 0)
        fail("reading notifications failed", nullptr);
    std::vector<std::string> out;
    while (PGnotify* n = PQnotifies(m_c)) {
        out.emplace_back(n->extra ? n->extra : "");
        PQfreemem(n);
    }
    return out;
}

bool Connection::waitReadable(int ms, int wakeFd) {
    std::array<pollfd, 2> p{};
    p[0].fd = PQsocket(m_c);
    if (p[0].fd < 0)
        fail("waiting for notifications failed", nullptr);
    p[0].events = POLLIN;
    p[1].fd = wakeFd;
    p[1].events = POLLIN;
    return ::poll(p.data(), wakeFd < 0 ? 1 : 2, ms) > 0 && (p[0].revents & POLLIN) != 0;
}

void Connection::fail(const std::string& what, pg_result* r) const {
    const std::string state = sqlState(r);
    std::string why = trimmed(r ? PQresultErrorMessage(r) : "");
    if (why.empty())
        why = trimmed(PQerrorMessage(m_c));
    if (r)
        PQclear(r);
    if (PQstatus(m_c) != CONNECTION_OK)
        throw Error(ErrorKind::Io, m_target.display, "connection lost: " + why);
    if (state == "25006")
        throw Error(ErrorKind::ReadOnly, m_target.display,
                    "refused: this session only reads (default_transaction_read_only)");
    if (state == "55P03" || state == "57014")
        throw Error(ErrorKind::Busy, m_target.display,
                    what + ": " + why + " (lock_timeout / statement_timeout). Try again later.");
    throw Error(ErrorKind::Io, m_target.display,
                what + ": " + why + (state.empty() ? "" : " [SQLSTATE " + state + "]"));
}

std::string quoteIdent(std::string_view name) {
    std::string out = "\"";
    for (const char c : name) {
        if (c == '"')
            out += '"';
        out += c;
    }
    return out + '"';
}

} // namespace lq::core::pg
