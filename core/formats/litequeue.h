// SPDX-License-Identifier: MIT
#pragma once

#include "queueformat.h"

namespace lq::core {

/// litequeue-0.14, -0.13, -legacy, -multi and an unknown user_version.
class LitequeueFormat final : public QueueFormat {
public:
    explicit LitequeueFormat(Format f) noexcept;

    const char* id() const noexcept override;
    std::vector<State> states() const override;
    bool keepsHistory() const noexcept override { return true; }
    std::string unknownText() const override { return "status not 0–3"; }
    bool hasKeys(const FormatInfo& info) const noexcept override;
    bool multiTable() const noexcept override;
    std::string tokenLabel(const FormatInfo& info) const override;
    std::vector<Action> rowActions() const override;
    Action retryAction() const noexcept override { return Action::Retry; }
    std::string whyNot(Action a, const FormatInfo& info) const override;
    std::string notice(const FormatInfo& info) const override;
    UpgradeState upgradeState() const noexcept override;
    const char* upgradeTarget() const noexcept override { return formatId(Format::Litequeue014); }

    std::optional<FormatInfo> recognise(const SchemaFacts& s,
                                        const std::string& preferTable) const override;
    void explainNoMatch(const SchemaFacts& s) const override;
    std::unique_ptr<FormatDriver> driver(const FormatInfo& info,
                                         const std::string& path) const override;

    /// Creates the litequeue-0.14 schema in an empty file (Queue::create()).
    static void createSchema(Connection& c, std::optional<std::int64_t> maxsize);

private:
    Format m_format;
};

} // namespace lq::core
