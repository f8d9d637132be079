// SPDX-License-Identifier: MIT
#include "queue.h"

#include "formats/litequeue.h"
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

Queue::Impl::Impl(std::string p, OpenOptions o)
    : path(std::move(p))
    , opts(std::move(o))
    , clock(opts.clock ? opts.clock : systemClock()) {}

Queue::Impl::~Impl() {
    std::lock_guard lock(writeMutex);
    writerConn.reset();
    std::lock_guard rl(readersMutex);
    readers.clear();
}

Queue::Queue(std::string path, OpenOptions opts)
    : d(std::make_unique<Impl>(std::move(path), std::move(opts))) {}

Queue::~Queue() = default;

const std::string& Queue::path() const noexcept {
    return d->path;
}

const FormatInfo& Queue::info() const noexcept {
    return d->info();
}

FileStamp Queue::identity() const noexcept {
    return d->identity;
}

TimeNs Queue::Impl::now() const {
    std::lock_guard lock(clockMutex);
    return clock();
}

TimeNs Queue::now() const {
    return d->now();
}

void Queue::setClock(Clock c) {
    std::lock_guard lock(d->clockMutex);
    d->clock = c ? std::move(c) : systemClock();
}

std::unique_ptr<Queue> Queue::open(const std::string& path, OpenOptions opts) {
    checkPathForOpen(path);
    std::unique_ptr<Queue> q(new Queue(path, std::move(opts)));
    q->d->identity = fileStamp(path);
    q->d->publish(detectFormat(q->d->reader(), q->d->opts.table));
    return q;
}

void Queue::Impl::publish(FormatInfo fi) {
    fi.settings = opts.settings;
    auto s = std::make_unique<Schema>();
    s->driver = QueueFormat::of(fi).driver(fi, path);
    s->info = std::move(fi);
    std::lock_guard lock(schemaMutex);
    schema.store(s.get(), std::memory_order_release);
    schemas.push_back(std::move(s));
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
            if (empty)
                LitequeueFormat::createSchema(c, maxsize);
            tx.commit();
        }
        c.exec("PRAGMA journal_mode = WAL");
    }
    auto q = open(path, std::move(opts));
    if (QueueFormat::of(q->info()).upgradeState() != QueueFormat::UpgradeState::Current)
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
    return d->opts.readOnly || info().formatReadOnly();
}

void Queue::Impl::requireWritable(const char* what) const {
    if (opts.readOnly)
        throw ReadOnly(path, std::string("opened read-only: ") + what +
                                 " refused; turn off read-only mode to change the queue");
    if (info().formatReadOnly())
        throw ReadOnly(path, std::string(what) + " refused: " + info().readOnlyReason);
}

std::string Queue::Impl::fileChange() const {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        return errno == ENOENT ? std::string("was deleted or moved since it was opened")
                               : std::string("cannot be checked: ") + std::strerror(errno);
    if (static_cast<std::uint64_t>(st.st_dev) != identity.device ||
        static_cast<std::uint64_t>(st.st_ino) != identity.inode)
        return "was replaced by another file since it was opened";
    return {};
}

std::string Queue::fileChange() const {
    return d->fileChange();
}

void Queue::Impl::requireSameFile() const {
    if (std::string what = fileChange(); !what.empty())
        throw FileChanged(path, what + "; nothing was changed. Reopen it to act on what the "
                                       "path names now");
}

Connection& Queue::Impl::reader() {
    if (inOwnTransaction())
        return *writerConn;
    std::lock_guard lock(readersMutex);
    auto& c = readers[std::this_thread::get_id()];
    if (!c)
        c = std::make_unique<Connection>(path, Connection::Mode::ReadOnly, opts.busyTimeoutMs);
    return *c;
}

Connection& Queue::Impl::writer() {
    // Called with writeMutex held.
    if (!writerConn)
        writerConn =
            std::make_unique<Connection>(path, Connection::Mode::ReadWrite, opts.busyTimeoutMs);
    return *writerConn;
}

bool Queue::Impl::inOwnTransaction() const {
    // txOwner is only written under writeMutex by the owner itself, so a
    // thread can only ever see its own id there while it owns the transaction.
    return txDepth > 0 && txOwner == std::this_thread::get_id();
}

// ---- the library API -----------------------------------------------------------

Message Queue::put(std::string_view data, std::optional<std::string> idempotencyKey,
                   bool* inserted) {
    d->requireWritable("put");
    const TimeNs t = now();
    if (inserted)
        *inserted = false;
    const std::string bytes(data);
    return d->write(idempotencyKey.has_value(), [&](Connection& c) {
        return d->driver().insert(c, bytes, idempotencyKey, t, inserted);
    });
}

std::vector<Message> Queue::putMany(const std::vector<PutItem>& items) {
    d->requireWritable("put_many");
    const TimeNs t = now();
    return d->write(true, [&](Connection& c) {
        std::vector<Message> out;
        out.reserve(items.size());
        for (const auto& item : items)
            out.push_back(d->driver().insert(c, item.data, item.idempotencyKey, t, nullptr));
        return out;
    });
}

std::optional<Message> Queue::pop() {
    d->requireWritable("pop");
    const TimeNs t = now();
    return d->write(true, [&](Connection& c) { return d->driver().pop(c, t); });
}

bool Queue::done(std::string_view messageId, std::int64_t claim) {
    d->requireWritable("done");
    const TimeNs t = now();
    return d->write(
        false, [&](Connection& c) { return d->driver().transition(c, messageId, claim, 2, t); });
}

bool Queue::markFailed(std::string_view messageId, std::int64_t claim) {
    d->requireWritable("mark_failed");
    const TimeNs t = now();
    return d->write(
        false, [&](Connection& c) { return d->driver().transition(c, messageId, claim, 3, t); });
}

bool Queue::retry(std::string_view messageId, std::int64_t claim) {
    d->requireWritable("retry");
    const TimeNs t = now();
    return d->write(
        false, [&](Connection& c) { return d->driver().transition(c, messageId, claim, 0, t); });
}

std::int64_t Queue::retryExpired(std::chrono::nanoseconds threshold) {
    d->requireWritable("retry_expired");
    const TimeNs cutoff = now() - threshold.count();
    return d->write(false, [&](Connection& c) { return d->driver().retryExpired(c, cutoff); });
}

std::int64_t Queue::prune(bool includeFailed, std::optional<std::chrono::nanoseconds> olderThan) {
    d->requireWritable("prune");
    std::optional<TimeNs> cutoff;
    if (olderThan)
        cutoff = now() - olderThan->count();
    return d->write(false,
                    [&](Connection& c) { return d->driver().prune(c, includeFailed, cutoff); });
}

std::pair<std::int64_t, std::int64_t> Queue::vacuum() {
    d->requireWritable("vacuum");
    const std::int64_t before = fileSize();
    std::lock_guard lock(d->writeMutex);
    if (d->inOwnTransaction())
        throw Error(ErrorKind::InvalidArgument, d->path, "vacuum cannot run inside a transaction");
    Connection& w = d->writer();
    d->requireSameFile();
    w.exec("VACUUM");
    // Fold the rewritten pages back into the main file so the size is real.
    sqlite3_wal_checkpoint_v2(w.handle(), nullptr, SQLITE_CHECKPOINT_TRUNCATE, nullptr, nullptr);
    return {before, fileSize()};
}

std::optional<Message> Queue::Impl::getOn(Connection& c, std::string_view messageId) const {
    const FormatDriver& drv = driver();
    auto st = c.cached("SELECT " + drv.columns() + " FROM " + drv.source() + " WHERE " +
                       drv.idColumn() + " = ?1");
    st->bind(1, messageId);
    if (!st->step())
        return std::nullopt;
    return drv.readRow(*st, now());
}

std::optional<Message> Queue::get(std::string_view messageId) {
    const auto turn = d->readTurn();
    return d->getOn(d->reader(), messageId);
}

std::string Queue::refusal(Action a, const Message& m) const {
    return d->driver().refusal(a, m, now());
}

std::optional<Message> Queue::peek() {
    const auto turn = d->readTurn();
    return d->driver().peek(d->reader(), now());
}

std::vector<Message> Queue::listLocked(std::chrono::nanoseconds threshold) {
    return list(d->driver().lockedFilter(threshold.count()), {}, 0, -1);
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

std::vector<std::string> Queue::queueNames() {
    const auto turn = d->readTurn();
    return d->driver().queueNames(d->reader());
}

ProcessList Queue::processes(std::optional<TimeNs> now) {
    const auto turn = d->readTurn();
    return d->driver().processes(d->reader(), now.value_or(this->now()));
}

RecurringList Queue::recurringTasks(std::optional<TimeNs> now, int tzOffset) {
    const auto turn = d->readTurn();
    return d->driver().recurringTasks(d->reader(), now.value_or(this->now()), tzOffset);
}

std::vector<PausedQueue> Queue::pausedQueues() {
    const auto turn = d->readTurn();
    return d->driver().pausedQueues(d->reader());
}

void Queue::upgrade() {
    d->requireSameFile(); // even the no-op: the path must still name the opened file
    const QueueFormat& format = QueueFormat::of(info());
    if (format.upgradeState() == QueueFormat::UpgradeState::Current)
        return;
    d->requireWritable("upgrade");
    if (format.upgradeState() != QueueFormat::UpgradeState::Offered)
        throw Unsupported(d->path, std::string("cannot upgrade a ") + format.id() + " file");
    std::lock_guard lock(d->writeMutex);
    d->write(true, [&](Connection& c) {
        d->requireSameFile();
        d->driver().upgrade(c);
    });
    // Other threads' read connections stay: they may be in use, and
    // SQLite re-prepares their statements for the new schema itself.
    d->publish(detectFormat(d->writer(), d->opts.table));
}

// ---- transactions ------------------------------------------------------------

Queue::TransactionGuard::TransactionGuard(Queue& q)
    : m_q(q) {
    q.d->requireWritable("transaction");
    q.d->writeMutex.lock();
    try {
        Connection& w = q.d->writer();
        if (q.d->txDepth == 0) {
            w.cached("BEGIN IMMEDIATE")->exec();
            try {
                q.d->requireSameFile();
            } catch (...) {
                sqlite3_exec(w.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
                throw;
            }
            q.d->txOwner = std::this_thread::get_id();
        } else {
            w.exec("SAVEPOINT lq_tx_" + std::to_string(q.d->txDepth + 1));
        }
        m_depth = ++q.d->txDepth;
    } catch (...) {
        q.d->writeMutex.unlock();
        throw;
    }
}

Queue::TransactionGuard::~TransactionGuard() {
    if (m_released)
        return;
    if (!m_done && m_q.d->writerConn && m_q.d->writerConn->inTransaction()) {
        sqlite3* db = m_q.d->writerConn->handle();
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
    if (--m_q.d->txDepth == 0)
        m_q.d->txOwner = std::thread::id();
    m_q.d->writeMutex.unlock();
}

void Queue::TransactionGuard::commit() {
    if (m_done)
        return;
    // The guard ends its part at commit, not at its destruction, so
    // `tx = q->transaction()` after `tx->commit()` begins a fresh
    // transaction instead of nesting in a finished one.
    if (m_depth == 1)
        m_q.d->writer().cached("COMMIT")->exec();
    else
        m_q.d->writer().exec("RELEASE lq_tx_" + std::to_string(m_depth));
    m_done = true;
    release();
}

std::unique_ptr<Queue::TransactionGuard> Queue::transaction() {
    return std::make_unique<TransactionGuard>(*this);
}

// ---- files -------------------------------------------------------------------

std::int64_t Queue::fileSize() const {
    std::error_code ec;
    const auto s = fs::file_size(d->path, ec);
    return ec ? 0 : static_cast<std::int64_t>(s);
}

std::int64_t Queue::walSize() const {
    std::error_code ec;
    const auto s = fs::file_size(d->path + "-wal", ec);
    return ec ? 0 : static_cast<std::int64_t>(s);
}

std::int64_t Queue::dataVersion() {
    return d->reader().pragmaInt("data_version");
}

} // namespace lq::core
