// SPDX-License-Identifier: MIT
#pragma once

#include "../json.h"
#include "jobtable.h"

namespace lq::core {

/// River with its riversqlite driver (docs/FORMATS.md#river-sqlite): table `river_job`
/// beside `river_migration`; schema version 7 stores args, errors and
/// metadata as JSONB (read by core/jsonb.h, never SQLite's json()), version 6
/// as JSON text. Ids can be reused (no AUTOINCREMENT): a row is (id,
/// created_at).
class RiverFormat final : public JobTableFormat {
public:
    std::string stuckRule() const override {
        return "running, attempted more than 1 h ago (the JobRescuer's RescueStuckJobsAfter)";
    }
    const char* id() const noexcept override { return "river-sqlite"; }
    std::string timeUnits(const FormatInfo&) const override {
        return "TEXT UTC (\"2006-01-02 15:04:05.999\", or Go's time.String())";
    }
    std::vector<ExtraState> extraStates() const override;
    std::string jobLabel() const override { return "Kind"; }
    std::vector<ActionRule> actionRules(const FormatInfo& info) const override;
    std::string whyNoPause(const FormatInfo& info) const override;
    std::vector<PruneRule> pruneRules() const override;
    std::string pruneText() const override;
    std::optional<FormatInfo> recognise(const SchemaFacts& s,
                                        const std::string& preferTable) const override;
    void explainNoMatch(const SchemaFacts& s) const override;
    std::unique_ptr<FormatDriver> driver(const FormatInfo& info,
                                         const std::string& path) const override;
};

/// The error River's JobRescuer appends to a stuck job it rescues
/// (internal/maintenance/job_rescuer.go): at `now` in RFC 3339 with ns,
/// the attempt, "Stuck job rescued by JobRescuer", an empty trace. Both
/// engines' release write it.
Json riverRescueError(TimeNs now, std::int64_t attempt);

} // namespace lq::core
