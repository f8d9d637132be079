// SPDX-License-Identifier: MIT
#include "listen.h"

#include "catalog.h"
#include "connection.h"

#include <chrono>

namespace lq::core::pg {

std::vector<std::string> insertChannels(const Found& lib) {
    if (lib.library == "river")
        return {lib.schema + ".river_insert"};
    if (lib.library == "oban")
        return {lib.schema + ".oban_insert"};
    if (lib.library == "graphile-worker")
        return {"jobs:insert"};
    return {};
}

ChangeListener::ChangeListener(std::string url, std::vector<std::string> channels,
                               std::function<void()> onChange)
    : m_url(std::move(url))
    , m_channels(std::move(channels))
    , m_onChange(std::move(onChange))
    , m_thread([this] { run(); }) {}

ChangeListener::~ChangeListener() {
    m_stop = true;
    m_thread.join();
}

void ChangeListener::run() {
    constexpr int kTickMs = 100;
    while (!m_stop.load()) {
        try {
            auto c = Connection::open(m_url);
            for (const std::string& ch : m_channels)
                c->exec("LISTEN " + quoteIdent(ch));
            while (!m_stop.load()) {
                if (!c->waitReadable(kTickMs))
                    continue;
                if (!c->takeNotifications().empty())
                    m_onChange();
            }
        } catch (const Error&) {
            // Opened again a second later; meanwhile the change marker's
            // poll still sees every change.
            for (int i = 0; i < 10 && !m_stop.load(); ++i)
                std::this_thread::sleep_for(std::chrono::milliseconds(kTickMs));
        }
    }
}

} // namespace lq::core::pg
