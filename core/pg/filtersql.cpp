// SPDX-License-Identifier: MIT
// Filter::where and Filter::metric as SQL over the derived table of
// core/pg/list.cpp (core/pg/filtersql.h): the SQLite engine's rules
// (core/query_json.cpp, the drivers' metricCondition) for PostgreSQL.
#include "filtersql.h"

#include "../error.h"
#include "../jsonwhere.h"
#include "list.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <variant>

namespace lq::core::pg {

namespace {

/// Text `t` (SQL) as jsonb where it is JSON text PostgreSQL's jsonb takes,
/// else NULL, without a cast that could fail the statement (PostgreSQL 15
/// has neither `IS JSON` nor pg_input_is_valid()): strings become \x01,
/// numbers, true, false and null \x02, whitespace goes, and innermost
/// arrays and objects of those become \x02 until nothing changes; the text
/// is JSON when one token is left. \x01 and \x02 are never in JSON text
/// (control characters must be escaped). Strings with \u0000 or a lone
/// surrogate, which jsonb refuses, are not JSON here.
std::string jsonbOrNull(const std::string& t) {
    static const std::string kString =
        R"($r$"(?:[^"\\\u0001-\u001f]|\\["\\/bfnrt]|\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|\\u(?!0000)(?![dD][89a-fA-F])[0-9a-fA-F]{4})*"$r$)";
    static const std::string kScalar =
        R"($r$-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]{1,4})?|true|false|null$r$)";
    static const std::string kArray = R"($r$\[(?:[\u0001\u0002](?:,[\u0001\u0002])*)?\]$r$)";
    static const std::string kObject =
        R"($r$\{(?:\u0001:[\u0001\u0002](?:,\u0001:[\u0001\u0002])*)?\}$r$)";
    std::string sql = "CASE WHEN ";
    sql.append(t).append(R"( !~ $r$[\u0001\u0002]$r$ AND EXISTS (WITH RECURSIVE r(s) AS )");
    sql.append("(SELECT regexp_replace(regexp_replace(regexp_replace(").append(t);
    sql.append(", ").append(kString).append(", chr(1), 'g'), ").append(kScalar);
    sql.append(R"(, chr(2), 'g'), $r$[ \t\n\r]+$r$, '', 'g') UNION ALL SELECT n FROM )");
    sql.append("(SELECT regexp_replace(regexp_replace(s, ").append(kArray);
    sql.append(", chr(2), 'g'), ").append(kObject).append(", chr(2), 'g') AS n, s FROM r) x ");
    sql.append("WHERE n <> s) SELECT 1 FROM r WHERE s IN (chr(1), chr(2))) THEN ");
    sql.append(t).append("::jsonb END");
    return sql;
}

/// SQLite's path (JsonCondition::path, "$.a.\"b c\"[0]") as a strict
/// SQL/JSON path: a key of an array or an index of an object finds
/// nothing, as in json_extract().
std::string jsonPathOf(const std::string& path) {
    std::string out = "strict $";
    std::size_t i = 1;
    while (i < path.size()) {
        if (path[i] == '[') {
            const std::size_t close = path.find(']', i);
            out.append(path, i, close - i + 1);
            i = close + 1;
            continue;
        }
        ++i; // '.'
        std::string key;
        if (i < path.size() && path[i] == '"') {
            const std::size_t close = path.find('"', i + 1);
            key = path.substr(i + 1, close - i - 1);
            i = close + 1;
        } else {
            const std::size_t stop = std::min(path.find_first_of(".[", i), path.size());
            key = path.substr(i, stop - i);
            i = stop;
        }
        out += ".\"";
        for (char ch : key) {
            if (ch == '"' || ch == '\\')
                out += '\\';
            out += ch;
        }
        out += '"';
    }
    return out;
}

/// A value typed after an operator, as core/query_json.cpp's number()
/// reads it (an integer, else a real without hex, inf or nan), as text
/// numeric takes; nullopt when it is no number.
std::optional<std::string> jsonNumber(const std::string& v) {
    const auto n = jsonConditionNumber(v);
    if (!n)
        return std::nullopt;
    if (const auto* i = std::get_if<std::int64_t>(&*n))
        return std::to_string(*i);
    std::array<char, 64> buf{};
    const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), std::get<double>(*n));
    return std::string(buf.data(), r.ptr); // the shortest text that reads back the same
}

/// The job's JSON fields on PostgreSQL, in the words of the SQLite driver
/// (FormatDriver::jsonFields()) where the library has one: the name, the
/// path prefix inside the document, and the document as jsonb (NULL where
/// the text is not JSON).
struct PgJsonField {
    const char* name;
    const char* prefix;
    std::string doc;
};

std::vector<PgJsonField> jsonFieldsOf(const std::string& library) {
    // Stored as json or jsonb by these: their text always parses.
    const std::string data = "data::jsonb";
    if (library == "solid-queue")
        return {{"arguments", "$.arguments", jsonbOrNull("data")}};
    if (library == "oban")
        return {{"args", "$", data}, {"meta", "$", "meta_json::jsonb"}};
    if (library == "river")
        return {{"args", "$", data}, {"metadata", "$", "meta_json::jsonb"}};
    if (library == "good-job")
        return {{"serialized_params", "$", data}, {"arguments", "$.arguments", data}};
    if (library == "pg-boss")
        return {{"data", "$", data}};
    if (library == "graphile-worker") // json: \u0000 would not become jsonb
        return {{"payload", "$", jsonbOrNull("data")}};
    return {};
}

} // namespace

std::vector<std::string> jsonFieldNames(const std::string& library) {
    std::vector<std::string> out;
    for (const auto& f : jsonFieldsOf(library))
        out.emplace_back(f.name);
    return out;
}

/// Filter::where as SQL over the derived table, by core/query_json.cpp's
/// rules: a path that exists (JSON null too); `~` the value's text
/// (a string's own, a number's, true 1, false 0, an object or array as
/// compact JSON) containing the text, ASCII case folded as SQLite's LIKE
/// does; null, true and false by JSON type; a number among numbers and
/// text among strings (bytewise), `!=` also matching a value of another
/// type; a missing path, or a document that is not JSON, matches nothing.
std::string jsonWhere(const std::string& display, const std::string& library,
                      const std::string& where, const ParamOf& param) {
    const JsonCondition c = checkJsonCondition(jsonFieldNames(library), library, where, display);
    const auto fields = jsonFieldsOf(library);
    const auto field = std::find_if(fields.begin(), fields.end(),
                                    [&](const PgJsonField& f) { return c.field == f.name; });
    using Op = JsonCondition::Op;
    std::string test;
    if (c.op == Op::Exists) {
        test = "v IS NOT NULL";
    } else if (c.op == Op::Like) {
        static constexpr const char* kUpper = "'ABCDEFGHIJKLMNOPQRSTUVWXYZ'";
        static constexpr const char* kLower = "'abcdefghijklmnopqrstuvwxyz'";
        std::string needle = c.value;
        for (char& ch : needle)
            if (ch >= 'A' && ch <= 'Z')
                ch = static_cast<char>(ch - 'A' + 'a');
        test = "strpos(translate(CASE jsonb_typeof(v) WHEN 'boolean' THEN CASE WHEN v = "
               "'true'::jsonb THEN '1' ELSE '0' END WHEN 'object' THEN ";
        const std::string compact = R"(regexp_replace(v::text, $r$("(?:[^"\\]|\\.)*")|([,:]) $r$, )"
                                    R"($r$\1\2$r$, 'g'))";
        test.append(compact).append(" WHEN 'array' THEN ").append(compact);
        test.append(" ELSE v #>> '{}' END, ").append(kUpper).append(", ").append(kLower);
        test.append("), ").append(param(needle)).append(") > 0");
    } else {
        const char* op = " = ";
        switch (c.op) {
        case Op::Ne:
            op = " <> ";
            break;
        case Op::Lt:
            op = " < ";
            break;
        case Op::Le:
            op = " <= ";
            break;
        case Op::Gt:
            op = " > ";
            break;
        case Op::Ge:
            op = " >= ";
            break;
        default:
            break;
        }
        const bool ne = c.op == Op::Ne;
        if (!c.quoted && (c.value == "null" || c.value == "true" || c.value == "false")) {
            if (c.op != Op::Eq && !ne)
                throw Error(ErrorKind::InvalidArgument, display,
                            where + ": " + c.value + " takes only = or !=");
            test = "v" + std::string(op) + param(c.value) + "::jsonb";
        } else {
            const std::optional<std::string> n = c.quoted ? std::nullopt : jsonNumber(c.value);
            const char* type = n ? "'number'" : "'string'";
            const std::string value = n ? "(v)::numeric" : "(v #>> '{}') COLLATE \"C\"";
            const std::string rhs = n ? param(*n) + "::numeric" : param(c.value) + "::text";
            // The value read only from a value of the type (a cast of
            // another type would fail); `!=` also a value of another type.
            test = "v IS NOT NULL AND CASE WHEN jsonb_typeof(v) = ";
            test.append(type).append(" THEN ").append(value).append(op).append(rhs);
            test.append(" ELSE ").append(ne ? "true" : "false").append(" END");
        }
    }
    std::string path = field->prefix;
    path += c.path.substr(1);
    // Once per job: the document parsed and the path looked up (OFFSET 0
    // keeps the planner from copying the expression into each use of v).
    std::string sql = "EXISTS (SELECT 1 FROM (SELECT jsonb_path_query_first(";
    sql.append(field->doc).append(", ").append(param(jsonPathOf(path)));
    sql.append("::jsonpath, '{}'::jsonb, true) AS v OFFSET 0) q WHERE ").append(test).append(")");
    return sql;
}

/// Filter::metric in [lo, hi) over the derived table, by the histogram's
/// rule (computeStats() over readTiming()), which is the SQLite drivers'
/// metricCondition(): wait from the due time to the claim; processing and
/// time to failure from the claim to the finish of a DONE or FAILED job;
/// total from the enqueue to the finish of a DONE job. A job without the
/// times (Solid Queue keeps no claim time of a finished job, Graphile
/// Worker no finish) is in no band.
std::string metricWhere(const Filter& f, const ParamOf& param) {
    std::string state, span;
    switch (f.metric) {
    case Filter::Metric::Wait:
        span = "lock_ns - wait_from_ns";
        break;
    case Filter::Metric::Processing:
        state = "state = 'DONE' AND ";
        span = "done_ns - lock_ns";
        break;
    case Filter::Metric::Total:
        state = "state = 'DONE' AND ";
        span = "done_ns - created_ns";
        break;
    case Filter::Metric::TimeToFailure:
        state = "state = 'FAILED' AND ";
        span = "done_ns - lock_ns";
        break;
    case Filter::Metric::None:
        return {};
    }
    std::string sql = "(" + state;
    sql.append("(").append(span).append(") >= ").append(param(std::to_string(f.metricLo)));
    sql.append("::bigint AND (").append(span).append(") < ");
    sql.append(param(std::to_string(f.metricHi))).append("::bigint)");
    return sql;
}

} // namespace lq::core::pg
