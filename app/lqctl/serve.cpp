// SPDX-License-Identifier: MIT
// `lqctl serve --stdio` and the ssh:// side of every other command: the
// remote protocol of docs/PROTOCOL.md, served by core/remote/server.h and
// spoken by core/remote/client.h.
#include "commands.h"

#include <core/remote/server.h>

#include <QCoreApplication>

#include <csignal>

namespace lq::ctl {

int cmdServe(const Options&) {
    // A client that goes away must not kill the server mid-transaction:
    // a failed write is seen and the session ends at the next read.
    std::signal(SIGPIPE, SIG_IGN);
    core::remote::Server::Options so;
    so.name = "lqctl " + QCoreApplication::applicationVersion().toStdString();
    return core::remote::Server(so).run();
}

bool isRemote(const Options& o) {
    return core::remote::isRemoteUrl(o.file);
}

} // namespace lq::ctl
