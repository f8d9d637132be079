// SPDX-License-Identifier: MIT
#pragma once

// The byte level of the remote protocol: newline-terminated lines on a file
// descriptor, each at most a fixed size (a longer line is discarded up to
// its newline and reported, so one bad request cannot exhaust memory).

#include <cstddef>
#include <string>
#include <string_view>

namespace lq::core::remote {

class LineReader {
public:
    enum class Status { Line, TooLong, Eof };
    LineReader(int fd, std::size_t maxBytes);
    /// Blocks for the next line (without its newline).
    Status next(std::string& line);
    /// True when a line may be read without blocking for up to `timeoutMs`
    /// (data buffered or the descriptor readable or at end).
    bool wait(int timeoutMs);
    int fd() const noexcept { return m_fd; }

private:
    bool fill(); ///< false at end of file
    int m_fd;
    std::size_t m_max;
    std::string m_buf;
    std::size_t m_pos = 0;
};

/// Writes all of `s`; false when the peer is gone.
bool writeAll(int fd, std::string_view s);

} // namespace lq::core::remote
