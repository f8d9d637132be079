// SPDX-License-Identifier: MIT
#pragma once

#include "queueformat.h"

namespace lq::core {

/// litequeue-0.14, -0.13, -legacy, -multi and an unknown user_version.
class LitequeueFormat final : public QueueFormat {
public:
    /// The versions one recogniser tells apart (docs/FORMATS.md#litequeue).
    enum class Version {
        V014,   ///< "litequeue-0.14": user_version 3, ns, claim_id
        V013,   ///< "litequeue-0.13": user_version 2, seconds, claim_id
        Legacy, ///< "litequeue-legacy": 0.6–0.12, six columns, ns, lock_time token
        Multi,  ///< "litequeue-multi": ≤ 0.9, several queue tables; read-only
        Other,  ///< "litequeue-unknown": eight columns, unknown user_version; read-only
    };
    /// The one object of each version (the registry's rows).
    static const LitequeueFormat& of(Version v) noexcept;
    /// The version of a file this format recognised.
    static Version versionOf(const FormatInfo& info) noexcept;
    Version version() const noexcept { return m_version; }

    const char* id() const noexcept override;
    std::vector<State> states() const override;
    bool keepsHistory() const noexcept override { return true; }
    std::string unknownText() const override { return "status not 0–3"; }
    bool hasKeys(const FormatInfo& info) const noexcept override;
    bool multiTable() const noexcept override;
    std::string tokenLabel(const FormatInfo& info) const override;
    std::vector<Action> rowActions() const override;
    Action retryAction() const noexcept override { return Action::Retry; }
    std::vector<ActionRule> actionRules(const FormatInfo& info) const override;
    std::string notice(const FormatInfo& info) const override;
    UpgradeState upgradeState() const noexcept override;
    const char* upgradeTarget() const noexcept override { return of(Version::V014).id(); }

    std::optional<FormatInfo> recognise(const SchemaFacts& s,
                                        const std::string& preferTable) const override;
    void explainNoMatch(const SchemaFacts& s) const override;
    std::unique_ptr<FormatDriver> driver(const FormatInfo& info,
                                         const std::string& path) const override;

    /// Creates the litequeue-0.14 schema in an empty file (Queue::create()).
    static void createSchema(Connection& c, std::optional<std::int64_t> maxsize);

private:
    explicit LitequeueFormat(Version v) noexcept;

    Version m_version;
};

} // namespace lq::core
