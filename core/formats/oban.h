// SPDX-License-Identifier: MIT
#pragma once

#include "jobtable.h"

namespace lq::core {

/// Oban with Oban.Engines.Lite (docs/FORMATS.md#oban-lite): table `oban_jobs` with a
/// text `state`, named queues, ISO TEXT times, errors appended as JSON
/// strings (double encoded); completed/cancelled/discarded rows are kept.
class ObanFormat final : public JobTableFormat {
public:
    std::string stuckRule() const override {
        return "executing, attempted more than 60 min ago (Lifeline's rescue_after)";
    }
    const char* id() const noexcept override { return "oban-lite"; }
    std::string timeUnits(const FormatInfo&) const override {
        return "TEXT UTC (ISO 8601, microseconds when Ecto writes them)";
    }
    std::vector<ExtraState> extraStates() const override;
    std::string jobLabel() const override { return "Worker"; }
    std::vector<ActionRule> actionRules(const FormatInfo& info) const override;
    std::vector<PruneRule> pruneRules() const override;
    std::string pruneText() const override;
    std::optional<FormatInfo> recognise(const SchemaFacts& s,
                                        const std::string& preferTable) const override;
    void explainNoMatch(const SchemaFacts& s) const override;
    std::unique_ptr<FormatDriver> driver(const FormatInfo& info,
                                         const std::string& path) const override;
};

} // namespace lq::core
