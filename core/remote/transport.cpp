// SPDX-License-Identifier: MIT
#include "transport.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace lq::core::remote {

LineReader::LineReader(int fd, std::size_t maxBytes)
    : m_fd(fd)
    , m_max(maxBytes) {}

bool LineReader::fill() {
    char chunk[65536];
    for (;;) {
        const ssize_t n = ::read(m_fd, chunk, sizeof chunk);
        if (n > 0) {
            m_buf.append(chunk, static_cast<std::size_t>(n));
            return true;
        }
        if (n < 0 && errno == EINTR)
            continue;
        return false;
    }
}

LineReader::Status LineReader::next(std::string& line) {
    if (m_pos > 0 && m_pos * 2 >= m_buf.size()) {
        m_buf.erase(0, m_pos);
        m_pos = 0;
    }
    bool tooLong = false;
    std::size_t scanned = m_pos;
    for (;;) {
        const std::size_t nl = m_buf.find('\n', scanned);
        if (nl != std::string::npos) {
            if (tooLong || nl - m_pos > m_max) {
                m_pos = nl + 1;
                line.clear();
                return Status::TooLong;
            }
            line.assign(m_buf, m_pos, nl - m_pos);
            m_pos = nl + 1;
            return Status::Line;
        }
        if (m_buf.size() - m_pos > m_max) {
            // Drop what we have of an over-long line; keep reading to its end.
            tooLong = true;
            m_buf.clear();
            m_pos = 0;
        }
        scanned = m_buf.size();
        if (!fill()) {
            if (tooLong) {
                line.clear();
                return Status::TooLong;
            }
            return Status::Eof;
        }
    }
}

bool LineReader::wait(int timeoutMs) {
    if (m_buf.find('\n', m_pos) != std::string::npos)
        return true;
    pollfd p{m_fd, POLLIN, 0};
    int rc = 0;
    do {
        rc = ::poll(&p, 1, timeoutMs);
    } while (rc < 0 && errno == EINTR);
    return rc > 0;
}

bool writeAll(int fd, std::string_view s) {
    while (!s.empty()) {
        // A socket never raises SIGPIPE (the client's end); a pipe may (the
        // server ignores SIGPIPE).
        ssize_t n = ::send(fd, s.data(), s.size(), MSG_NOSIGNAL);
        if (n < 0 && errno == ENOTSOCK)
            n = ::write(fd, s.data(), s.size());
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        s.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}

} // namespace lq::core::remote
