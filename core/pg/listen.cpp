// SPDX-License-Identifier: MIT
#include "listen.h"

#include "catalog.h"
#include "connection.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

namespace lq::core::pg {

std::vector<std::string> insertChannels(Connection& c, const Found& lib) {
    if (lib.library == "pg-boss")
        return {c.exec("SELECT 'pgboss_' || left(encode(sha224(convert_to($1, 'UTF8')), 'hex'), "
                       "24)",
                       {lib.schema})
                    .text(0, 0)};
    if (lib.library == "river")
        return {lib.schema + ".river_insert"};
    if (lib.library == "oban")
        return {lib.schema + ".oban_insert"};
    if (lib.library == "graphile-worker")
        return {"jobs:insert"};
    if (lib.library == "good-job")
        return {"good_job"};
    return {};
}

ChangeListener::ChangeListener(std::string url, std::vector<std::string> channels,
                               std::function<void()> onChange)
    : m_url(std::move(url))
    , m_channels(std::move(channels))
    , m_onChange(std::move(onChange)) {
    if (::pipe2(m_wake, O_CLOEXEC | O_NONBLOCK) != 0)
        throw Error(ErrorKind::Io, "pipe", "cannot create the listener's wake-up pipe");
    m_thread = std::thread([this] { run(); });
}

ChangeListener::~ChangeListener() {
    m_stop = true;
    const char byte = 0;
    (void)!::write(m_wake[1], &byte, 1);
    m_thread.join();
    ::close(m_wake[0]);
    ::close(m_wake[1]);
}

void ChangeListener::run() {
    constexpr int kWaitMs = 1000;
    while (!m_stop.load()) {
        try {
            auto c = Connection::open(m_url);
            for (const std::string& ch : m_channels)
                c->exec("LISTEN " + quoteIdent(ch));
            while (!m_stop.load()) {
                if (!c->waitReadable(kWaitMs, m_wake[0]))
                    continue;
                if (!c->takeNotifications().empty())
                    m_onChange();
            }
        } catch (const Error&) {
            // Opened again a second later (or at once stopped); meanwhile
            // the change marker's poll still sees every change.
            pollfd p{m_wake[0], POLLIN, 0};
            (void)::poll(&p, 1, kWaitMs);
        }
    }
}

} // namespace lq::core::pg
