// SPDX-License-Identifier: MIT
#pragma once

// lq::core::FormatDriver — the SQL of one queue format on one open file.
// Queue (queue.cpp, query.cpp, actions.cpp) is generic code that asks its
// driver for the table source, the columns, the state conditions, the order
// keys, the counts and, per operator action, the guarded per-row SQL. Each
// format implements it in its own file under core/formats/, beside its
// QueueFormat (which says what the format offers) and its recogniser.
//
// Private to lqcore: the front ends never see a driver.

#include "../actions.h"
#include "../format.h"
#include "../message.h"
#include "../processes.h"
#include "../query.h"
#include "../recurring.h"
#include "../stats.h"
#include "../timefmt.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace lq::core {

class Connection;
class Statement;

using BindValue = std::variant<std::int64_t, double, std::string>;
using Binds = std::vector<BindValue>;

/// How a time column is stored.
enum class TimeEncoding {
    Ns,           ///< INTEGER nanoseconds
    Seconds,      ///< REAL (or INTEGER) seconds, written as REAL
    WholeSeconds, ///< INTEGER seconds, written as INTEGER (floor)
    Ms,           ///< INTEGER milliseconds
    /// TEXT UTC "YYYY-MM-DD HH:MM:SS[.f]" in its variants (ISO 'T' and 'Z',
    /// Go's " +0000 UTC"); compared through textTimeKey(column), bound as
    /// that key's text.
    Text,
};

/// SQL that turns a TEXT time column into a key that compares as text in
/// time order against encodeTime(t, TimeEncoding::Text) (UTC values).
std::string textTimeKey(const std::string& col);
/// `t` as a textTimeKey() value with all nine fraction digits: every
/// stored spelling of the instant `t` compares <= it (for "due by t").
std::string textTimeKeyCeil(TimeNs t);

/// A stored time in ns; nullopt for NULL, TEXT/BLOB or out of range.
std::optional<TimeNs> readTime(const Statement& st, int col, TimeEncoding e);
/// `t` as the column stores it.
BindValue encodeTime(TimeNs t, TimeEncoding e);
void bindTime(Statement& st, int i, TimeNs t, TimeEncoding e);
void bindOptTime(Statement& st, int i, const std::optional<TimeNs>& t, TimeEncoding e);
void bindValues(Statement& st, const Binds& binds, int first = 1);
/// A 63-bit hash of a text claim token (FNV-1a), so text tokens fit
/// Message::token and Target::token. Actions still compare the text itself
/// inside their transaction.
std::int64_t textTokenHash(std::string_view text) noexcept;

/// The ORDER BY expression of each sort key (core/query.h SortKey) in one
/// format's SQL: declared once per format as a table, read by
/// FormatDriver::orderKey(). A key the format does not store orders by
/// the expression that stands in for it (its arrival order, or NULL).
struct SortColumns {
    std::string arrival;
    std::string inTime; ///< also Age, reversed
    std::string lockTime;
    std::string doneTime;
    std::string wait;
    std::string processing;
    std::string claim;
    std::string status;
};

class FormatDriver {
public:
    FormatDriver(FormatInfo info, std::string path);
    virtual ~FormatDriver();
    FormatDriver(const FormatDriver&) = delete;
    FormatDriver& operator=(const FormatDriver&) = delete;

    const FormatInfo& info() const noexcept { return m_info; }
    const std::string& path() const noexcept { return m_path; }

    // ---- reading ------------------------------------------------------------
    /// What FROM reads: the quoted table, or a read-only subquery over
    /// several tables. It has a `rowid` column (stable, unique per row).
    virtual std::string source() const;
    /// What a whole scan reads (the timing columns, an ordering, a count)
    /// when the filter has no text search: the same rows with every column a
    /// filter other than search, a sort key or timingColumns() names. A
    /// compound source() computes all of its columns for every row; a format
    /// may leave out here what only search and the row view read (payloads).
    /// Default: source().
    virtual std::string scanSource() const { return source(); }
    /// scanSource() as its UNION ALL arms, each a SELECT with the same
    /// columns, so that a whole scan reads each table by itself: SQLite runs
    /// a compound subquery as a co-routine that copies every row of every
    /// column (a third of a timing scan of a Laravel file). Empty: one source.
    virtual const std::vector<std::string>& scanArms() const {
        static const std::vector<std::string> none;
        return none;
    }
    /// A source() that is a UNION ALL of tables, arm by arm, so that a page
    /// in arrival order and a row by rowid come from each table's own rowid
    /// (a compound subquery is scanned whole and computes every column).
    struct SourceArm {
        /// A SELECT with source()'s columns plus `arm_id`, its table's rowid.
        std::string sql;
        /// Its `rowid` is -arm_id: every row of it sorts before the others.
        bool negated = false;
    };
    /// Empty when source() is one table (or a join that SQLite flattens).
    virtual const std::vector<SourceArm>& sourceArms() const {
        static const std::vector<SourceArm> none;
        return none;
    }
    /// The column of source() whose ranges split a scan into short reads,
    /// each by an index (Queue chunks long reads on rollback-journal files):
    /// rowid for a single table; "" when no column does (a compound source
    /// whose arms cannot all take the range by index).
    virtual std::string scanKey() const { return "rowid"; }
    /// The select list readRow() reads.
    virtual std::string columns() const = 0;
    virtual Message readRow(const Statement& st, TimeNs now) const = 0;
    /// The message id as text, for WHERE id = ?1 (bound as text).
    virtual std::string idColumn() const = 0;
    /// The select list of targetsFor() and readTarget() (id and token).
    virtual std::string targetColumns() const = 0;
    virtual Target readTarget(const Statement& st) const = 0;

    // ---- filters, order, counts --------------------------------------------
    // A condition binds its values with plain `?`s, never numbered ones: a
    // sort of a compound repeats the filter in each of its arms.
    /// SQL for "in state s" at `now`, on raw (indexed) columns.
    virtual std::string stateCondition(State s, Binds& binds, TimeNs now) const = 0;
    /// SQL for "in the format's own state `name`" (Filter::extraStates); "0"
    /// for a name the format does not have.
    virtual std::string extraStateCondition(const std::string& name, Binds& binds,
                                            TimeNs now) const;
    /// SQL for "stuck": the format's own stuck rule, or LOCKED longer than
    /// stuckAfter when the format has none. "0" when nothing can be stuck.
    virtual std::string stuckCondition(Binds& binds, TimeNs now, TimeNs stuckAfter) const = 0;
    /// Columns a search looks in (LIKE).
    virtual std::vector<std::string> searchColumns() const = 0;
    /// A JSON field of a job, as a Filter::where condition names it
    /// (core/jsonwhere.h).
    struct JsonField {
        std::string name;         ///< the library's word ("args", "arguments")
        std::string sql;          ///< an expression over source() giving JSON text
        std::string prefix = "$"; ///< where the field starts inside it
    };
    /// The JSON fields a condition can look into; none by default (a
    /// payload that is not JSON).
    virtual std::vector<JsonField> jsonFields() const { return {}; }
    /// The named-queue column ("" when the format has no named queues).
    virtual std::string queueColumn() const { return {}; }
    /// The arrival (enqueue) time column and its encoding.
    virtual std::string arrivalColumn() const = 0;
    virtual TimeEncoding arrivalEncoding() const = 0;
    /// The finish time column ("" when not stored) and its encoding.
    virtual std::string doneColumn() const { return {}; }
    virtual TimeEncoding doneEncoding() const { return arrivalEncoding(); }
    /// The column of a row's own expiry (backlite's expires_at: its
    /// cleaner deletes a row once it passed), in doneEncoding(); "" when the
    /// format stores none. NULL: kept for ever.
    virtual std::string expiryColumn() const { return {}; }
    /// SQL for metric in [lo, hi) ("" when the format cannot compute it).
    virtual std::string metricCondition(Filter::Metric m, TimeNs lo, TimeNs hi, Binds& binds) const;
    /// What each sort key orders by, in the format's own SQL (SortColumns).
    virtual SortColumns sortColumns() const = 0;
    /// The ORDER BY key of `k`, from sortColumns(); flips `desc` for Age
    /// (InTime reversed, in every format).
    std::string orderKey(SortKey k, bool& desc) const;
    /// Counts per value of queueColumn() in one pass over the rows `where`
    /// selects (NULL, a row in no named queue: the key nullopt), at `now`;
    /// nullopt when the format counts one queue at a time (Queue then runs
    /// counts() per queue).
    using QueueCountsMap = std::map<std::optional<std::string>, Counts>;
    virtual std::optional<QueueCountsMap> countsByQueue(Connection& c, TimeNs now,
                                                        TimeNs stuckAfter, const std::string& where,
                                                        const Binds& binds) const {
        (void)c, (void)now, (void)stuckAfter, (void)where, (void)binds;
        return std::nullopt;
    }
    /// Exact counts at `now`; `where` narrows (" WHERE ..." or "").
    virtual Counts counts(Connection& c, TimeNs now, TimeNs stuckAfter, const std::string& where,
                          const Binds& binds) const = 0;
    /// counts() and countsByQueue() of the rows whose scanKey() is in
    /// [lo, hi] (a chunk of Queue::counts), where the format has a faster
    /// read of a range than its counts with the range as `where`; nullopt:
    /// none here, or not for this range (Queue then calls those).
    virtual std::optional<Counts> rangeCounts(Connection& c, TimeNs now, TimeNs stuckAfter,
                                              std::int64_t lo, std::int64_t hi) const {
        (void)c, (void)now, (void)stuckAfter, (void)lo, (void)hi;
        return std::nullopt;
    }
    virtual std::optional<QueueCountsMap> rangeCountsByQueue(Connection& c, TimeNs now,
                                                             TimeNs stuckAfter, std::int64_t lo,
                                                             std::int64_t hi) const {
        (void)c, (void)now, (void)stuckAfter, (void)lo, (void)hi;
        return std::nullopt;
    }
    /// The distinct queue names, sorted (empty when none).
    virtual std::vector<std::string> queueNames(Connection& c) const;
    /// The worker processes the file records, alive or dead at `now` by the
    /// library's rule; by default none, with the reason.
    virtual ProcessList processes(Connection& c, TimeNs now) const;
    /// The recurring tasks the file records, with their last, next and
    /// missed runs at `now`; a schedule that names no zone is evaluated at
    /// `tzOffset` seconds east of UTC. By default none, with the reason.
    virtual RecurringList recurringTasks(Connection& c, TimeNs now, int tzOffset) const;
    /// What runRecurring() wrote, or why it wrote nothing.
    struct RecurringRun {
        std::string jobId; ///< the message id of the job enqueued; "" when refused
        std::string why;   ///< why nothing was written
        SkipKind kind = SkipKind::NotApplicable;
    };
    /// Where QueueFormat::whyNot(RunRecurring) is "": task `key`'s job
    /// enqueued at `now` as the library's own "run now" writes it, inside
    /// the write transaction (Action::RunRecurring).
    virtual RecurringRun runRecurring(Connection& c, const std::string& key, TimeNs now) const;
    /// The queues the file records as paused (none by default: the format
    /// stores no pause).
    virtual std::vector<PausedQueue> pausedQueues(Connection& c) const {
        (void)c;
        return {};
    }
    /// One named queue's pause as stored, read inside the write transaction.
    struct PauseRow {
        bool exists = false; ///< the queue can take a pause here
        std::string missing; ///< why not, when !exists
        bool paused = false;
        std::optional<TimeNs> since;
        /// The stored values as JSON text ("" when nothing is stored): what
        /// the audit record keeps and undo compares and writes back.
        std::string stored;
    };
    /// Where QueueFormat::whyNoPause() is "": the stored pause of `queue`.
    virtual PauseRow readPause(Connection& c, const std::string& queue) const;
    /// The library's own pause or resume of `queue` (known to be the other
    /// way round); returns the rows changed.
    virtual std::int64_t writePause(Connection& c, const std::string& queue, bool pause,
                                    TimeNs now) const;
    /// Writes `before` back where the stored pause of `queue` is still
    /// `wrote` (undo); 0 when it moved on.
    virtual std::int64_t restorePause(Connection& c, const std::string& queue,
                                      const PauseRow& wrote, const PauseRow& before) const;
    /// The distinct non-NULL values of `col` in `from`, into `out`. Where an
    /// index on `col` serves it, one seek per value (`min(col) WHERE col >
    /// ?`), each its own short read; else one DISTINCT scan.
    static void distinctValues(Connection& c, const std::string& from, const std::string& col,
                               std::set<std::string>& out);
    /// The select list of timing() and the row decoder.
    virtual std::string timingColumns() const = 0;
    virtual void timingRow(const Statement& st, TimeNs now, TimingColumns& out) const = 0;
    /// The rows of a whole timing scan (no filter) of the rows whose
    /// scanKey() is in [lo, hi], where the format has a faster read of a
    /// range than scanArms(): timingColumns(), then queueColumn() when
    /// `withQueue`, each row given to `row`, in one statement (one snapshot).
    /// False: none here, or not for this range, and no row given (Queue then
    /// reads scanArms()).
    using RowSink = std::function<void(const Statement&)>;
    virtual bool rangeTiming(Connection& c, std::int64_t lo, std::int64_t hi, bool withQueue,
                             const RowSink& row) const {
        (void)c, (void)lo, (void)hi, (void)withQueue, (void)row;
        return false;
    }
    /// A print of everything rangeTiming() reads for [lo, hi], the rows of
    /// other tables it joins included: equal prints, the same rows
    /// (Connection's lq_print()). A cached read of the range is good while
    /// the print holds and the time stays before the rows'
    /// TimingColumns::changesAt (Queue's TimingCache), which a format with
    /// prints lowers in timingRow(). nullopt: none here; every timing scan
    /// reads every row.
    virtual std::optional<std::uint64_t> rangePrint(Connection& c, std::int64_t lo,
                                                    std::int64_t hi) const {
        (void)c, (void)lo, (void)hi;
        return std::nullopt;
    }

    // ---- the library API (put, pop, done, ...) -----------------------------
    virtual Message insert(Connection& c, const std::string& data,
                           const std::optional<std::string>& key, TimeNs now, bool* inserted) const;
    virtual std::optional<Message> pop(Connection& c, TimeNs now) const;
    virtual std::optional<Message> peek(Connection& c, TimeNs now) const;
    /// done() (toStatus 2), markFailed() (3), retry() (0) under the claim.
    virtual bool transition(Connection& c, std::string_view id, std::int64_t claim, int toStatus,
                            TimeNs now) const;
    virtual std::int64_t retryExpired(Connection& c, TimeNs cutoff) const;
    virtual std::int64_t prune(Connection& c, bool includeFailed,
                               std::optional<TimeNs> cutoff) const;
    /// The filter of listLocked(threshold).
    virtual Filter lockedFilter(TimeNs threshold) const;
    /// The in-place migration to the format's current version.
    virtual void upgrade(Connection& c) const;

    // ---- operator actions (one row, inside the chunk's transaction) ---------
    /// Why `m` cannot take `a` at `now` ("" when it can).
    virtual std::string refusal(Action a, const Message& m, TimeNs now) const;
    /// What the token is called in skip reasons ("claim", "allocationId").
    virtual std::string tokenWord() const = 0;
    /// The token as shown in a skip reason.
    virtual std::string tokenShown(const Message& m) const;
    /// Writes `a` on row `m` (as read in this transaction) with a
    /// compare-and-swap on its token; returns the rows changed (0 or 1).
    virtual std::int64_t applyRow(Connection& c, Action a, const Message& m, TimeNs now,
                                  const ActionOptions& o) const = 0;
    /// The id of the row an action wrote instead of `before` when `before`
    /// is gone after it (Laravel's retry inserts a new jobs row); nullopt
    /// when the action keeps the row.
    virtual std::optional<std::string> movedTo(Connection& c, Action a,
                                               const Message& before) const {
        (void)c;
        (void)a;
        (void)before;
        return std::nullopt;
    }
    /// Whether `current` still holds what the action wrote (`wrote`).
    virtual bool holdsWritten(const Message& current, const Message& wrote) const = 0;
    /// Writes `before`'s state back onto `current` under current's token.
    virtual std::int64_t restoreRow(Connection& c, const Message& current, const Message& before,
                                    TimeNs now) const = 0;
    /// Inserts a deleted row back. Returns a note when restored
    /// differently (e.g. without its idempotency key).
    virtual std::string reinsert(Connection& c, const Message& before, TimeNs now) const = 0;
    /// Deletes `current` under its token (undo of an enqueue).
    virtual std::int64_t deleteRow(Connection& c, const Message& current) const;

protected:
    [[noreturn]] void unsupported(const std::string& what) const;

private:
    FormatInfo m_info;
    std::string m_path;
};

} // namespace lq::core
