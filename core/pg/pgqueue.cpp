// SPDX-License-Identifier: MIT
// A queue on PostgreSQL (core/pg/pgqueue.h).
#include "pgqueue.h"

#include "../error.h"
#include "../formats/driver.h"
#include "../formats/queueformat.h"
#include "actions.h"
#include "counts.h"
#include "list.h"
#include "listen.h"
#include "pause.h"
#include "recurring.h"

#include <algorithm>
#include <cctype>

namespace lq::core {

std::unique_ptr<PgQueue> PgQueue::open(const std::string& url, PgOpenOptions opts) {
    std::unique_ptr<PgQueue> q(new PgQueue());
    q->m_clock = opts.clock ? std::move(opts.clock) : systemClock();
    opts.connection.readOnly = true;
    q->m_conn = pg::Connection::open(url, opts.connection);
    q->m_connectUrl = url;
    q->m_connOptions = opts.connection;
    q->m_serverVersion = q->m_conn->serverVersion(); // read here: any thread may ask
    q->m_catalog = pg::readCatalog(*q->m_conn, q->m_conn->schema());
    if (q->m_catalog.found.empty()) {
        std::string schemas;
        for (const auto& s : q->m_catalog.searched)
            schemas += (schemas.empty() ? "" : ", ") + s;
        const std::string where =
            schemas.empty() ? "no schema (none is visible to this user)" : "schemas " + schemas;
        const std::string next = q->m_conn->schema().empty()
                                     ? "Check the database name, or the user's privileges."
                                     : "Check ?schema=" + q->m_conn->schema() +
                                           ", or leave it out to look at every schema.";
        throw NotAQueue(q->url(), "no queue library's tables here: looked for Solid Queue, Oban, "
                                  "River, GoodJob, pg-boss and Graphile Worker in " +
                                      where + ". " + next);
    }
    q->m_found = q->m_catalog.found.front();
    FormatInfo& fi = q->m_info;
    const std::string modelId = pg::stateModelFormatId(q->m_found.library);
    fi.format = modelId.empty() ? nullptr : QueueFormat::byId(modelId);
    fi.table = q->m_found.schema + "." +
               (q->m_found.tables.empty() ? std::string() : q->m_found.tables.front());
    for (const auto& t : q->m_found.tables) {
        if (t == "solid_queue_jobs" || t == "oban_jobs" || t == "river_job" || t == "good_jobs" ||
            t == "job" || t == "_private_jobs" ||
            (t == "jobs" && q->m_found.library == "graphile-worker"))
            fi.table = q->m_found.schema + "." + t;
        fi.queueTables.push_back(q->m_found.schema + "." + t);
        // The formats read optional tables from here as on SQLite
        // (River's river_queue, Solid Queue's solid_queue_pauses).
        fi.columns.push_back(t);
    }
    // Graphile Worker's job key, pg-boss's singleton_key.
    fi.hasIdempotencyKey =
        q->m_found.library == "graphile-worker" || q->m_found.library == "pg-boss";
    q->m_whyReadOnly =
        opts.readOnly ? std::string("opened read-only") : pg::whyNoWrites(*q->m_conn, q->m_found);
    fi.readOnlyReason = q->m_whyReadOnly;
    if (fi.format && q->m_whyReadOnly.empty())
        q->m_refusal = pg::refusalOf(q->m_found, fi, q->url());
    for (std::size_t i = 1; i < q->m_catalog.found.size(); ++i) {
        const auto& o = q->m_catalog.found[i];
        fi.warnings.push_back(
            "the database also holds " + pg::libraryName(o.library) + " in schema " + o.schema +
            (o.schema == q->m_found.schema ? "" : ": open it with ?schema=" + o.schema));
    }
    for (const auto& m : q->m_found.missing)
        fi.warnings.push_back("no table " + m + " (an older version): its state reads as empty");
    return q;
}

PgQueue::~PgQueue() = default;

const std::string& PgQueue::url() const noexcept {
    return m_conn->display();
}

const FormatInfo& PgQueue::info() const noexcept {
    return m_info;
}

const pg::Found& PgQueue::found() const noexcept {
    return m_found;
}

const std::string& PgQueue::formatId() const noexcept {
    return m_found.library;
}

const pg::Catalog& PgQueue::catalog() const noexcept {
    return m_catalog;
}

bool PgQueue::countsSupported() const noexcept {
    return pg::countsSupported(m_found.library);
}

int PgQueue::serverVersion() const {
    return m_serverVersion;
}

TimeNs PgQueue::now() const {
    return m_clock();
}

Counts PgQueue::counts(TimeNs, const std::string& queue) {
    const std::lock_guard lock(m_mutex);
    return pg::readCounts(*m_conn, m_found, m_clock(), queue);
}

std::vector<std::string> PgQueue::queueNames() {
    const std::lock_guard lock(m_mutex);
    return pg::readQueueNames(*m_conn, m_found);
}

bool PgQueue::listSupported() const noexcept {
    return pg::listSupported(m_found.library);
}

std::vector<std::int64_t> PgQueue::orderedIds(const Filter& f, const Sort& s,
                                              std::optional<std::int64_t> limit) {
    const std::lock_guard lock(m_mutex);
    return pg::orderedIds(*m_conn, m_found, f, s, m_clock(), limit);
}

template <class Read> auto PgQueue::quickRead(Read read) {
    if (std::unique_lock first(m_mutex, std::try_to_lock); first.owns_lock())
        return read(*m_conn);
    const std::lock_guard second(m_quickMutex);
    if (!m_quick)
        m_quick = pg::Connection::open(m_connectUrl, m_connOptions);
    return read(*m_quick);
}

std::optional<Counts> PgQueue::estimatedCounts(const std::string& queue) {
    return quickRead([&](pg::Connection& c) { return pg::estimateCounts(c, m_found, queue); });
}

std::vector<Message> PgQueue::jobs(const std::vector<std::int64_t>& ids) {
    return quickRead([&](pg::Connection& c) { return pg::readJobs(c, m_found, ids, m_clock()); });
}

std::vector<Message> PgQueue::firstJobs(const Filter& f, const Sort& s, std::int64_t limit,
                                        std::int64_t offset) {
    const std::lock_guard lock(m_mutex);
    return pg::firstJobs(*m_conn, m_found, f, s, m_clock(), limit, offset);
}

std::int64_t PgQueue::count(const Filter& f) {
    const std::lock_guard lock(m_mutex);
    return pg::countJobs(*m_conn, m_found, f, m_clock());
}

std::optional<Message> PgQueue::job(const std::string& id) {
    std::int64_t rowid = 0;
    if (pg::keyedByUuid(m_found.library)) {
        const auto r = pg::uuidRowidOf(id);
        if (!r)
            return std::nullopt;
        rowid = *r;
    } else {
        // The other libraries' job ids are integers.
        if (id.empty() || id.size() > 18 || id.find_first_not_of("0123456789") != std::string::npos)
            return std::nullopt;
        rowid = std::stoll(id);
    }
    for (Message& m : jobs({rowid}))
        if (m.messageId.size() == id.size() &&
            std::equal(id.begin(), id.end(), m.messageId.begin(),
                       [](char a, char b) { return std::tolower(a) == std::tolower(b); }))
            return std::move(m);
    return std::nullopt;
}

TimingColumns PgQueue::timing(bool withQueues, const Filter& f) {
    const std::lock_guard lock(m_mutex);
    return pg::readTiming(*m_conn, m_found, m_clock(), withQueues, f);
}

std::int64_t PgQueue::sizeOnDisk() {
    const std::lock_guard lock(m_mutex);
    return m_conn
        ->exec("SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c "
               "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND "
               "c.relname = ANY($2::text[]) AND c.relkind = 'r'",
               {m_found.schema, tableArray()})
        .int64(0, 0);
}

RecurringList PgQueue::recurringTasks(int tzOffset) {
    const std::lock_guard lock(m_mutex);
    return pg::readRecurring(*m_conn, m_found, info(), m_clock(), tzOffset);
}

ProcessList PgQueue::processes() {
    const std::lock_guard lock(m_mutex);
    return pg::readProcesses(*m_conn, m_found, m_clock());
}

std::vector<PausedQueue> PgQueue::pausedQueues() {
    const std::lock_guard lock(m_mutex);
    return pg::readPausedQueues(*m_conn, m_found);
}

std::string PgQueue::tableArray() const {
    std::string tables = "{";
    for (std::size_t i = 0; i < m_found.tables.size(); ++i)
        tables += (i ? ",\"" : "\"") + m_found.tables[i] + "\"";
    return tables + "}";
}

std::int64_t PgQueue::changeMarker() {
    const std::string tables = tableArray();
    return quickRead([&](pg::Connection& c) {
        return c
            .exec("SELECT coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0)::bigint FROM "
                  "pg_stat_user_tables WHERE schemaname = $1 AND relname = ANY($2::text[])",
                  {m_found.schema, tables})
            .int64(0, 0);
    });
}

std::vector<std::string> PgQueue::insertChannels() {
    const std::lock_guard lock(m_mutex);
    return pg::insertChannels(*m_conn, m_found);
}

const std::string& PgQueue::whyReadOnly() const noexcept {
    return m_whyReadOnly;
}

std::string PgQueue::refusal(Action a, const Message& m) const {
    if (!m_whyReadOnly.empty())
        return m_whyReadOnly;
    return m_refusal(a, m, m_clock()); // pure: the format's rule, no SQL
}

pg::Connection& PgQueue::writer() {
    if (!m_writer) {
        pg::Connection::Options o = m_connOptions;
        o.readOnly = false;
        m_writer = pg::Connection::open(m_connectUrl, o);
    }
    return *m_writer;
}

ActionResult PgQueue::inChunks(Action a, std::size_t total, const ActionOptions& o,
                               const ChunkFn& fn) {
    if (!m_whyReadOnly.empty())
        throw ReadOnly(url(), std::string(actionName(a)) + " refused: " + m_whyReadOnly);
    return runInChunks(a, total, o,
                       [&](std::size_t first, std::size_t n, std::size_t index, ActionResult& part,
                           bool& hookRan) {
                           const std::lock_guard lock(m_writeMutex);
                           pg::Connection& w = writer();
                           w.exec("BEGIN");
                           try {
                               const pg::ChunkContext x{w, m_found, m_refusal, m_clock()};
                               fn(x, first, n, part);
                               if (o.beforeCommit) {
                                   o.beforeCommit(part, index);
                                   hookRan = true;
                               }
                               w.exec("COMMIT");
                           } catch (...) {
                               try {
                                   w.exec("ROLLBACK");
                               } catch (const Error&) {
                                   m_writer.reset(); // the session is gone: a new one next time
                               }
                               throw;
                           }
                       });
}

ActionResult PgQueue::apply(Action a, const std::vector<Target>& targets, const ActionOptions& o) {
    return inChunks(
        a, targets.size(), o,
        [&](const pg::ChunkContext& x, std::size_t first, std::size_t n, ActionResult& part) {
            pg::applyChunk(x, a, targets.data() + first, targets.data() + first + n, part);
        });
}

ActionResult PgQueue::undo(Action original, const std::vector<AppliedRow>& rows,
                           const ActionOptions& o) {
    if (!isUndoable(original))
        throw Error(ErrorKind::InvalidArgument, url(),
                    std::string(actionName(original)) + " cannot be undone");
    return inChunks(
        original, rows.size(), o,
        [&](const pg::ChunkContext& x, std::size_t first, std::size_t n, ActionResult& part) {
            if (original == Action::RunRecurring) {
                for (std::size_t i = first; i < first + n; ++i)
                    pg::undoRunRecurringRow(x, rows[i], part);
                return;
            }
            if (original == Action::Pause || original == Action::Resume) {
                const auto store = pauseStore(x);
                for (std::size_t i = first; i < first + n; ++i)
                    unpauseQueue(*store, rows[i], part);
                return;
            }
            pg::undoChunk(x, original, rows.data() + first, rows.data() + first + n, part);
        });
}

std::unique_ptr<PauseStore> PgQueue::pauseStore(const pg::ChunkContext& x) const {
    auto store = pg::pauseStoreOf(x);
    if (!store)
        throw Unsupported(url(), QueueFormat::of(info()).whyNoPause(info()));
    return store;
}

ActionResult PgQueue::runRecurring(const std::string& key, const ActionOptions& o) {
    return inChunks(Action::RunRecurring, 1, o,
                    [&](const pg::ChunkContext& x, std::size_t, std::size_t, ActionResult& part) {
                        pg::runRecurringChunk(x, key, part);
                    });
}

ActionResult PgQueue::setPaused(const std::string& queue, bool pause, const ActionOptions& o) {
    const Action a = pause ? Action::Pause : Action::Resume;
    return inChunks(a, 1, o,
                    [&](const pg::ChunkContext& x, std::size_t, std::size_t, ActionResult& part) {
                        pauseQueue(*pauseStore(x), a, queue, x.now, part);
                    });
}

} // namespace lq::core
