// SPDX-License-Identifier: MIT
#pragma once

// The server side of the remote protocol (docs/PROTOCOL.md): one session
// over a pair of file descriptors (`lqctl serve --stdio`), answering
// JSON-lines requests on one queue with lq::core::Queue, running operator
// actions chunk by chunk while the client records each chunk before it
// commits, and pushing change notifications from its own watcher (PRAGMA
// data_version and the file's identity, polled locally) so the client never
// polls over the network. A bad request gets an error reply; the session
// and the file live on.

#include <cstddef>
#include <memory>
#include <string>

namespace lq::core::remote {

/// The protocol version this build speaks; hello refuses any other.
inline constexpr int kProtocolVersion = 1;
/// The longest request line the server reads (1 MiB).
inline constexpr std::size_t kMaxRequestBytes = std::size_t(1) << 20;

class Server {
public:
    struct Options {
        int in = 0;
        int out = 1;
        std::string name = "lqctl"; ///< "lqctl 1.2.0", in the hello reply
        int pollMs = 100;           ///< how often the watcher looks at the file
    };
    explicit Server(Options o);
    ~Server();
    Server(const Server&) = delete;
    Server& operator=(const Server&) = delete;

    /// Serves until the client closes its end. Returns 0.
    int run();

private:
    struct Impl;
    std::unique_ptr<Impl> m_d;
};

} // namespace lq::core::remote
