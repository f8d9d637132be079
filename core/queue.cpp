// SPDX-License-Identifier: MIT
#include "queue.h"

#include "queue_p.h"
#include "sqlite.h"

#include <sqlite3.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace lq::core {

namespace fs = std::filesystem;

namespace {

void checkPathForOpen(const std::string& path) {
    std::error_code ec;
    const auto st = fs::status(path, ec);
    if (ec || !fs::exists(st)) {
        if (fs::is_symlink(fs::symlink_status(path, ec)))
            throw Error(ErrorKind::Io, path, "broken or looping symbolic link");
        throw Error(ErrorKind::Io, path, "no such file; check the path");
    }
    if (fs::is_directory(st))
        throw Error(ErrorKind::Io, path, "is a directory, not a queue file");
    if (!fs::is_regular_file(st))
        throw Error(ErrorKind::Io, path, "is not a regular file");
    const auto size = fs::file_size(path, ec);
    if (ec)
        throw Error(ErrorKind::Io, path, "cannot read the file size: " + ec.message());
    if (size == 0)
        throw NotAQueue(path, "empty database: the file has 0 bytes");
    // Never open the database file other than through SQLite: closing any
    // other descriptor on it drops every POSIX lock this process holds on
    // it, including those of connections that are open now (another Queue
    // on the same file, the GUI's window beside its fleet poll). Another
    // process could then take itself for the last connection and delete the
    // WAL under them. SQLite itself says "file is not a SQLite database".
    if (::access(path.c_str(), R_OK) != 0)
        throw Error(ErrorKind::Io, path, "cannot open the file for reading (permissions?)");
}

} // namespace

Queue::Queue(std::string path, OpenOptions opts)
    : m_path(std::move(path))
    , m_opts(std::move(opts))
    , m_clock(m_opts.clock ? m_opts.clock : systemClock()) {}

Queue::~Queue() {
    std::lock_guard lock(m_writeMutex);
    m_writer.reset();
    std::lock_guard rl(m_readersMutex);
    m_readers.clear();
}

TimeNs Queue::now() const {
    std::lock_guard lock(m_clockMutex);
    return m_clock();
}

void Queue::setClock(Clock c) {
    std::lock_guard lock(m_clockMutex);
    m_clock = c ? std::move(c) : systemClock();
}

std::unique_ptr<Queue> Queue::open(const std::string& path, OpenOptions opts) {
    checkPathForOpen(path);
    std::unique_ptr<Queue> q(new Queue(path, std::move(opts)));
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0)
        q->m_identity = {static_cast<std::uint64_t>(st.st_dev),
                         static_cast<std::uint64_t>(st.st_ino)};
    q->publish(detectFormat(q->reader(), q->m_opts.table));
    return q;
}

Queue::Schema::~Schema() = default;

const Queue::Sql& Queue::sql() const {
    return *m_schema.load(std::memory_order_acquire)->sql;
}

void Queue::publish(FormatInfo fi) {
    auto schema = std::make_unique<Schema>();
    schema->sql = std::make_unique<Sql>();
    Sql& s = *schema->sql;
    const std::string t = quoteIdent(fi.table);
    switch (fi.format) {
    case Format::JobsLease:
        s.cols = "rowid, payload, id, NULL, NULL, NULL, NULL, NULL, attempts, run_at, "
                 "locked_until";
        s.tokenCol = "attempts";
        s.inCol = "run_at";
        s.insert = "INSERT INTO " + t + " (id, payload, run_at) VALUES (?1, ?2, ?3)";
        s.pop = "UPDATE " + t +
                " SET locked_until = ?2, attempts = attempts + 1 WHERE id = (SELECT id FROM " + t +
                " WHERE run_at <= ?1 AND (locked_until IS NULL OR locked_until < ?1) "
                "ORDER BY run_at LIMIT 1) RETURNING " +
                s.cols;
        s.peek = "SELECT " + s.cols + " FROM " + t +
                 " WHERE run_at <= ?1 AND (locked_until IS NULL OR locked_until < ?1) ORDER BY "
                 "run_at LIMIT 1";
        s.byId = "SELECT " + s.cols + " FROM " + t + " WHERE id = ?1";
        break;
    default: {
        const bool claims = fi.hasClaimId;
        s.cols = std::string("rowid, data, message_id, status, in_time, lock_time, done_time, ") +
                 (fi.hasIdempotencyKey ? "idempotency_key, " : "NULL, ") +
                 (claims ? "claim_id" : "0") + ", NULL, NULL";
        s.tokenCol = claims ? "claim_id" : "coalesce(lock_time, 0)";
        s.inCol = "in_time";
        if (claims) {
            s.insert = "INSERT INTO " + t +
                       " (data, message_id, status, in_time, lock_time, done_time, "
                       "idempotency_key, claim_id) VALUES (?1, ?2, 0, ?3, NULL, NULL, ?4, 0)";
            s.pop = "UPDATE " + t +
                    " SET status = 1, claim_id = claim_id + 1, lock_time = ?1, done_time = NULL "
                    "WHERE message_id = (SELECT message_id FROM " +
                    t + " WHERE status = 0 ORDER BY message_id LIMIT 1) RETURNING " + s.cols;
        } else {
            s.insert = "INSERT INTO " + t +
                       " (data, message_id, status, in_time, lock_time, done_time) VALUES (?1, "
                       "?2, 0, ?3, NULL, NULL)";
            s.pop = "UPDATE " + t +
                    " SET status = 1, lock_time = ?1, done_time = NULL WHERE message_id = "
                    "(SELECT message_id FROM " +
                    t + " WHERE status = 0 ORDER BY message_id LIMIT 1) RETURNING " + s.cols;
        }
        s.byKey = "SELECT " + s.cols + " FROM " + t + " WHERE idempotency_key = ?1";
        s.peek =
            "SELECT " + s.cols + " FROM " + t + " WHERE status = 0 ORDER BY message_id LIMIT 1";
        s.byId = "SELECT " + s.cols + " FROM " + t + " WHERE message_id = ?1";
        break;
    }
    }
    schema->info = std::move(fi);
    std::lock_guard lock(m_schemaMutex);
    m_schema.store(schema.get(), std::memory_order_release);
    m_schemas.push_back(std::move(schema));
}

std::unique_ptr<Queue> Queue::create(const std::string& path, std::optional<std::int64_t> maxsize,
                                     OpenOptions opts) {
    std::error_code ec;
    const bool exists = fs::exists(path, ec);
    if (exists && fs::is_directory(path, ec))
        throw Error(ErrorKind::Io, path, "is a directory, not a queue file");
    const bool fresh = !exists || fs::file_size(path, ec) == 0;
    if (maxsize && *maxsize < 0)
        throw Error(ErrorKind::InvalidArgument, path, "maxsize must be 0 or more");
    if (fresh) {
        if (opts.readOnly)
            throw ReadOnly(path, "cannot create a queue in read-only mode");
        Connection c(path, Connection::Mode::ReadWriteCreate, opts.busyTimeoutMs);
        {
            Transaction tx(c, Transaction::Kind::Immediate);
            // Another process may have created it meanwhile: only create when empty.
            auto st = c.prepare("SELECT count(*) FROM sqlite_master");
            const bool empty = st.step() && st.int64(0) == 0;
            st.reset();
            if (empty) {
                c.exec("CREATE TABLE \"Queue\" (data TEXT NOT NULL, message_id TEXT NOT NULL, "
                       "status INTEGER NOT NULL, in_time INTEGER NOT NULL, lock_time INTEGER, "
                       "done_time INTEGER, idempotency_key TEXT, claim_id INTEGER NOT NULL "
                       "DEFAULT 0)");
                c.exec("CREATE UNIQUE INDEX \"Queue_message_id_unique_idx\" ON "
                       "\"Queue\"(message_id)");
                c.exec("CREATE INDEX \"Queue_status_message_id_idx\" ON \"Queue\"(status, "
                       "message_id)");
                c.exec("CREATE UNIQUE INDEX \"Queue_idempotency_key_unique_idx\" ON "
                       "\"Queue\"(idempotency_key) WHERE idempotency_key IS NOT NULL");
                if (maxsize) {
                    const std::string n = std::to_string(*maxsize);
                    c.exec("CREATE TRIGGER \"maxsize_control_Queue\" BEFORE INSERT ON \"Queue\" "
                           "WHEN (SELECT COUNT(*) FROM \"Queue\" WHERE status = 0) >= " +
                           n + " BEGIN SELECT RAISE (ABORT,'Max queue length reached: " + n +
                           "'); END");
                }
                c.exec("PRAGMA user_version = 3");
            }
            tx.commit();
        }
        c.exec("PRAGMA journal_mode = WAL");
    }
    auto q = open(path, std::move(opts));
    if (q->info().format != Format::Litequeue014)
        throw Unsupported(path, std::string("is a ") + formatId(q->info().format) +
                                    " queue, not litequeue-0.14; run `lqctl upgrade` first");
    if (!fresh && maxsize && q->info().maxsize != maxsize)
        throw Error(
            ErrorKind::InvalidArgument, path,
            "maxsize is immutable: the queue stores " +
                (q->info().maxsize ? std::to_string(*q->info().maxsize) : std::string("no limit")) +
                ", not " + std::to_string(*maxsize) + "; omit it to use the stored value");
    return q;
}

bool Queue::readOnly() const noexcept {
    return m_opts.readOnly || info().formatReadOnly();
}

void Queue::requireWritable(const char* what) const {
    if (m_opts.readOnly)
        throw ReadOnly(m_path, std::string("opened read-only: ") + what +
                                   " refused; turn off read-only mode to change the queue");
    if (info().formatReadOnly())
        throw ReadOnly(m_path, std::string(what) + " refused: " + info().readOnlyReason);
}

std::string Queue::fileChange() const {
    struct stat st {};
    if (::stat(m_path.c_str(), &st) != 0)
        return errno == ENOENT ? std::string("was deleted or moved since it was opened")
                               : std::string("cannot be checked: ") + std::strerror(errno);
    if (static_cast<std::uint64_t>(st.st_dev) != m_identity.device ||
        static_cast<std::uint64_t>(st.st_ino) != m_identity.inode)
        return "was replaced by another file since it was opened";
    return {};
}

void Queue::requireSameFile() const {
    if (std::string what = fileChange(); !what.empty())
        throw FileChanged(m_path, what + "; nothing was changed. Reopen it to act on what the "
                                         "path names now");
}

Connection& Queue::reader() {
    if (inOwnTransaction())
        return *m_writer;
    std::lock_guard lock(m_readersMutex);
    auto& c = m_readers[std::this_thread::get_id()];
    if (!c)
        c = std::make_unique<Connection>(m_path, Connection::Mode::ReadOnly, m_opts.busyTimeoutMs);
    return *c;
}

Connection& Queue::writer() {
    // Called with m_writeMutex held.
    if (!m_writer)
        m_writer =
            std::make_unique<Connection>(m_path, Connection::Mode::ReadWrite, m_opts.busyTimeoutMs);
    return *m_writer;
}

bool Queue::inOwnTransaction() const {
    // m_txOwner is only written under m_writeMutex by the owner itself, so a
    // thread can only ever see its own id there while it owns the transaction.
    return m_txDepth > 0 && m_txOwner == std::this_thread::get_id();
}

template <class F> auto Queue::write(bool immediate, F&& f) {
    std::lock_guard lock(m_writeMutex);
    Connection& w = writer();
    // The library calls (put, pop, done, ...) are a worker's hot path and
    // behave as litequeue does; operator writes (apply, undo, vacuum,
    // upgrade, a TransactionGuard) check the file's identity instead.
    if (inOwnTransaction() || !immediate)
        return f(w);
    Transaction tx(w, Transaction::Kind::Immediate);
    if constexpr (std::is_void_v<decltype(f(w))>) {
        f(w);
        tx.commit();
    } else {
        auto r = f(w);
        tx.commit();
        return r;
    }
}

// ---- time units --------------------------------------------------------------

std::optional<TimeNs> Queue::timeAt(Statement& st, int col) const {
    switch (st.columnType(col)) {
    case SQLITE_INTEGER: {
        const std::int64_t v = st.int64(col);
        if (info().timeUnit == TimeUnit::Nanoseconds)
            return v;
        if (v > INT64_MAX / kNsPerSecond || v < INT64_MIN / kNsPerSecond)
            return std::nullopt;
        return v * kNsPerSecond;
    }
    case SQLITE_FLOAT: {
        const double v = st.real(col) * (info().timeUnit == TimeUnit::Seconds ? 1e9 : 1.0);
        if (!std::isfinite(v) || v > 9.2e18 || v < -9.2e18)
            return std::nullopt;
        return static_cast<TimeNs>(std::llround(v));
    }
    default:
        return std::nullopt; // NULL, or TEXT/BLOB in a damaged file
    }
}

std::variant<std::int64_t, double, std::string> Queue::timeValue(TimeNs t) const {
    if (info().timeUnit == TimeUnit::Seconds)
        return static_cast<double>(t) / 1e9;
    return t;
}

std::variant<std::int64_t, double, std::string> Queue::durationValue(TimeNs d) const {
    return timeValue(d);
}

void Queue::bindTime(Statement& st, int i, TimeNs t) const {
    if (info().timeUnit == TimeUnit::Seconds)
        st.bind(i, static_cast<double>(t) / 1e9);
    else
        st.bind(i, t);
}

void Queue::classify(Message& m, TimeNs now) const {
    if (isJobs()) {
        if (m.lockedUntil && *m.lockedUntil >= now)
            m.state = State::Leased;
        else if (m.runAt && *m.runAt > now)
            m.state = State::Scheduled;
        else if (m.lockedUntil)
            m.state = State::Expired;
        else
            m.state = State::Ready;
        m.token = m.attempts;
        return;
    }
    m.state =
        (m.rawStatus >= 0 && m.rawStatus <= 3) ? static_cast<State>(m.rawStatus) : State::Unknown;
}

Message Queue::readRow(Statement& st, TimeNs now) const {
    Message m;
    m.rowid = st.int64(0);
    m.data = st.text(1);
    m.dataIsBlob = st.columnType(1) == SQLITE_BLOB;
    m.messageId = st.text(2);
    m.rawStatus = st.columnType(3) == SQLITE_INTEGER ? st.int64(3) : -1;
    m.inTime = timeAt(st, 4);
    m.lockTime = timeAt(st, 5);
    m.doneTime = timeAt(st, 6);
    m.idempotencyKey = st.optText(7);
    if (isJobs()) {
        m.attempts = st.int64(8);
        m.runAt = timeAt(st, 9);
        m.lockedUntil = timeAt(st, 10);
    } else {
        m.claimId = st.int64(8);
        m.token = info().hasClaimId ? m.claimId : (st.isNull(5) ? 0 : st.int64(5));
    }
    classify(m, now);
    return m;
}

// ---- litequeue API -------------------------------------------------------------

Message Queue::insertOne(Connection& c, const PutItem& item, TimeNs now, bool* inserted) {
    if (inserted)
        *inserted = false;
    const Sql& s = sql();
    if (item.idempotencyKey) {
        if (!info().hasIdempotencyKey)
            throw Unsupported(m_path, "idempotency keys need a litequeue 0.13+ file; upgrade it "
                                      "first");
        auto st = c.cached(s.byKey);
        st->bind(1, std::string_view(*item.idempotencyKey));
        if (st->step()) {
            Message existing = readRow(*st, now);
            if (existing.data == item.data)
                return existing;
            throw IdempotencyConflict(m_path, "idempotency key '" + *item.idempotencyKey +
                                                  "' is already stored (message " +
                                                  existing.messageId + ") with other data");
        }
    }
    Message m;
    m.data = item.data;
    m.idempotencyKey = item.idempotencyKey;
    auto st = c.cached(s.insert);
    if (isJobs()) {
        static thread_local std::uint64_t x =
            std::hash<std::thread::id>()(std::this_thread::get_id()) ^
            static_cast<std::uint64_t>(now);
        char buf[33];
        for (int half = 0; half < 2; ++half) {
            x += 0x9e3779b97f4a7c15ULL;
            std::uint64_t z = x;
            z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
            z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
            z ^= z >> 31;
            for (int i = 0; i < 16; ++i)
                buf[half * 16 + i] = "0123456789abcdef"[(z >> (60 - 4 * i)) & 0xf];
        }
        buf[32] = 0;
        m.messageId = buf;
        m.runAt = now;
        st->bind(1, std::string_view(m.messageId)).bind(2, std::string_view(m.data));
        bindTime(*st, 3, now);
    } else {
        m.messageId = newMessageId(now);
        m.inTime = now;
        st->bind(1, std::string_view(m.data)).bind(2, std::string_view(m.messageId));
        bindTime(*st, 3, now);
        if (info().hasClaimId)
            st->bind(4, m.idempotencyKey);
    }
    st->exec();
    if (inserted)
        *inserted = true;
    m.rowid = c.lastInsertRowid();
    classify(m, now);
    return m;
}

Message Queue::put(std::string_view data, std::optional<std::string> idempotencyKey,
                   bool* inserted) {
    requireWritable("put");
    const TimeNs t = now();
    PutItem item{std::string(data), std::move(idempotencyKey)};
    return write(item.idempotencyKey.has_value(),
                 [&](Connection& c) { return insertOne(c, item, t, inserted); });
}

std::vector<Message> Queue::putMany(const std::vector<PutItem>& items) {
    requireWritable("put_many");
    const TimeNs t = now();
    return write(true, [&](Connection& c) {
        std::vector<Message> out;
        out.reserve(items.size());
        for (const auto& item : items)
            out.push_back(insertOne(c, item, t));
        return out;
    });
}

std::optional<Message> Queue::pop() {
    requireWritable("pop");
    const TimeNs t = now();
    return write(true, [&](Connection& c) -> std::optional<Message> {
        auto st = c.cached(sql().pop);
        bindTime(*st, 1, t);
        if (isJobs())
            bindTime(*st, 2, t + 30 * kNsPerSecond);
        if (!st->step())
            return std::nullopt;
        return readRow(*st, t);
    });
}

bool Queue::transition(std::string_view id, std::int64_t claim, int toStatus, bool setDone) {
    const TimeNs t = now();
    const std::string tq = quoteIdent(info().table);
    return write(false, [&](Connection& c) {
        if (isJobs()) {
            // done() on a jobs-lease queue is the seed's finish(); retry() its
            // retry_later(0). Both guarded by attempts.
            if (toStatus == 2) {
                auto st = c.cached("DELETE FROM " + tq + " WHERE id = ?1 AND attempts = ?2");
                st->bind(1, id).bind(2, claim).exec();
            } else if (toStatus == 0) {
                auto st = c.cached("UPDATE " + tq +
                                   " SET locked_until = NULL, run_at = ?3 WHERE id = ?1 AND "
                                   "attempts = ?2");
                st->bind(1, id).bind(2, claim);
                bindTime(*st, 3, t);
                st->exec();
            } else {
                throw Unsupported(m_path, "jobs-lease queues have no FAILED state");
            }
            return c.changes() == 1;
        }
        const std::string sql =
            "UPDATE " + tq + " SET status = ?1, done_time = " + (setDone ? "?4" : "NULL") +
            " WHERE message_id = ?2 AND status = 1 AND " + this->sql().tokenCol + " = ?3";
        auto st = c.cached(sql);
        st->bind(1, toStatus).bind(2, id).bind(3, claim);
        if (setDone)
            bindTime(*st, 4, t);
        st->exec();
        return c.changes() == 1;
    });
}

bool Queue::done(std::string_view messageId, std::int64_t claim) {
    requireWritable("done");
    return transition(messageId, claim, 2, true);
}

bool Queue::markFailed(std::string_view messageId, std::int64_t claim) {
    requireWritable("mark_failed");
    return transition(messageId, claim, 3, true);
}

bool Queue::retry(std::string_view messageId, std::int64_t claim) {
    requireWritable("retry");
    return transition(messageId, claim, 0, false);
}

std::int64_t Queue::retryExpired(double thresholdSeconds) {
    requireWritable("retry_expired");
    const TimeNs cutoff = now() - secondsToNs(thresholdSeconds);
    const std::string tq = quoteIdent(info().table);
    return write(false, [&](Connection& c) {
        const std::string sql =
            isJobs() ? "UPDATE " + tq + " SET locked_until = NULL WHERE locked_until < ?1"
                     : "UPDATE " + tq +
                           " SET status = 0, done_time = NULL WHERE status = 1 AND lock_time < ?1";
        auto st = c.cached(sql);
        bindTime(*st, 1, cutoff);
        st->exec();
        return c.changes();
    });
}

std::int64_t Queue::prune(bool includeFailed, std::optional<double> olderThanSeconds) {
    requireWritable("prune");
    if (isJobs())
        return 0;
    const TimeNs t = now();
    const std::string tq = quoteIdent(info().table);
    return write(false, [&](Connection& c) {
        std::string sql =
            "DELETE FROM " + tq + " WHERE status IN (2" + std::string(includeFailed ? ", 3)" : ")");
        if (olderThanSeconds)
            sql += " AND done_time < ?1";
        auto st = c.cached(sql);
        if (olderThanSeconds)
            bindTime(*st, 1, t - secondsToNs(*olderThanSeconds));
        st->exec();
        return c.changes();
    });
}

std::pair<std::int64_t, std::int64_t> Queue::vacuum() {
    requireWritable("vacuum");
    const std::int64_t before = fileSize();
    std::lock_guard lock(m_writeMutex);
    if (inOwnTransaction())
        throw Error(ErrorKind::InvalidArgument, m_path, "vacuum cannot run inside a transaction");
    Connection& w = writer();
    requireSameFile();
    w.exec("VACUUM");
    // Fold the rewritten pages back into the main file so the size is real.
    sqlite3_wal_checkpoint_v2(w.handle(), nullptr, SQLITE_CHECKPOINT_TRUNCATE, nullptr, nullptr);
    return {before, fileSize()};
}

std::optional<Message> Queue::getOn(Connection& c, std::string_view messageId) {
    auto st = c.cached(sql().byId);
    st->bind(1, messageId);
    if (!st->step())
        return std::nullopt;
    return readRow(*st, now());
}

std::optional<Message> Queue::get(std::string_view messageId) {
    return getOn(reader(), messageId);
}

std::optional<Message> Queue::peek() {
    const TimeNs t = now();
    auto st = reader().cached(sql().peek);
    if (isJobs())
        bindTime(*st, 1, t);
    if (!st->step())
        return std::nullopt;
    return readRow(*st, t);
}

std::vector<Message> Queue::listLocked(double thresholdSeconds) {
    Filter f;
    f.states = {isJobs() ? State::Leased : State::Locked};
    if (!isJobs()) {
        f.stuckOnly = true;
        f.stuckAfterNs = secondsToNs(thresholdSeconds);
    }
    return list(f, {}, 0, -1);
}

std::vector<Message> Queue::listFailed() {
    Filter f;
    f.states = {State::Failed};
    return list(f, {}, 0, -1);
}

std::int64_t Queue::readyCount() {
    return counts().ready;
}
std::int64_t Queue::lockedCount() {
    return counts().locked;
}
std::int64_t Queue::doneCount() {
    return counts().done;
}
std::int64_t Queue::failedCount() {
    return counts().failed;
}
std::int64_t Queue::activeCount() {
    return counts().active();
}
std::int64_t Queue::storedCount() {
    return counts().stored;
}

bool Queue::full() {
    return info().maxsize && readyCount() >= *info().maxsize;
}

void Queue::upgrade() {
    requireSameFile(); // even the no-op: the path must still name the opened file
    if (info().format == Format::Litequeue014)
        return;
    requireWritable("upgrade");
    if (info().format != Format::LitequeueLegacy && info().format != Format::Litequeue013)
        throw Unsupported(m_path,
                          std::string("cannot upgrade a ") + formatId(info().format) + " file");
    std::lock_guard lock(m_writeMutex);
    {
        write(true, [&](Connection& c) {
            requireSameFile();
            const std::string tq = quoteIdent(info().table);
            if (info().format == Format::LitequeueLegacy) {
                if (!info().hasIdempotencyKey)
                    c.exec("ALTER TABLE " + tq + " ADD COLUMN idempotency_key TEXT");
                if (!info().hasClaimId)
                    c.exec("ALTER TABLE " + tq + " ADD COLUMN claim_id INTEGER NOT NULL DEFAULT 0");
                // Their workers cannot hold a claim id: give the messages back.
                c.exec("UPDATE " + tq + " SET status = 0 WHERE status = 1");
            } else {
                c.exec("UPDATE " + tq +
                       " SET in_time = CAST(round(in_time * 1000000000.0) AS INTEGER), "
                       "lock_time = CAST(round(lock_time * 1000000000.0) AS INTEGER), "
                       "done_time = CAST(round(done_time * 1000000000.0) AS INTEGER)");
            }
            c.exec("CREATE UNIQUE INDEX IF NOT EXISTS \"Queue_idempotency_key_unique_idx\" ON " +
                   tq + "(idempotency_key) WHERE idempotency_key IS NOT NULL");
            c.exec("PRAGMA user_version = 3");
        });
        // Other threads' read connections stay: they may be in use, and
        // SQLite re-prepares their statements for the new schema itself.
        publish(detectFormat(writer(), m_opts.table));
    }
}

// ---- transactions ------------------------------------------------------------

Queue::TransactionGuard::TransactionGuard(Queue& q)
    : m_q(q) {
    q.requireWritable("transaction");
    q.m_writeMutex.lock();
    try {
        Connection& w = q.writer();
        if (q.m_txDepth == 0) {
            w.cached("BEGIN IMMEDIATE")->exec();
            try {
                q.requireSameFile();
            } catch (...) {
                sqlite3_exec(w.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
                throw;
            }
            q.m_txOwner = std::this_thread::get_id();
        } else {
            w.exec("SAVEPOINT lq_tx_" + std::to_string(q.m_txDepth + 1));
        }
        m_depth = ++q.m_txDepth;
    } catch (...) {
        q.m_writeMutex.unlock();
        throw;
    }
}

Queue::TransactionGuard::~TransactionGuard() {
    if (m_released)
        return;
    if (!m_done && m_q.m_writer && m_q.m_writer->inTransaction()) {
        sqlite3* db = m_q.m_writer->handle();
        if (m_depth == 1) {
            sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
        } else {
            // Undo this guard's own work only; the outer guard decides the rest.
            const std::string sp = "lq_tx_" + std::to_string(m_depth);
            sqlite3_exec(db, ("ROLLBACK TO " + sp).c_str(), nullptr, nullptr, nullptr);
            sqlite3_exec(db, ("RELEASE " + sp).c_str(), nullptr, nullptr, nullptr);
        }
    }
    release();
}

void Queue::TransactionGuard::release() {
    m_released = true;
    if (--m_q.m_txDepth == 0)
        m_q.m_txOwner = std::thread::id();
    m_q.m_writeMutex.unlock();
}

void Queue::TransactionGuard::commit() {
    if (m_done)
        return;
    // The guard ends its part at commit, not at its destruction, so
    // `tx = q->transaction()` after `tx->commit()` begins a fresh
    // transaction instead of nesting in a finished one.
    if (m_depth == 1)
        m_q.writer().cached("COMMIT")->exec();
    else
        m_q.writer().exec("RELEASE lq_tx_" + std::to_string(m_depth));
    m_done = true;
    release();
}

std::unique_ptr<Queue::TransactionGuard> Queue::transaction() {
    return std::make_unique<TransactionGuard>(*this);
}

// ---- files -------------------------------------------------------------------

std::int64_t Queue::fileSize() const {
    std::error_code ec;
    const auto s = fs::file_size(m_path, ec);
    return ec ? 0 : static_cast<std::int64_t>(s);
}

std::int64_t Queue::walSize() const {
    std::error_code ec;
    const auto s = fs::file_size(m_path + "-wal", ec);
    return ec ? 0 : static_cast<std::int64_t>(s);
}

std::int64_t Queue::dataVersion() {
    return reader().pragmaInt("data_version");
}

} // namespace lq::core
