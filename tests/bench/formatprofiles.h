// SPDX-License-Identifier: MIT
#pragma once

#include "rawreference.h"

#include <map>
#include <string>
#include <vector>

namespace lq::bench {

/// How to grow a format's file and flip a job between READY and SCHEDULED.
/// `:n` is the number of jobs to add, `:t0` the Unix time of the first.
struct FormatProfile {
    std::vector<std::string> grow;
    std::string toScheduled; ///< "{id}": the job's id
    std::string toReady;
    /// The docs/BENCHMARKS.md references: what one would type by hand for the same
    /// figures. Its counts' first column is the number of jobs stored.
    RawQueries raw;
};

/// The formats `lqbench formats` can grow, by format id.
const std::map<std::string, FormatProfile>& formatProfiles();

/// The raw references of a format (litequeue's own and the grown formats'),
/// or nullptr when there are none.
const RawQueries* rawQueriesFor(const std::string& formatId);

/// A JSON field condition as the operator types it (core/jsonwhere.h) and
/// the statement one would type by hand for the same jobs.
struct JsonFilterProbe {
    std::string condition;
    std::string rawSql;
};
/// The probe `lqbench gui` times on a format's files, or nullptr.
const JsonFilterProbe* jsonFilterFor(const std::string& formatId);

} // namespace lq::bench
