// SPDX-License-Identifier: MIT
#include "server.h"

#include "../audit.h"
#include "../json.h"
#include "../operator.h"
#include "../queue.h"
#include "../queueoverview.h"
#include "codec.h"
#include "folder.h"
#include "transport.h"

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

namespace lq::core::remote {

namespace {

Error badRequest(const std::string& what) {
    return Error(ErrorKind::InvalidArgument, {}, what);
}

std::string absolute(const std::string& path) {
    std::error_code ec;
    auto p = std::filesystem::absolute(path, ec);
    return ec ? path : p.lexically_normal().string();
}

} // namespace

struct Server::Impl {
    Options opt;
    LineReader reader;
    std::mutex outMutex;
    bool helloDone = false;
    std::unique_ptr<Queue> queue;

    // The watcher: pushes {"event":"changed"} when the file moves.
    std::thread watcher;
    std::mutex watchMutex;
    std::condition_variable watchCv;
    bool watchStop = false;

    using Handler = std::function<Json(const Json& params, std::int64_t id)>;
    std::map<std::string, Handler, std::less<>> handlers;

    explicit Impl(Options o)
        : opt(std::move(o))
        , reader(opt.in, kMaxRequestBytes) {
        registerHandlers();
        registerWrites();
    }
    ~Impl() { closeQueue(); }

    void send(const Json& j) {
        const std::string line = j.dump() + "\n";
        std::lock_guard lock(outMutex);
        writeAll(opt.out, line);
    }

    void reply(const Json& id, Json result) {
        Json j = Json::object();
        j.set("id", id);
        j.set("result", std::move(result));
        send(j);
    }

    void replyError(const Json& id, const Error& e) {
        Json j = Json::object();
        j.set("id", id);
        j.set("error", errorJson(e));
        send(j);
    }

    Queue& q() {
        if (!queue)
            throw badRequest("no queue is open: send \"open\" first");
        return *queue;
    }

    /// Reads refuse once the path no longer names the opened file: what
    /// they would show is a file nobody can reach any more.
    Queue& current() {
        Queue& qq = q();
        if (std::string what = qq.fileChange(); !what.empty())
            throw FileChanged(qq.path(), what + ". Open it again to see what the path names now");
        return qq;
    }

    void closeQueue() {
        if (watcher.joinable()) {
            {
                std::lock_guard lock(watchMutex);
                watchStop = true;
            }
            watchCv.notify_all();
            watcher.join();
        }
        queue.reset();
    }

    void startWatcher() {
        watchStop = false;
        std::promise<void> ready;
        auto started = ready.get_future();
        watcher = std::thread([this, &ready] {
            Queue& qq = *queue;
            // data_version is per connection: the baseline is this thread's,
            // taken before open replies, so no commit after it is missed.
            std::int64_t version = -1;
            std::int64_t wal = -1;
            try {
                version = qq.dataVersion();
                wal = qq.walSize();
            } catch (const Error&) {
            }
            ready.set_value();
            bool reportedChange = false;
            std::unique_lock lock(watchMutex);
            while (!watchCv.wait_for(lock, std::chrono::milliseconds(opt.pollMs),
                                     [&] { return watchStop; })) {
                lock.unlock();
                try {
                    const std::string change = qq.fileChange();
                    if (!change.empty() && !reportedChange) {
                        reportedChange = true;
                        Json ev = Json::object();
                        ev.set("event", "file_changed");
                        ev.set("message", qq.path() + ": " + change);
                        send(ev);
                    }
                    if (change.empty()) {
                        const std::int64_t v = qq.dataVersion();
                        const std::int64_t w = qq.walSize();
                        if (version >= 0 && (v != version || w != wal)) {
                            Json ev = Json::object();
                            ev.set("event", "changed");
                            ev.set("data_version", v);
                            send(ev);
                        }
                        version = v;
                        wal = w;
                    }
                } catch (const Error&) {
                    // Busy or the file going: the next request says so.
                }
                lock.lock();
            }
        });
        started.wait();
    }

    /// Runs an action with the client recording every chunk: the chunk goes
    /// to the client, which answers {"ack":ID,"ok":true} once its audit line
    /// is written; anything else rolls the chunk back.
    void remoteRecording(ActionOptions& o, std::int64_t id) {
        o.beforeCommit = [this, id](const ActionResult& chunk, std::size_t index) {
            Json ev = Json::object();
            ev.set("id", id);
            ev.set("event", "chunk");
            ev.set("index", static_cast<std::int64_t>(index));
            ev.set("chunk", toJson(chunk));
            send(ev);
            std::string line;
            if (reader.next(line) != LineReader::Status::Line)
                throw Error(ErrorKind::Io, q().path(),
                            "the client went away before it recorded the chunk; the chunk was "
                            "rolled back");
            Json ack;
            try {
                ack = Json::parse(line);
            } catch (const Error&) {
            }
            if (ack["ack"].toInt() != id || !ack["ok"].toBool()) {
                const std::string why = ack["error"].isString()
                                            ? ack["error"].toString()
                                            : std::string("no acknowledgement from the client");
                throw Error(ErrorKind::Io, q().path(), why + "; the chunk was rolled back");
            }
        };
        o.rolledBack = [this, id](std::size_t index) {
            Json ev = Json::object();
            ev.set("id", id);
            ev.set("event", "rolled_back");
            ev.set("index", static_cast<std::int64_t>(index));
            send(ev);
        };
    }

    void registerHandlers();
    void registerWrites();
    void handle(const std::string& line);
};

void Server::Impl::registerHandlers() {
    handlers["hello"] = [this](const Json& p, std::int64_t) {
        const auto theirs = p["protocol"].toInt();
        if (!p["protocol"].isInt() || theirs != kProtocolVersion)
            throw Error(ErrorKind::Unsupported, {},
                        "protocol version mismatch: the client speaks version " +
                            (p["protocol"].isInt() ? std::to_string(theirs) : std::string("?")) +
                            ", the server (" + opt.name + ") speaks version " +
                            std::to_string(kProtocolVersion) +
                            ". Install the same lqadmin version on both machines");
        helloDone = true;
        Json r = Json::object();
        r.set("protocol", kProtocolVersion);
        r.set("server", opt.name);
        r.set("filter_where", true); // Filter::where is applied, not ignored
        return r;
    };
    handlers["open"] = [this](const Json& p, std::int64_t) {
        if (!p["path"].isString() || p["path"].toString().empty())
            throw badRequest("open: \"path\" is missing");
        closeQueue();
        OpenOptions o;
        o.readOnly = !p.contains("read_only") || p["read_only"].toBool();
        o.table = p["table"].toString();
        if (p["busy_timeout_ms"].isInt())
            o.busyTimeoutMs = static_cast<int>(p["busy_timeout_ms"].toInt());
        if (p["now"].isInt())
            o.clock = fixedClock(p["now"].toInt());
        o.settings = settingsFromJson(p["settings"]); // optional (protocol v1 clients)
        queue = Queue::open(p["path"].toString(), o);
        startWatcher();
        Json r = Json::object();
        r.set("path", absolute(queue->path()));
        r.set("info", toJson(queue->info()));
        r.set("read_only", queue->readOnly());
        r.set("device", static_cast<std::int64_t>(queue->identity().device));
        r.set("inode", static_cast<std::int64_t>(queue->identity().inode));
        return r;
    };
    handlers["close"] = [this](const Json&, std::int64_t) {
        closeQueue();
        return Json();
    };
    handlers["info"] = [this](const Json&, std::int64_t) {
        Queue& qq = current();
        Json r = Json::object();
        r.set("info", toJson(qq.info()));
        r.set("read_only", qq.readOnly());
        r.set("file_size", qq.fileSize());
        r.set("wal_size", qq.walSize());
        r.set("now", qq.now());
        r.set("data_version", qq.dataVersion());
        return r;
    };
    handlers["now"] = [this](const Json&, std::int64_t) { return Json(q().now()); };
    handlers["counts"] = [this](const Json& p, std::int64_t) {
        const TimeNs stuck =
            p["stuck_after_ns"].isInt() ? p["stuck_after_ns"].toInt() : kDefaultStuckAfterNs;
        return toJson(current().counts(p["queue"].toString(), stuck));
    };
    handlers["queue_names"] = [this](const Json&, std::int64_t) {
        Json a = Json::array();
        for (const auto& n : current().queueNames())
            a.push(n);
        return a;
    };
    handlers["processes"] = [this](const Json& p, std::int64_t) {
        return toJson(current().processes(p["now"].isInt() ? std::optional<TimeNs>(p["now"].toInt())
                                                           : std::nullopt));
    };
    handlers["recurring_tasks"] = [this](const Json& p, std::int64_t) {
        // An offset beyond a day is no zone: refused like any bad parameter.
        const std::int64_t tz = p["tz_offset"].isInt() ? p["tz_offset"].toInt() : 0;
        if (tz < -86400 || tz > 86400)
            throw badRequest("recurring_tasks: \"tz_offset\" is more than a day");
        return toJson(current().recurringTasks(
            p["now"].isInt() ? std::optional<TimeNs>(p["now"].toInt()) : std::nullopt,
            static_cast<int>(tz)));
    };
    handlers["paused_queues"] = [this](const Json&, std::int64_t) {
        return toJson(current().pausedQueues());
    };
    handlers["count"] = [this](const Json& p, std::int64_t) {
        return Json(current().count(filterFromJson(p["filter"])));
    };
    handlers["stats"] = [this](const Json& p, std::int64_t) {
        return toJson(current().stats(filterFromJson(p["filter"])));
    };
    handlers["series"] = [this](const Json& p, std::int64_t) {
        const auto cols = current().timing(filterFromJson(p["filter"]));
        return toJson(computeSeries(cols, p["from"].toInt(), p["to"].toInt(),
                                    std::max<TimeNs>(1, p["bucket"].toInt())));
    };
    handlers["dashboard"] = [this](const Json& p, std::int64_t) {
        return toJson(dashboardFigures(current(), dashboardQueryFromJson(p)));
    };
    handlers["queue_overview"] = [this](const Json& p, std::int64_t) {
        return queueOverviewJson(queueOverview(current(), dashboardQueryFromJson(p)));
    };
    handlers["fleet"] = [](const Json& p, std::int64_t) {
        // A folder on this host (no open queue needed): the local fleet scan.
        if (!p["dir"].isString() || p["dir"].toString().empty())
            throw badRequest("fleet: \"dir\" is missing");
        const TimeNs now = p["now"].isInt() ? p["now"].toInt() : systemNowNs();
        const TimeNs stuck =
            p["stuck_after_ns"].isInt() ? p["stuck_after_ns"].toInt() : kDefaultStuckAfterNs;
        const int busy =
            p["busy_timeout_ms"].isInt() ? static_cast<int>(p["busy_timeout_ms"].toInt()) : 200;
        return fleetJson(p["dir"].toString(), now, stuck, busy);
    };
    handlers["list"] = [this](const Json& p, std::int64_t) {
        return messagesJson(current().list(filterFromJson(p["filter"]), sortFromJson(p["sort"]),
                                           p["offset"].toInt(), p["limit"].toInt()));
    };
    handlers["rowids"] = [this](const Json& p, std::int64_t) {
        Json a = Json::array();
        for (auto r : current().orderedRowids(filterFromJson(p["filter"]), sortFromJson(p["sort"])))
            a.push(r);
        return a;
    };
    handlers["fetch"] = [this](const Json& p, std::int64_t) {
        std::vector<std::int64_t> rowids;
        for (const auto& r : p["rowids"].toArray())
            rowids.push_back(r.toInt());
        return messagesJson(current().fetchRowids(rowids));
    };
    handlers["get"] = [this](const Json& p, std::int64_t) {
        const auto m = current().get(p["message_id"].toString());
        return m ? messageToJson(*m) : Json();
    };
    handlers["plan"] = [this](const Json& p, std::int64_t) {
        Queue& qq = current();
        // Plans are read-only: the log is never written here.
        Operator op(qq, opt.name, AuditLog("/nonexistent"));
        const std::string kind = p["kind"].toString();
        std::optional<TimeNs> now;
        if (p["now"].isInt())
            now = p["now"].toInt();
        Plan plan;
        if (kind == "targets") {
            const auto a = actionFromName(p["action"].toString());
            if (!a)
                throw badRequest("plan: unknown action \"" + p["action"].toString() + "\"");
            plan = op.planTargets(*a, targetsFromJson(p["targets"]));
        } else if (kind == "filter") {
            const auto a = actionFromName(p["action"].toString());
            if (!a)
                throw badRequest("plan: unknown action \"" + p["action"].toString() + "\"");
            plan = op.planFilter(*a, filterFromJson(p["filter"]));
        } else if (kind == "retry-expired") {
            plan = op.planRetryExpired(
                secondsFrom(p["threshold_s"]).value_or(std::chrono::nanoseconds{0}), now,
                p["queue"].toString());
        } else if (kind == "prune") {
            plan = op.planPrune(p["include_failed"].toBool(), secondsFrom(p["older_than_s"]), now,
                                p["queue"].toString());
        } else {
            throw badRequest("plan: unknown kind \"" + kind + "\"");
        }
        return toJson(plan);
    };
    handlers["apply"] = [this](const Json& p, std::int64_t id) {
        Queue& qq = q();
        const Plan plan = planFromJson(p["plan"]);
        ActionOptions o;
        o.chunkSize = plan.chunkSize;
        o.delay = plan.delay;
        remoteRecording(o, id);
        return toJson(qq.apply(plan.action, plan.targets, o));
    };
    handlers["undo"] = [this](const Json& p, std::int64_t id) {
        Queue& qq = q();
        const auto a = actionFromName(p["action"].toString());
        if (!a)
            throw badRequest("undo: unknown action \"" + p["action"].toString() + "\"");
        ActionOptions o;
        remoteRecording(o, id);
        return toJson(qq.undo(*a, appliedFromJson(p["applied"]), o));
    };
}

void Server::Impl::registerWrites() {
    // Claim-free writes: one transaction each on this host; the client
    // records them (enqueue: before the insert commits, as `apply` chunks).
    handlers["enqueue"] = [this](const Json& p, std::int64_t id) {
        Queue& qq = current();
        if (!p["data"].isString())
            throw badRequest("enqueue: \"data\" is missing");
        std::optional<std::string> key;
        if (p["key"].isString())
            key = p["key"].toString();
        ActionOptions o;
        remoteRecording(o, id);
        ActionResult r;
        r.action = Action::Enqueue;
        bool inserted = false;
        auto tx = qq.transaction();
        const Message m = qq.put(p["data"].toString(), std::move(key), &inserted);
        if (inserted) {
            r.applied.push_back({m, m, {}});
            o.beforeCommit(r, 0); // throws unless the client recorded it: rolls back
        }
        try {
            tx->commit();
        } catch (const Error&) {
            if (inserted)
                o.rolledBack(0);
            throw;
        }
        Json j = Json::object();
        j.set("result", toJson(r));
        j.set("message", messageToJson(m));
        return j;
    };
    handlers["pause"] = [this](const Json& p, std::int64_t id) {
        Queue& qq = current();
        if (!p["queue"].isString() || !p["pause"].isBool())
            throw badRequest("pause: \"queue\" (text) and \"pause\" (true or false) are needed");
        ActionOptions o;
        remoteRecording(o, id);
        return toJson(qq.setPaused(p["queue"].toString(), p["pause"].toBool(), o));
    };
    handlers["run_recurring"] = [this](const Json& p, std::int64_t id) {
        Queue& qq = current();
        if (!p["task"].isString())
            throw badRequest("run_recurring: \"task\" (a recurring task's key) is needed");
        ActionOptions o;
        remoteRecording(o, id);
        return toJson(qq.runRecurring(p["task"].toString(), o));
    };
    handlers["vacuum"] = [this](const Json&, std::int64_t) {
        const auto [before, after] = current().vacuum();
        Json j = Json::object();
        j.set("before", before);
        j.set("after", after);
        return j;
    };
    handlers["upgrade"] = [this](const Json&, std::int64_t) {
        Queue& qq = current();
        const std::string from = formatId(qq.info().format);
        qq.upgrade();
        Json j = Json::object();
        j.set("from", from);
        j.set("to", formatId(qq.info().format));
        j.set("info", toJson(qq.info()));
        return j;
    };
}

void Server::Impl::handle(const std::string& line) {
    Json req;
    try {
        req = Json::parse(line);
    } catch (const Error& e) {
        replyError(Json(), badRequest("malformed request (not JSON): " + e.detail()));
        return;
    }
    const Json id = req["id"];
    if (!req.isObject() || !id.isInt()) {
        replyError(id, badRequest("malformed request: expected {\"id\": N, \"method\": ...}"));
        return;
    }
    if (req.contains("ack")) {
        replyError(id, badRequest("an acknowledgement outside an action"));
        return;
    }
    const std::string method = req["method"].toString();
    const auto h = handlers.find(method);
    if (h == handlers.end()) {
        replyError(id, badRequest("unknown method \"" + method + "\""));
        return;
    }
    if (!helloDone && method != "hello") {
        replyError(id, badRequest("send \"hello\" with the protocol version first"));
        return;
    }
    try {
        reply(id, h->second(req["params"], id.toInt()));
    } catch (const Error& e) {
        replyError(id, e);
    } catch (const std::exception& e) {
        replyError(id, Error(ErrorKind::Io, {}, e.what()));
    }
}

Server::Server(Options o)
    : m_d(std::make_unique<Impl>(std::move(o))) {}

Server::~Server() = default;

int Server::run() {
    std::string line;
    for (;;) {
        switch (m_d->reader.next(line)) {
        case LineReader::Status::Eof:
            m_d->closeQueue();
            return 0;
        case LineReader::Status::TooLong:
            m_d->replyError(Json(), badRequest("request too long: over " +
                                               std::to_string(kMaxRequestBytes) +
                                               " bytes; it was discarded"));
            break;
        case LineReader::Status::Line:
            if (!line.empty())
                m_d->handle(line);
            break;
        }
    }
}

} // namespace lq::core::remote
