// SPDX-License-Identifier: MIT
#pragma once

// Loopback networking for the remote and exporter suites and lqbench: a free
// TCP port on 127.0.0.1 and a plain HTTP/1.0 GET. Header-only, POSIX only.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>

namespace lq::test {

/// A port nothing listens on right now (0 when none could be found).
inline int freePort() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast)
    auto* sa = reinterpret_cast<sockaddr*>(&a);
    const bool ok = ::bind(fd, sa, len) == 0 && ::getsockname(fd, sa, &len) == 0;
    ::close(fd);
    return ok ? ntohs(a.sin_port) : 0;
}

/// GET `target` from 127.0.0.1:port: {status, body}; {0, ""} when it failed.
inline std::pair<int, std::string> httpGet(int port, const std::string& target) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast)
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
        ::close(fd);
        return {0, {}};
    }
    const std::string req = "GET " + target + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
    if (::write(fd, req.data(), req.size()) != static_cast<ssize_t>(req.size())) {
        ::close(fd);
        return {0, {}};
    }
    std::string resp;
    char buf[65536];
    for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;)
        resp.append(buf, static_cast<std::size_t>(n));
    ::close(fd);
    const auto sp = resp.find(' ');
    const auto body = resp.find("\r\n\r\n");
    if (sp == std::string::npos || body == std::string::npos)
        return {0, {}};
    return {std::atoi(resp.c_str() + sp + 1), resp.substr(body + 4)};
}

} // namespace lq::test
