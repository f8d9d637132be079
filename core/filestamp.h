// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>

namespace lq::core {

/// A file's identity on disk and what a write by another process changes
/// about it, as stat() tells: the one file-identity type. `lqctl watch`, the
/// table's file monitoring, the fleet's rescans and the exporter compare
/// these for the queue file and its `-wal` (a reader touches only the
/// `-shm`); the operator's writes check the device and inode of the file as
/// opened (Queue::identity()); a remote queue knows the inode and size.
struct FileStamp {
    bool exists = false;
    std::uint64_t device = 0;
    std::uint64_t inode = 0;
    std::int64_t size = 0;
    std::int64_t mtimeNs = 0;

    bool operator==(const FileStamp&) const = default;
};

/// The stamp of `path`; `exists` is false when stat() fails.
FileStamp fileStamp(const std::string& path);

} // namespace lq::core
