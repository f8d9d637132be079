// SPDX-License-Identifier: MIT
#pragma once

#include <stdexcept>
#include <string>

namespace lq::core {

/// What went wrong, coarse enough for a caller to decide what to do
/// (lqctl maps it to an exit code, the GUI to a banner or a dialog).
enum class ErrorKind {
    Sqlite,              ///< any other SQLite failure (code() says which)
    IdempotencyConflict, ///< put() with a stored key but other data
    QueueFull,           ///< the maxsize trigger refused an insert
    NotAQueue,           ///< a SQLite file, but not a queue (or empty)
    Unsupported,         ///< a queue format we recognise but cannot serve
    Busy,                ///< another process held the lock past the timeout
    Corrupt,             ///< damaged or not a SQLite file at all
    ReadOnly,            ///< a write on a queue opened read-only
    Io,                  ///< the path is missing, a directory, unreadable
    NotFound,            ///< no message with that id
    InvalidArgument,     ///< the caller passed something meaningless
    FileChanged,         ///< the path no longer names the file that was opened
};

/// The one error type of lqcore. Carries SQLite's code and extended code when
/// SQLite was the source, the file it concerns, and a message a person can act
/// on ("FILE: what happened. What to do next.").
class Error : public std::runtime_error {
public:
    Error(ErrorKind kind, std::string path, const std::string& message, int sqliteCode = 0,
          int extendedCode = 0);

    ErrorKind kind() const noexcept { return m_kind; }
    const std::string& path() const noexcept { return m_path; }
    /// The message without the "FILE: " prefix.
    const std::string& detail() const noexcept { return m_detail; }
    int sqliteCode() const noexcept { return m_code; }
    int extendedCode() const noexcept { return m_extended; }

private:
    ErrorKind m_kind;
    std::string m_path;
    std::string m_detail;
    int m_code;
    int m_extended;
};

/// Typed errors of docs/FORMATS.md#litequeue, so callers can catch exactly one of them.
// NOLINTBEGIN(bugprone-macro-parentheses): Name is a class name, not an expression
#define LQ_CORE_DECLARE_ERROR(Name)                                                                \
    class Name : public Error {                                                                    \
    public:                                                                                        \
        Name(std::string path, const std::string& message, int code = 0, int ext = 0)              \
            : Error(ErrorKind::Name, std::move(path), message, code, ext) {}                       \
    };
LQ_CORE_DECLARE_ERROR(IdempotencyConflict)
LQ_CORE_DECLARE_ERROR(QueueFull)
LQ_CORE_DECLARE_ERROR(NotAQueue)
LQ_CORE_DECLARE_ERROR(Unsupported)
LQ_CORE_DECLARE_ERROR(Busy)
LQ_CORE_DECLARE_ERROR(Corrupt)
LQ_CORE_DECLARE_ERROR(ReadOnly)
LQ_CORE_DECLARE_ERROR(FileChanged)
#undef LQ_CORE_DECLARE_ERROR
// NOLINTEND(bugprone-macro-parentheses)

/// Human name of a kind ("busy", "not a queue", ...).
const char* errorKindName(ErrorKind kind) noexcept;

} // namespace lq::core
