// SPDX-License-Identifier: MIT
// Pausing a named queue on PostgreSQL as the library does (core/pg/pause.h):
// Solid Queue's SolidQueue::Queue#pause and #resume (a solid_queue_pauses
// row), River's QueuePause and QueueResume (river_queue.paused_at), with
// the statements their SQLite drivers run (solidqueue_ops.cpp, river.cpp)
// in PostgreSQL's dialect, and River's river_control notification. What
// is stored is the row's row_to_json: undo compares and writes back
// exactly that.
#include "pause.h"

#include "../json.h"
#include "actions_p.h"
#include "catalog.h"
#include "list.h"

namespace lq::core::pg {

namespace {

using detail::changed;
using detail::pgTime;
using detail::qualifiedTable;

/// A pause read FOR UPDATE: its row_to_json and its time.
PauseStore::Row rowOf(const Result& r) {
    PauseStore::Row p;
    p.exists = true;
    p.stored = r.text(0, 0);
    if (!r.isNull(0, 1)) {
        p.paused = true;
        p.since = r.int64(0, 1);
    }
    return p;
}

class SolidQueuePauses final : public PauseStore {
public:
    explicit SolidQueuePauses(const ChunkContext& x)
        : m_x(x)
        , m_t(qualifiedTable(x, "solid_queue_pauses")) {}

    Row read(const std::string& queue) const override {
        const Result r = m_x.c.exec("SELECT row_to_json(p)::text, " + ns("created_at") + " FROM " +
                                        m_t + " p WHERE queue_name = $1 FOR UPDATE",
                                    {queue});
        if (r.rows() > 0)
            return rowOf(r);
        Row p;
        p.exists = m_x.c
                       .exec("SELECT 1 FROM " + qualifiedTable(m_x, "solid_queue_jobs") +
                                 " WHERE queue_name = $1 LIMIT 1",
                             {queue})
                       .rows() > 0;
        if (!p.exists)
            p.missing = "no job in schema " + m_x.lib.schema + " names queue \"" + queue + "\"";
        return p;
    }

    std::int64_t write(const std::string& queue, bool pause, TimeNs now) const override {
        if (pause)
            return changed(m_x,
                           "INSERT INTO " + m_t +
                               " (queue_name, created_at) VALUES ($1, $2::timestamp) RETURNING id",
                           {queue, pgTime(now)});
        return changed(m_x, "DELETE FROM " + m_t + " WHERE queue_name = $1 RETURNING id", {queue});
    }

    std::int64_t restore(const std::string& queue, const Row& wrote,
                         const Row& before) const override {
        if (wrote.paused) // the row the pause inserted, if it is still that row
            return changed(m_x,
                           "DELETE FROM " + m_t +
                               " p WHERE queue_name = $1 AND row_to_json(p)::jsonb = $2::jsonb "
                               "RETURNING id",
                           {queue, wrote.stored});
        // The row the resume deleted, while the queue is not paused again.
        return changed(m_x,
                       "INSERT INTO " + m_t + " SELECT * FROM json_populate_record(NULL::" + m_t +
                           ", $2::json) WHERE NOT EXISTS (SELECT 1 FROM " + m_t +
                           " WHERE queue_name = $1 OR id = ($2::json ->> 'id')::bigint) "
                           "RETURNING id",
                       {queue, before.stored});
    }

private:
    const ChunkContext& m_x;
    std::string m_t;
};

class RiverPauses final : public PauseStore {
public:
    explicit RiverPauses(const ChunkContext& x)
        : m_x(x)
        , m_t(qualifiedTable(x, "river_queue")) {}

    Row read(const std::string& queue) const override {
        const Result r = m_x.c.exec("SELECT row_to_json(q)::text, " + ns("paused_at") + " FROM " +
                                        m_t + " q WHERE name = $1 FOR UPDATE",
                                    {queue});
        if (r.rows() > 0)
            return rowOf(r);
        Row p;
        p.missing = "River has no river_queue row for queue \"" + queue +
                    "\" (no River client has run it), and River pauses only a queue it has";
        return p;
    }

    std::int64_t write(const std::string& queue, bool pause, TimeNs now) const override {
        // QueuePause / QueueResume: the row's times move only when it changes.
        const std::string set =
            pause ? " SET paused_at = CASE WHEN paused_at IS NULL THEN $2::timestamptz ELSE "
                    "paused_at END, updated_at = CASE WHEN paused_at IS NULL THEN "
                    "$2::timestamptz ELSE updated_at END"
                  : " SET paused_at = NULL, updated_at = CASE WHEN paused_at IS NOT NULL THEN "
                    "$2::timestamptz ELSE updated_at END";
        const std::int64_t n = changed(
            m_x, "UPDATE " + m_t + set + " WHERE name = $1 RETURNING name", {queue, pgTime(now)});
        if (n == 1)
            notify(pause, queue);
        return n;
    }

    std::int64_t restore(const std::string& queue, const Row& wrote,
                         const Row& before) const override {
        // paused_at back while it still holds what was written; updated_at
        // too unless a client touched the row since.
        const std::int64_t n = changed(
            m_x,
            "UPDATE " + m_t +
                " q SET paused_at = b.paused_at, updated_at = CASE WHEN q.updated_at IS NOT "
                "DISTINCT FROM w.updated_at THEN b.updated_at ELSE q.updated_at END FROM "
                "json_populate_record(NULL::" +
                m_t + ", $2::json) w, json_populate_record(NULL::" + m_t +
                ", $3::json) b WHERE q.name = $1 AND q.paused_at IS NOT DISTINCT FROM w.paused_at "
                "RETURNING q.name",
            {queue, wrote.stored, before.stored});
        if (n == 1)
            notify(before.paused, queue);
        return n;
    }

private:
    /// What River's client sends in the same transaction
    /// (Client.notifyQueuePauseOrResume, riverqueue/river@fdf6cdf
    /// client.go; PGNotifyMany): {"action": "pause"|"resume", "queue": ...}
    /// on "<schema>.river_control", so that running producers stop or
    /// start at once instead of at their next poll of river_queue.
    void notify(bool pause, const std::string& queue) const {
        Json payload = Json::object();
        payload.set("action", pause ? "pause" : "resume");
        payload.set("queue", queue);
        m_x.c.exec("SELECT pg_notify($1, $2)", {m_x.lib.schema + ".river_control", payload.dump()});
    }

    const ChunkContext& m_x;
    std::string m_t;
};

} // namespace

std::unique_ptr<PauseStore> pauseStoreOf(const ChunkContext& x) {
    if (x.lib.library == "solid-queue")
        return std::make_unique<SolidQueuePauses>(x);
    if (x.lib.library == "river")
        return std::make_unique<RiverPauses>(x);
    return nullptr;
}

} // namespace lq::core::pg
