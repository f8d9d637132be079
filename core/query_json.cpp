// SPDX-License-Identifier: MIT
// Filter::where: a condition on a JSON field of a job (core/jsonwhere.h), as
// SQL on the format's own JSON fields (FormatDriver::jsonFields()).
#include "jsonwhere.h"
#include "queue.h"
#include "queue_p.h"

#include "formats/queueformat.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <variant>

namespace lq::core {

namespace {

/// `v` as a JSON number would be read: an integer, a real, or neither.
std::optional<BindValue> number(const std::string& v) {
    const auto n = jsonConditionNumber(v);
    if (!n)
        return std::nullopt;
    if (const auto* i = std::get_if<std::int64_t>(&*n))
        return BindValue(*i);
    return BindValue(std::get<double>(*n));
}

const char* sqlOp(JsonCondition::Op op) {
    switch (op) {
    case JsonCondition::Op::Eq:
        return " = ";
    case JsonCondition::Op::Ne:
        return " <> ";
    case JsonCondition::Op::Lt:
        return " < ";
    case JsonCondition::Op::Le:
        return " <= ";
    case JsonCondition::Op::Gt:
        return " > ";
    case JsonCondition::Op::Ge:
        return " >= ";
    case JsonCondition::Op::Exists:
    case JsonCondition::Op::Like:
        break;
    }
    return " = ";
}

} // namespace

std::optional<std::variant<std::int64_t, double>> jsonConditionNumber(const std::string& v) {
    if (v.empty())
        return std::nullopt;
    const char* b = v.c_str();
    char* end = nullptr;
    errno = 0;
    const long long i = std::strtoll(b, &end, 10);
    if (errno == 0 && *end == '\0')
        return static_cast<std::int64_t>(i);
    if (std::isspace(static_cast<unsigned char>(v[0])) ||
        v.find_first_of("xXnN") != std::string::npos) // no hex, inf or nan
        return std::nullopt;
    // from_chars: '.' whatever the process's locale (a Qt app sets it from
    // the environment, where strtod would want a comma).
    const std::size_t from = v[0] == '+' ? 1 : 0;
    double d = 0;
    const auto r = std::from_chars(v.data() + from, v.data() + v.size(), d);
    if (r.ec != std::errc() || r.ptr != v.data() + v.size())
        return std::nullopt;
    return d;
}

std::vector<std::string> jsonFieldNames(const FormatInfo& info) {
    std::vector<std::string> out;
    for (const auto& f : QueueFormat::of(info).driver(info, {})->jsonFields())
        out.push_back(f.name);
    return out;
}

JsonCondition checkJsonCondition(const FormatInfo& info, std::string_view text,
                                 const std::string& path) {
    return checkJsonCondition(jsonFieldNames(info), formatId(info.format), text, path);
}

JsonCondition checkJsonCondition(const std::vector<std::string>& names, const std::string& format,
                                 std::string_view text, const std::string& path) {
    JsonCondition c;
    try {
        c = parseJsonCondition(text);
    } catch (const Error& e) {
        throw Error(ErrorKind::InvalidArgument, path, e.detail());
    }
    if (std::find(names.begin(), names.end(), c.field) != names.end())
        return c;
    if (names.empty())
        throw Error(ErrorKind::InvalidArgument, path,
                    format + " jobs store no JSON field to look into (" + std::string(text) + ")");
    std::string list;
    for (const auto& n : names)
        list += (list.empty() ? "" : ", ") + n;
    throw Error(ErrorKind::InvalidArgument, path,
                "no JSON field " + c.field + " in " + format + " jobs; JSON fields: " + list);
}

std::string Queue::Impl::jsonCondition(const std::string& where, Binds& binds) const {
    const JsonCondition c = checkJsonCondition(info(), where, path);
    const FormatDriver::JsonField* field = nullptr;
    const auto fields = driver().jsonFields();
    for (const auto& f : fields)
        if (f.name == c.field)
            field = &f;
    if (!field) // checked above; a driver that disagrees with itself
        throw Error(ErrorKind::InvalidArgument, path, "no JSON field " + c.field);
    const std::string& col = field->sql;
    const std::string jsonPath = field->prefix + c.path.substr(1);
    // A CASE, so json_extract() never reads text that is not JSON (it would
    // fail the whole query) and a NULL field is simply no match.
    const auto guarded = [&](const std::string& test) {
        return "(CASE WHEN json_valid(" + col + ") THEN " + test + " ELSE 0 END)";
    };
    const std::string type = "json_type(" + col + ", ?)";
    const std::string value = "json_extract(" + col + ", ?)";
    using Op = JsonCondition::Op;
    if (c.op == Op::Exists) {
        binds.emplace_back(jsonPath);
        return guarded(type + " IS NOT NULL");
    }
    if (c.op == Op::Like) {
        std::string pattern = "%";
        for (char ch : c.value) {
            if (ch == '%' || ch == '_' || ch == '\\')
                pattern += '\\';
            pattern += ch;
        }
        pattern += '%';
        // Objects and arrays as their JSON text; scalars as their value.
        binds.emplace_back(jsonPath);
        binds.emplace_back(pattern);
        return guarded("CAST(" + value + " AS TEXT) LIKE ? ESCAPE '\\'");
    }
    // null, true and false compare by JSON type; a number by value among
    // numbers, text among strings: `count > 5` never matches the text "abc".
    if (!c.quoted && (c.value == "null" || c.value == "true" || c.value == "false")) {
        if (c.op != Op::Eq && c.op != Op::Ne)
            throw Error(ErrorKind::InvalidArgument, path,
                        where + ": " + c.value + " takes only = or !=");
        binds.emplace_back(jsonPath);
        binds.emplace_back(c.value);
        return guarded(type + (c.op == Op::Eq ? " = ?" : " <> ?"));
    }
    const std::optional<BindValue> n = c.quoted ? std::nullopt : number(c.value);
    const char* types = n ? "('integer', 'real')" : "('text')";
    // The value first: AND stops at the first false term, so the type is
    // parsed out only for a job whose value already matched (SQLite 3.40
    // parses the JSON text again for each function).
    std::string test = value + sqlOp(c.op) + "? AND " + type + " IN " + types;
    if (c.op == Op::Ne) {
        // Also a value of another type; a missing key matches nothing.
        test = "(" + type + " NOT IN " + types + " OR (" + test + "))";
        binds.emplace_back(jsonPath);
    }
    binds.emplace_back(jsonPath);
    binds.push_back(n ? *n : BindValue(c.value));
    binds.emplace_back(jsonPath);
    return guarded(test);
}

} // namespace lq::core
