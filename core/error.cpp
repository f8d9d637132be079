// SPDX-License-Identifier: MIT
#include "error.h"

namespace lq::core {

namespace {
std::string compose(const std::string& path, const std::string& message) {
    return path.empty() ? message : path + ": " + message;
}
} // namespace

Error::Error(ErrorKind kind, std::string path, const std::string& message, int sqliteCode,
             int extendedCode)
    : std::runtime_error(compose(path, message))
    , m_kind(kind)
    , m_path(std::move(path))
    , m_detail(message)
    , m_code(sqliteCode)
    , m_extended(extendedCode) {}

const char* errorKindName(ErrorKind kind) noexcept {
    switch (kind) {
    case ErrorKind::Sqlite:
        return "sqlite error";
    case ErrorKind::IdempotencyConflict:
        return "idempotency conflict";
    case ErrorKind::QueueFull:
        return "queue full";
    case ErrorKind::NotAQueue:
        return "not a queue";
    case ErrorKind::Unsupported:
        return "unsupported";
    case ErrorKind::Busy:
        return "busy";
    case ErrorKind::Corrupt:
        return "damaged";
    case ErrorKind::ReadOnly:
        return "read-only";
    case ErrorKind::Io:
        return "i/o error";
    case ErrorKind::NotFound:
        return "not found";
    case ErrorKind::InvalidArgument:
        return "invalid argument";
    case ErrorKind::FileChanged:
        return "file changed";
    }
    return "error";
}

} // namespace lq::core
