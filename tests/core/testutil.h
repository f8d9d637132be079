// SPDX-License-Identifier: MIT
#pragma once

// Shared helpers of the core suites: fixture copies (never open a fixture in
// place), a fake clock, and a raw SQLite handle for building special files
// and inspecting files after an action. The raw handle never does what
// lqcore should do.

#include "core/actions.h"
#include "core/error.h"
#include "core/format.h"
#include "core/formats/queueformat.h"
#include "core/message.h"
#include "core/queue.h"
#include "support/fixtures.h"

#include <QByteArray>
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <QTest>

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

// Readable QCOMPARE failures for the types the suites compare.
namespace QTest {
template <> inline char* toString(const std::string& s) {
    return qstrdup(s.c_str());
}
template <> inline char* toString(const std::optional<std::int64_t>& v) {
    return v ? qstrdup(QByteArray::number(qint64(*v)).constData()) : qstrdup("nullopt");
}
template <> inline char* toString(const std::optional<std::string>& v) {
    return v ? toString(*v) : qstrdup("nullopt");
}
template <> inline char* toString(const lq::core::ErrorKind& k) {
    return qstrdup(lq::core::errorKindName(k));
}
template <> inline char* toString(const lq::core::State& s) {
    return qstrdup(lq::core::stateName(s));
}
template <> inline char* toString(const lq::core::QueueFormat* const& f) {
    return qstrdup(lq::core::formatId(f));
}
} // namespace QTest

namespace lqtest {

using lq::core::kNsPerSecond;
using lq::core::TimeNs;

/// 2023-11-14T22:13:20Z: a round base for fresh queues.
inline constexpr TimeNs kT0 = 1'700'000'000'000'000'000;

using lq::test::dataDir;
inline std::string toStd(const QString& s) {
    return QFile::encodeName(s).toStdString();
}
inline QString fromStd(const std::string& s) {
    return QFile::decodeName(QByteArray::fromStdString(s));
}

/// A clock the test moves by hand; copies share the same time.
struct FakeClock {
    std::shared_ptr<TimeNs> t = std::make_shared<TimeNs>(kT0);
    lq::core::Clock clock() const {
        auto p = t;
        return [p] { return *p; };
    }
    TimeNs now() const { return *t; }
    void set(TimeNs v) { *t = v; }
    void advance(TimeNs d) { *t += d; }
    void advanceSeconds(double s) { *t += lq::core::secondsToNs(s); }
};

inline lq::core::OpenOptions optionsWith(lq::core::Clock c, std::string table = {}) {
    lq::core::OpenOptions o;
    o.clock = std::move(c);
    o.table = std::move(table);
    return o;
}

/// A fixture's copy in `dir` (see lq::test::copyFixture), as a path for
/// lqcore.
inline std::string copyFixture(const QTemporaryDir& dir, const QString& name,
                               bool mainOnly = false) {
    return toStd(lq::test::copyFixture(dir, name, mainOnly));
}

inline QByteArray sha256(const std::string& path) {
    QFile f(fromStd(path));
    if (!f.open(QIODevice::ReadOnly))
        return QByteArray("<missing>");
    QCryptographicHash h(QCryptographicHash::Sha256);
    h.addData(&f);
    return h.result().toHex();
}

inline QJsonObject loadFacts() {
    QFile f(dataDir() + QStringLiteral("/facts.json"));
    if (!f.open(QIODevice::ReadOnly))
        throw std::runtime_error("cannot read facts.json");
    return QJsonDocument::fromJson(f.readAll()).object();
}

/// A raw SQLite connection for building and inspecting files. Read-only
/// handles never checkpoint on close, so inspecting a copy with a pending
/// WAL leaves its main file as it was.
class Db {
public:
    explicit Db(const std::string& path, bool readOnly = false) {
        const int flags =
            readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
        if (sqlite3_open_v2(path.c_str(), &m_db, flags, nullptr) != SQLITE_OK) {
            const std::string msg = m_db ? sqlite3_errmsg(m_db) : "out of memory";
            sqlite3_close_v2(m_db);
            m_db = nullptr;
            throw std::runtime_error("sqlite3_open_v2(" + path + "): " + msg);
        }
        sqlite3_busy_timeout(m_db, 5000);
        if (readOnly)
            sqlite3_db_config(m_db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
    }
    ~Db() { sqlite3_close_v2(m_db); }
    Db(const Db&) = delete;
    Db& operator=(const Db&) = delete;

    void exec(const std::string& sql) {
        char* err = nullptr;
        if (sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
            const std::string msg = err ? err : "?";
            sqlite3_free(err);
            throw std::runtime_error("sqlite3_exec(" + sql + "): " + msg);
        }
    }

    /// Every row of `sql` as text columns (NULL -> "NULL").
    std::vector<std::vector<std::string>> rows(const std::string& sql) {
        sqlite3_stmt* st = nullptr;
        if (sqlite3_prepare_v2(m_db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK)
            throw std::runtime_error("prepare(" + sql + "): " + sqlite3_errmsg(m_db));
        std::vector<std::vector<std::string>> out;
        int rc;
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            std::vector<std::string> row;
            for (int i = 0; i < sqlite3_column_count(st); ++i) {
                if (sqlite3_column_type(st, i) == SQLITE_NULL) {
                    row.emplace_back("NULL");
                } else {
                    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(st, i));
                    row.emplace_back(p, static_cast<std::size_t>(sqlite3_column_bytes(st, i)));
                }
            }
            out.push_back(std::move(row));
        }
        sqlite3_finalize(st);
        if (rc != SQLITE_DONE)
            throw std::runtime_error("step(" + sql + "): " + sqlite3_errmsg(m_db));
        return out;
    }

    std::int64_t integer(const std::string& sql) {
        sqlite3_stmt* st = nullptr;
        if (sqlite3_prepare_v2(m_db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK)
            throw std::runtime_error("prepare(" + sql + "): " + sqlite3_errmsg(m_db));
        std::int64_t v = 0;
        if (sqlite3_step(st) == SQLITE_ROW)
            v = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
        return v;
    }

    double real(const std::string& sql) {
        sqlite3_stmt* st = nullptr;
        if (sqlite3_prepare_v2(m_db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK)
            throw std::runtime_error("prepare(" + sql + "): " + sqlite3_errmsg(m_db));
        double v = 0;
        if (sqlite3_step(st) == SQLITE_ROW)
            v = sqlite3_column_double(st, 0);
        sqlite3_finalize(st);
        return v;
    }

    std::string text(const std::string& sql) {
        const auto r = rows(sql);
        return r.empty() || r.front().empty() ? std::string("<no row>") : r.front().front();
    }

    sqlite3* handle() const { return m_db; }

private:
    sqlite3* m_db = nullptr;
};

/// type|name|tbl_name|sql of every schema object, sorted: what "the file's
/// schema did not change" compares.
inline std::string schemaDump(const std::string& path) {
    Db db(path, true);
    std::string out;
    for (const auto& r :
         db.rows("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name")) {
        for (const auto& c : r)
            out += c + '|';
        out += '\n';
    }
    return out;
}

inline std::int64_t userVersion(const std::string& path) {
    Db db(path, true);
    return db.integer("PRAGMA user_version");
}

/// Column names of a table, in order.
inline std::vector<std::string> columnsOf(const std::string& path, const std::string& table) {
    Db db(path, true);
    std::vector<std::string> out;
    for (const auto& r : db.rows("SELECT name FROM pragma_table_info('" + table + "')"))
        out.push_back(r.at(0));
    return out;
}

/// Collapses runs of whitespace to one space (SQL text comparisons).
inline std::string squeeze(const std::string& s) {
    std::string out;
    bool space = false;
    for (char c : s) {
        if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
            space = true;
            continue;
        }
        if (space && !out.empty())
            out += ' ';
        space = false;
        out += c;
    }
    return out;
}

inline bool contains(const std::string& hay, const std::string& needle) {
    return hay.find(needle) != std::string::npos;
}

/// Runs `f` and returns the lq::core::Error it threw, if any.
template <class F> std::optional<lq::core::Error> catchError(F&& f) {
    try {
        f();
    } catch (const lq::core::Error& e) {
        return e;
    }
    return std::nullopt;
}

/// Every row of a queue in arrival order.
inline std::vector<lq::core::Message> allRows(lq::core::Queue& q) {
    return q.list(lq::core::Filter{}, lq::core::Sort{}, 0, 10'000'000);
}

inline lq::core::Filter stateFilter(std::vector<lq::core::State> states) {
    lq::core::Filter f;
    f.states = std::move(states);
    return f;
}

} // namespace lqtest

/// Expects `expr` to throw lq::core::Error of `errKind` whose what() holds
/// `substr`.
#define LQ_EXPECT_ERROR(expr, errKind, substr)                                                     \
    do {                                                                                           \
        const auto lqErr_ = lqtest::catchError([&] { (void)(expr); });                             \
        QVERIFY2(lqErr_.has_value(), "expected an lq::core::Error from: " #expr);                  \
        QVERIFY2(lqErr_->kind() == (errKind),                                                      \
                 (std::string("kind ") + lq::core::errorKindName(lqErr_->kind()) + ", expected " + \
                  lq::core::errorKindName(errKind) + ": " + lqErr_->what())                        \
                     .c_str());                                                                    \
        QVERIFY2(lqtest::contains(lqErr_->what(), (substr)), lqErr_->what());                      \
    } while (false)
