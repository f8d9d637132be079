// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>

namespace lq::core {

/// What a write by another process changes about a file, as stat() tells:
/// `lqctl watch`, the table's file monitoring and the fleet's rescans
/// compare these for the queue file and its `-wal` (a reader touches only
/// the `-shm`).
struct FileStamp {
    bool exists = false;
    std::uint64_t inode = 0;
    std::int64_t size = 0;
    std::int64_t mtimeNs = 0;

    bool operator==(const FileStamp&) const = default;
};

/// The stamp of `path`; `exists` is false when stat() fails.
FileStamp fileStamp(const std::string& path);

} // namespace lq::core
