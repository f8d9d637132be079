// SPDX-License-Identifier: MIT
#pragma once

// A condition on a JSON field of a job (Filter::where): what operators
// search job arguments by. "args.user_id = 42", "arguments[0]._aj_globalid
// ~ Order/17", "meta.trace" (the path exists). The first segment names one
// of the format's JSON fields in the library's words (FormatDriver::
// jsonFields(): Oban's and River's `args`, Solid Queue's `arguments`,
// Laravel's `payload`); the rest is a path inside it, evaluated by SQLite's
// json_extract() (River's JSONB by lqcore's own decoder first).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace lq::core {

struct FormatInfo;

struct JsonCondition {
    enum class Op { Exists, Eq, Ne, Lt, Le, Gt, Ge, Like };
    std::string field; ///< the first segment: a JSON field of the job
    /// The rest as an SQLite JSON path ("$", "$.user_id", "$[0].\"a b\"").
    std::string path;
    Op op = Op::Exists;
    /// The value as typed, unquoted ("42", "true", "null", "Order/17").
    std::string value;
    /// Typed as a JSON string ("..."): compared as text, never as a number.
    bool quoted = false;
};

/// Parses `FIELD[.KEY | ["KEY"] | [N]]... [OP VALUE]` with OP one of = !=
/// < <= > >= ~ (~: the value as text contains VALUE). Throws
/// Error(InvalidArgument) saying what is wrong and where.
JsonCondition parseJsonCondition(std::string_view text);

/// The JSON fields the jobs of a file of `info` have, in the library's
/// words (FormatDriver::jsonFields(); none: the payload is not JSON).
std::vector<std::string> jsonFieldNames(const FormatInfo& info);

/// `text` parsed and its field checked against the file's: what a query
/// with it would refuse, refused without one (Error(InvalidArgument) with
/// the same words). `path` names the file in the error.
JsonCondition checkJsonCondition(const FormatInfo& info, std::string_view text,
                                 const std::string& path = {});
/// The same against `fieldNames` (QueueBackend::jsonFieldNames, whatever
/// the engine), `format` naming the jobs in the error.
JsonCondition checkJsonCondition(const std::vector<std::string>& fieldNames,
                                 const std::string& format, std::string_view text,
                                 const std::string& path = {});

/// A condition's value (unquoted) as both engines read a number: an
/// integer, else a real without hex, inf or nan, whatever the locale;
/// nullopt when it is no number.
std::optional<std::variant<std::int64_t, double>> jsonConditionNumber(const std::string& v);

/// The operators, for help texts: "=, !=, <, <=, >, >=, ~".
const char* jsonConditionOperators() noexcept;

} // namespace lq::core
