// SPDX-License-Identifier: MIT
#pragma once

// Private to lqcore: Queue's internals, shared by queue.cpp, query.cpp and
// actions.cpp. Everything format-specific is behind `driver()`.

#include "chunks.h"
#include "formats/driver.h"
#include "queue.h"
#include "sqlite.h"
#include "timingcache.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

namespace lq::core {

struct Queue::Impl {
    Impl(std::string path, OpenOptions opts);
    ~Impl();

    std::string path;
    FileStamp identity; ///< the file as opened
    OpenOptions opts;
    Clock clock;
    mutable std::mutex clockMutex;

    // The schema (format facts and the driver built from them) is published
    // atomically and every version is kept until the Queue goes: upgrade()
    // swaps it while other threads may still be reading the previous one.
    struct Schema {
        FormatInfo info;
        std::unique_ptr<FormatDriver> driver;
    };
    std::mutex schemaMutex;
    std::vector<std::unique_ptr<Schema>> schemas;
    std::atomic<Schema*> schema{nullptr};

    mutable std::recursive_mutex writeMutex;
    std::unique_ptr<Connection> writerConn;
    int txDepth = 0;
    std::thread::id txOwner;

    mutable std::mutex readersMutex;
    std::unordered_map<std::thread::id, std::unique_ptr<Connection>> readers;

    // ---- helpers -------------------------------------------------------------
    const FormatInfo& info() const noexcept { return schema.load(std::memory_order_acquire)->info; }
    const FormatDriver& driver() const noexcept {
        return *schema.load(std::memory_order_acquire)->driver;
    }
    void publish(FormatInfo info);
    TimeNs now() const;
    Connection& reader();
    Connection& writer(); ///< with writeMutex held
    bool inOwnTransaction() const;
    void requireWritable(const char* what) const;
    void requireSameFile() const;
    std::string fileChange() const;
    /// Closes the calling thread's read connection (threads that end).
    void dropThreadReader();

    template <class F> auto write(bool immediate, F&& f) {
        std::lock_guard lock(writeMutex);
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

    // ---- query ---------------------------------------------------------------
    struct Where {
        std::string sql; ///< " WHERE ..." or ""
        Binds binds;
    };
    Where buildWhere(const Filter& f) const;
    /// The SQL of Filter::where on this format's JSON fields (query_json.cpp).
    std::string jsonCondition(const std::string& where, Binds& binds) const;
    std::string orderBy(const Sort& s) const;
    std::optional<Message> getOn(Connection& c, std::string_view messageId) const;
    /// Rows per chunk of a long read in this file's journal mode
    /// (opts.scanChunkRows, or opts.walChunkRows in WAL mode); 0: one read.
    std::int64_t chunkRows() const;
    /// A long read split into ranges of driver().scanKey(), each its own
    /// read transaction: the key's bounds and the first range's width (keys
    /// for about chunkRows() rows; ChunkPace widens the next ones where rows
    /// read fast).
    struct ChunkPlan {
        std::pair<std::int64_t, std::int64_t> keys;
        std::uint64_t width = 0;
    };
    /// nullopt when the file is read in one (a small table, inside our own
    /// transaction, or no scan key).
    std::optional<ChunkPlan> scanChunks();
    /// The pace of a chunked read on this thread's reader, from `width`
    /// keys or rows (chunks.h; opts.chunkBudgetUs).
    ChunkPace chunkPace(std::uint64_t width);
    /// A short read's turn at the file, held until the pointer is dropped:
    /// in WAL mode it takes turns with the chunked reads of the file and
    /// starts away from the writers' checkpoint (ChunkPace). A read of a
    /// millisecond (the rows on screen, the first page) open when a writer's
    /// commit ran its checkpoint kept the WAL from restarting as a chunk
    /// would. None on a rollback-journal file, or inside our own
    /// transaction (a wait there would hold the write lock).
    std::unique_ptr<ChunkPace> readTurn();
    /// `w` narrowed to `key` in [range.first, range.second] (inclusive: a
    /// range may end at the largest rowid).
    static Where inRange(Where w, const std::string& key,
                         std::pair<std::int64_t, std::int64_t> range);
    /// Min and max of driver().scanKey() (arm by arm for a compound source,
    /// each by its index); nullopt when empty.
    std::optional<std::pair<std::int64_t, std::int64_t>> scanBounds();
    /// The most rows the file can hold (its pages at 4 bytes a row): bounds
    /// what a key range stands for when keys are sparse (pruned history, or a
    /// hostile file with rowids 1 and 2^62).
    std::int64_t rowsAtMost();
    /// Keys per range for reads of about `rows` rows each over [lo, hi]:
    /// `rows` where keys are dense, wider where the range holds more keys than
    /// the file can hold rows, so that no more ranges are made than the rows
    /// need. Never overflows.
    std::uint64_t keysPerRange(std::int64_t lo, std::int64_t hi, std::int64_t rows);
    TimingColumns timingRange(const Filter& f,
                              std::optional<std::pair<std::int64_t, std::int64_t>> rows,
                              std::int64_t capacity = 0, bool withQueue = false);
    /// One row of a timing scan into `cols`: the format's timingRow(), then
    /// the row's named queue (its last column) with `queueColumn`.
    void takeTimingRow(const Statement& st, TimeNs t, bool queueColumn, TimingColumns& cols) const;
    /// The unfiltered timing scan of `keys` into `cols`, range by range on a
    /// grid of keys that stays put from one scan to the next, each range's
    /// print (FormatDriver::rangePrint) and rows in one read transaction; a
    /// range whose print is the one kept comes from timingCache. Returns
    /// the keys it left to read the other way (nullopt: none): all of them
    /// where the format has no print, the rest from a range the format did
    /// not read its own way (rangeTiming() false).
    std::optional<std::pair<std::int64_t, std::int64_t>>
    timingByPrint(std::pair<std::int64_t, std::int64_t> keys, bool withQueue, TimeNs t,
                  TimingColumns& cols);
    TimingCache timingCache;
    /// A timing scan ran before: only then are prints read. A one-off scan
    /// (`lqctl stats`, a window's first figures) would pay for the prints
    /// (a fifth more on a million Solid Queue jobs) and never use them.
    std::atomic<bool> timingScanned{false};

    // ---- operator --------------------------------------------------------------
    void applyChunk(Connection& c, Action a, const Target* begin, const Target* end,
                    const ActionOptions& o, TimeNs now, ActionResult& r);
    void undoChunk(Connection& c, Action a, const AppliedRow* begin, const AppliedRow* end,
                   ActionResult& r);
    void undoRow(Connection& c, Action a, const AppliedRow& row, TimeNs t, ActionResult& r);
    template <class Item, class ChunkFn>
    ActionResult runChunks(Action a, const std::vector<Item>& items, const ActionOptions& o,
                           ChunkFn&& chunkFn);
};

} // namespace lq::core
