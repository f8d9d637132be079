// SPDX-License-Identifier: MIT
#pragma once

// Filter::where and Filter::metric as SQL over the derived table of
// core/pg/list.cpp (one row per job: data, created_ns, lock_ns, done_ns,
// wait_from_ns, state, ...), for its WHERE clause.

#include "../query.h"

#include <functional>
#include <string>

namespace lq::core::pg {

/// A parameter's placeholder ("$n") for a value, the value appended to
/// the statement's parameters.
using ParamOf = std::function<std::string(std::string)>;

/// Filter::where as SQL over the derived table, by core/query_json.cpp's
/// rules: a path that exists (JSON null too); `~` the value's text
/// (a string's own, a number's, true 1, false 0, an object or array as
/// compact JSON) containing the text, ASCII case folded as SQLite's LIKE
/// does; null, true and false by JSON type; a number among numbers and
/// text among strings (bytewise), `!=` also matching a value of another
/// type; a missing path, or a document that is not JSON, matches nothing.
std::string jsonWhere(const std::string& display, const std::string& library,
                      const std::string& where, const ParamOf& param);

/// Filter::metric in [lo, hi) over the derived table, by the histogram's
/// rule (computeStats() over readTiming()), which is the SQLite drivers'
/// metricCondition(): wait from the due time to the claim; processing and
/// time to failure from the claim to the finish of a DONE or FAILED job;
/// total from the enqueue to the finish of a DONE job. A job without the
/// times (Solid Queue keeps no claim time of a finished job, Graphile
/// Worker no finish) is in no band.
std::string metricWhere(const Filter& f, const ParamOf& param);

} // namespace lq::core::pg
