// SPDX-License-Identifier: MIT
// `lqctl exporter --listen ADDR:PORT PATH...`: the metrics of `stats
// --prometheus` for many queue files and folders over HTTP, served by
// prometheus-cpp's pull module (civetweb). The exposition is the one
// prometheusText() writes (output.cpp), parsed into metric families, plus
// lq_up, lq_refresh_age_seconds and lq_refresh_duration_seconds per queue.
//
// A scrape never reads a queue file: each file is refreshed in the
// background by a thread of its own (a slow or locked file delays no
// other), when it changed and at its pace (refreshLoop()), and a scrape
// answers at once with the last values read. The reads are the chunked, read-only ones of
// core::Queue, so a writer waits at most one chunk of rows for us.
#include "commands.h"
#include "output.h"

#include <core/formats/queueformat.h>

#include <core/filestamp.h>
#include <core/fleet.h>
#include <core/pacing.h>
#include <core/readwaits.h>

#include <CivetServer.h>
#include <civetweb.h>
#include <prometheus/collectable.h>
#include <prometheus/exposer.h>
#include <prometheus/metric_family.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

namespace lq::ctl {

namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;
using Clock = std::chrono::steady_clock;

// ---- the text exposition, back into families --------------------------------

std::string unescapeLabel(std::string_view v) {
    std::string out;
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (v[i] == '\\' && i + 1 < v.size()) {
            ++i;
            out += v[i] == 'n' ? '\n' : v[i];
        } else {
            out += v[i];
        }
    }
    return out;
}

/// `name{k="v",...} value` -> name, labels, value.
bool parseSample(std::string_view line, std::string& name, std::vector<ClientMetric::Label>& labels,
                 double& value) {
    const auto brace = line.find('{');
    const auto space = line.rfind(' ');
    if (space == std::string_view::npos)
        return false;
    labels.clear();
    if (brace != std::string_view::npos && brace < space) {
        name = std::string(line.substr(0, brace));
        std::size_t i = brace + 1;
        while (i < line.size() && line[i] != '}') {
            const auto eq = line.find("=\"", i);
            if (eq == std::string_view::npos)
                return false;
            std::size_t j = eq + 2;
            while (j < line.size() && line[j] != '"')
                j += line[j] == '\\' ? 2 : 1;
            labels.push_back({std::string(line.substr(i, eq - i)),
                              unescapeLabel(line.substr(eq + 2, j - eq - 2))});
            i = j + 1;
            if (i < line.size() && line[i] == ',')
                ++i;
        }
    } else {
        name = std::string(line.substr(0, space));
    }
    const std::string v(line.substr(space + 1));
    value = v == "NaN" ? std::nan("") : std::strtod(v.c_str(), nullptr);
    return true;
}

ClientMetric& summaryFor(MetricFamily& f, const std::vector<ClientMetric::Label>& labels) {
    for (auto& m : f.metric) {
        if (m.label == labels)
            return m;
    }
    f.metric.emplace_back();
    f.metric.back().label = labels;
    return f.metric.back();
}

/// The exposition prometheusText() writes (gauges and summaries) as families.
std::vector<MetricFamily> parseExposition(const std::string& text) {
    std::vector<MetricFamily> families;
    std::size_t start = 0;
    std::string name;
    std::vector<ClientMetric::Label> labels;
    while (start < text.size()) {
        const auto end = std::min(text.find('\n', start), text.size());
        const std::string_view line(text.data() + start, end - start);
        start = end + 1;
        if (line.starts_with("# HELP ")) {
            const auto rest = line.substr(7);
            const auto sp = rest.find(' ');
            families.push_back(
                {std::string(rest.substr(0, sp)),
                 sp == std::string_view::npos ? std::string() : std::string(rest.substr(sp + 1)),
                 MetricType::Gauge,
                 {}});
            continue;
        }
        if (line.starts_with("# TYPE ") && !families.empty()) {
            families.back().type = line.ends_with(" summary")   ? MetricType::Summary
                                   : line.ends_with(" counter") ? MetricType::Counter
                                                                : MetricType::Gauge;
            continue;
        }
        double value = 0;
        if (line.empty() || line.front() == '#' || families.empty() ||
            !parseSample(line, name, labels, value))
            continue;
        MetricFamily& f = families.back();
        if (f.type != MetricType::Summary) {
            ClientMetric m;
            m.label = labels;
            m.gauge.value = value;
            m.counter.value = value;
            f.metric.push_back(std::move(m));
            continue;
        }
        if (name == f.name) {
            const auto q = std::find_if(labels.begin(), labels.end(),
                                        [](const auto& l) { return l.name == "quantile"; });
            if (q == labels.end())
                continue;
            const double quantile = std::strtod(q->value.c_str(), nullptr);
            labels.erase(q);
            summaryFor(f, labels).summary.quantile.push_back({quantile, value});
        } else if (name == f.name + "_sum") {
            summaryFor(f, labels).summary.sample_sum = value;
        } else if (name == f.name + "_count") {
            summaryFor(f, labels).summary.sample_count = static_cast<std::uint64_t>(value);
        }
    }
    return families;
}

// ---- the queues, refreshed in the background --------------------------------------

/// The last values read of one file. Written by its refresher, read by a
/// scrape, under `mutex`.
struct Entry {
    std::mutex mutex;
    bool valid = false;
    Clock::time_point at;
    std::vector<PromQueue> queues; ///< one per queue table
    bool up = false;
    bool notAQueue = false; ///< a file of a folder that holds no queue: left out
    double seconds = 0;
    std::string error;
};

class QueueMetrics : public prometheus::Collectable {
public:
    QueueMetrics(std::vector<std::string> paths, const Options& o)
        : m_paths(std::move(paths))
        , m_opts(o) {
        m_lister = std::thread([this] { listLoop(); });
    }

    ~QueueMetrics() override {
        {
            std::lock_guard lock(m_stopMutex);
            m_stop = true;
        }
        m_wake.notify_all();
        if (m_lister.joinable())
            m_lister.join();
        std::lock_guard lock(m_mapMutex);
        for (auto& [path, r] : m_refreshers)
            if (r.thread.joinable())
                r.thread.join();
    }
    QueueMetrics(const QueueMetrics&) = delete;
    QueueMetrics& operator=(const QueueMetrics&) = delete;

    /// Waits until every file known has been read once (the exporter's
    /// first scrape then has values); false after `limit`.
    bool waitFirstRefresh(std::chrono::milliseconds limit) const {
        const auto end = Clock::now() + limit;
        while (Clock::now() < end && !stopRequested()) {
            if (m_listed.load()) {
                bool all = true;
                for (const auto& [path, inFolder] : currentFiles()) {
                    (void)inFolder;
                    const auto e = entry(path);
                    std::lock_guard lock(e->mutex);
                    all = all && e->valid;
                }
                if (all)
                    return true;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        return false;
    }

    std::vector<MetricFamily> Collect() const override {
        const core::TimeNs now = core::systemNowNs();
        std::vector<PromQueue> queues;
        MetricFamily up{"lq_up",
                        "1 when the queue file could be read at its last refresh.",
                        MetricType::Gauge,
                        {}};
        MetricFamily took{"lq_refresh_duration_seconds",
                          "Time the last background refresh of the queue file took.",
                          MetricType::Gauge,
                          {}};
        MetricFamily age{"lq_refresh_age_seconds",
                         "Age of the values served for the queue file (refreshed every "
                         "--interval in the background; a scrape never reads the file).",
                         MetricType::Gauge,
                         {}};
        // The same duration under its former name, for dashboards made with it.
        MetricFamily scrape{"lq_scrape_duration_seconds",
                            "Time the last refresh of the queue file took (as "
                            "lq_refresh_duration_seconds).",
                            MetricType::Gauge,
                            {}};
        for (const auto& [path, inFolder] : currentFiles()) {
            const auto e = entry(path);
            std::lock_guard lock(e->mutex);
            if (!e->valid || (inFolder && e->notAQueue))
                continue; // not read yet; or like lqctl fleet: not a queue, not a target
            queues.insert(queues.end(), e->queues.begin(), e->queues.end());
            ClientMetric m;
            m.label = {{"queue", shownFile(path)}};
            m.gauge.value = e->up ? 1 : 0;
            up.metric.push_back(m);
            m.gauge.value = e->seconds;
            took.metric.push_back(m);
            scrape.metric.push_back(m);
            m.gauge.value = e->valid ? std::chrono::duration<double>(Clock::now() - e->at).count()
                                     : std::nan("");
            age.metric.push_back(m);
        }
        auto families =
            parseExposition(prometheusText(queues, m_opts.stuckAfterSeconds, now, true));
        families.push_back(std::move(up));
        families.push_back(std::move(took));
        families.push_back(std::move(age));
        families.push_back(std::move(scrape));
        families.push_back(readWaitFamily());
        return families;
    }

private:
    /// What this exporter's reads gave way to the workers, in WAL mode
    /// (core/readwaits.h): a counter that grows while the workers write.
    static MetricFamily readWaitFamily() {
        MetricFamily f{"lq_read_wait_seconds_total",
                       "Seconds the exporter's reads of WAL-mode files waited for the "
                       "workers: for the WAL to move away from their next checkpoint "
                       "(reason=\"checkpoint\"), or for the file's turn: a pause after a writer "
                       "committed during a read, or another of its reads (reason=\"turn\").",
                       MetricType::Counter,
                       {}};
        const core::ReadWaits w = core::readWaits();
        for (const auto& [reason, ns] :
             {std::pair{"checkpoint", w.checkpoint}, std::pair{"turn", w.turn}}) {
            ClientMetric m;
            m.label = {{"reason", reason}};
            m.counter.value = std::chrono::duration<double>(ns).count();
            f.metric.push_back(m);
        }
        return f;
    }

    /// A file's queues kept open from one refresh to the next: a re-read
    /// then takes the key ranges that did not change from the queue's
    /// cache (core/timingcache.h). Opened again when the file was replaced
    /// (another inode) or a read failed.
    struct Opened {
        std::uint64_t device = 0, inode = 0;
        std::shared_ptr<core::QueueBackend> file;
        std::map<std::string, std::shared_ptr<core::QueueBackend>> tables; ///< the others
    };

    struct Refresher {
        std::thread thread;
        std::shared_ptr<std::atomic_bool> gone; ///< the file left the list
        std::shared_ptr<std::atomic_bool> done; ///< the thread has returned
    };

    std::chrono::duration<double> interval() const {
        return std::chrono::duration<double>(m_opts.interval);
    }

    /// Sleeps `d` or until the exporter stops; false when it stops.
    bool sleepFor(std::chrono::duration<double> d) const {
        std::unique_lock lock(m_stopMutex);
        return !m_wake.wait_for(lock, d, [this] { return m_stop || stopRequested(); });
    }

    /// Lists the files named and the queue candidates of the folders named,
    /// again every --interval (new files appear, deleted ones go), and gives
    /// each new file its refresher.
    void listLoop() {
        do {
            auto files = listFiles();
            {
                std::lock_guard lock(m_mapMutex);
                m_files = files;
                for (const auto& file : files) {
                    const std::string& path = file.first;
                    if (!m_entries.count(path))
                        m_entries[path] = std::make_shared<Entry>();
                    if (!m_refreshers.count(path)) {
                        auto gone = std::make_shared<std::atomic_bool>(false);
                        auto done = std::make_shared<std::atomic_bool>(false);
                        m_refreshers[path] = {
                            std::thread([this, path, e = m_entries[path], gone, done] {
                                refreshLoop(path, *e, *gone);
                                done->store(true);
                            }),
                            gone, done};
                    }
                }
                // Files that are gone: their refresher ends, their values go.
                for (auto it = m_refreshers.begin(); it != m_refreshers.end();) {
                    if (std::none_of(files.begin(), files.end(),
                                     [&](const auto& f) { return f.first == it->first; })) {
                        it->second.gone->store(true);
                        m_finished.push_back(std::move(it->second));
                        m_entries.erase(it->first);
                        it = m_refreshers.erase(it);
                    } else {
                        ++it;
                    }
                }
                // The refreshers of gone files that have returned.
                std::erase_if(m_finished, [](Refresher& r) {
                    if (!r.done->load())
                        return false;
                    r.thread.join();
                    return true;
                });
            }
            m_listed.store(true);
            m_wake.notify_all();
        } while (sleepFor(interval()));
        std::lock_guard lock(m_mapMutex);
        for (auto& r : m_finished)
            if (r.thread.joinable())
                r.thread.join();
    }

    /// Refreshes `path` while it is listed: when the file or its -wal
    /// changed (stat), or once a minute (ages and due times move with the
    /// clock alone), and never sooner than its pace allows
    /// (core/pacing.h): a big file under busy workers is re-read after a
    /// rest of a multiple of what its last read cost, and
    /// lq_refresh_age_seconds says how old its values are.
    void refreshLoop(const std::string& path, Entry& e, const std::atomic_bool& gone) const {
        if (!core::isLocalPath(path)) {
            databaseLoop(path, e, gone);
            return;
        }
        constexpr core::TimeNs kUnchangedNs = 60 * core::kNsPerSecond;
        core::ReadPacer pacer;
        std::optional<std::pair<core::FileStamp, core::FileStamp>> read;
        core::TimeNs readAt = 0;
        Opened opened;
        do {
            if (gone.load())
                return;
            // Taken before the read: a write during it is a change next time.
            const std::pair stamps{core::fileStamp(path), core::fileStamp(path + "-wal")};
            const core::TimeNs now = core::steadyNowNs();
            const bool due = !read || stamps != *read || now - readAt >= kUnchangedNs;
            if (!due || pacer.waitAt(now) > 0)
                continue;
            const auto t0 = Clock::now();
            Read fresh = readFile(path, opened);
            pacer.setFactor(fresh.pacingFactor);
            store(e, std::move(fresh), t0);
            const core::TimeNs end = core::steadyNowNs();
            pacer.ran(now, end);
            read = stamps;
            readAt = end;
        } while (sleepFor(interval()) && !gone.load());
    }

    std::vector<std::pair<std::string, bool>> currentFiles() const {
        std::lock_guard lock(m_mapMutex);
        return m_files;
    }

    /// The files named, and every queue candidate of the folders named.
    /// Each with whether it was found in a folder.
    std::vector<std::pair<std::string, bool>> listFiles() const {
        std::vector<std::pair<std::string, bool>> out;
        for (const auto& p : m_paths) {
            std::error_code ec;
            if (std::filesystem::is_directory(p, ec)) {
                try {
                    for (auto& f : core::fleetCandidates(p))
                        out.emplace_back(absolutePath(f), true);
                } catch (const core::Error&) {
                    out.emplace_back(absolutePath(p), false); // reported as down
                }
            } else {
                out.emplace_back(absolutePath(p), false);
            }
        }
        return out;
    }

    std::shared_ptr<Entry> entry(const std::string& path) const {
        std::lock_guard lock(m_mapMutex);
        auto& e = m_entries[path];
        if (!e)
            e = std::make_shared<Entry>();
        return e;
    }

    /// What one refresh read: the queues, or why none.
    struct Read {
        std::vector<PromQueue> queues;
        bool up = false;
        bool notAQueue = false;
        std::string error;
        /// The backend's pace (QueueBackend::readPacingFactor).
        std::int64_t pacingFactor = core::ReadPacing::kRollbackFactor;
    };

    static Read failed(const core::Error& ex) {
        Read r;
        r.notAQueue = ex.kind() == core::ErrorKind::NotAQueue ||
                      ex.kind() == core::ErrorKind::Unsupported ||
                      ex.kind() == core::ErrorKind::Corrupt;
        r.error = ex.what();
        return r;
    }

    /// Reads file `path`: one series per queue table of a multi-table file;
    /// a format that keeps one queue in several tables (backlite) is one.
    Read readFile(const std::string& path, Opened& opened) const {
        Read r;
        if (const core::FileStamp now = core::fileStamp(path);
            now.device != opened.device || now.inode != opened.inode) {
            opened = Opened{};
            opened.device = now.device;
            opened.inode = now.inode;
        }
        try {
            Options one = m_opts;
            one.file = path;
            one.now.reset();
            one.busyTimeoutMs = std::min(m_opts.busyTimeoutMs, 1000);
            // Through the backend seam, as `stats --prometheus` reads it.
            if (!opened.file)
                opened.file = openBackendFor(one, false);
            core::QueueBackend& q = *opened.file;
            r.pacingFactor = q.readPacingFactor();
            std::vector<std::string> tables = {q.info().table};
            if (core::QueueFormat::of(q.info()).multiTable())
                tables = q.info().queueTables;
            for (const auto& t : tables) {
                std::shared_ptr<core::QueueBackend>& tq = opened.tables[t];
                if (t != q.info().table && !tq) {
                    one.table = t;
                    tq = openBackendFor(one, false);
                }
                core::QueueBackend& qq = tq ? *tq : q;
                r.queues.push_back(promQueueOf(qq, qq.countsAndStats(m_opts.stuckAfterNs())));
            }
            r.up = true;
        } catch (const core::Error& ex) {
            opened = Opened{};
            return failed(ex);
        } catch (const std::exception& ex) {
            opened = Opened{};
            r.error = ex.what();
        }
        return r;
    }

    /// Reads a queue in a database through its open backend, as `stats
    /// --prometheus` does.
    Read readDatabase(core::QueueBackend& db) const {
        Read r;
        r.queues.push_back(promQueueOf(db, db.countsAndStats(m_opts.stuckAfterNs())));
        r.up = true;
        return r;
    }

    /// Swaps what a refresh that began at `t0` read into `out`: a scrape
    /// meanwhile served the previous values.
    static void store(Entry& out, Read r, Clock::time_point t0) {
        std::lock_guard lock(out.mutex);
        if (!r.error.empty() && out.error != r.error)
            err("lqctl exporter: " + terminalSafe(r.error) + "\n");
        out.queues = std::move(r.queues);
        out.up = r.up;
        out.notAQueue = r.notAQueue;
        out.error = std::move(r.error);
        out.at = Clock::now();
        out.valid = true;
        out.seconds = std::chrono::duration<double>(out.at - t0).count();
    }

    /// A queue in a database (postgresql://), watched as the sidebar
    /// watches it (core::WatchedDatabase): one session kept open, idle
    /// between refreshes, the queue read again when its change marker
    /// moved, or once a minute. A session that failed is opened again at
    /// the next interval; meanwhile the queue is down.
    void databaseLoop(const std::string& url, Entry& e, const std::atomic_bool& gone) const {
        constexpr core::TimeNs kUnchangedNs = 60 * core::kNsPerSecond;
        core::WatchedDatabase db(url, true, "lqctl");
        do {
            if (gone.load())
                return;
            const auto t0 = Clock::now();
            try {
                if (!db.due(0, kUnchangedNs))
                    continue;
                store(e, readDatabase(db.backend()), t0);
                db.read();
            } catch (const core::Error& ex) {
                db.reset();
                store(e, failed(ex), t0);
            }
        } while (sleepFor(interval()) && !gone.load());
    }

    std::vector<std::string> m_paths;
    Options m_opts;
    mutable std::mutex m_mapMutex;
    mutable std::map<std::string, std::shared_ptr<Entry>> m_entries;
    std::vector<std::pair<std::string, bool>> m_files;
    std::map<std::string, Refresher> m_refreshers;
    std::vector<Refresher> m_finished;
    std::atomic_bool m_listed{false};
    mutable std::mutex m_stopMutex;
    mutable std::condition_variable m_wake;
    bool m_stop = false;
    std::thread m_lister;
};

/// /metrics only: civetweb would serve /metrics/anything with the /metrics
/// handler; every other path is answered 404 before it gets there.
int onlyMetrics(mg_connection* conn) {
    const mg_request_info* ri = mg_get_request_info(conn);
    if (ri && ri->local_uri && std::string_view(ri->local_uri) == "/metrics")
        return 0;
    mg_send_http_error(conn, 404, "%s", "Not found: this exporter serves /metrics only.\n");
    return 404;
}

} // namespace

int cmdExporter(const Options& o) {
    if (o.listen.empty())
        throw UsageError("exporter: --listen ADDR:PORT is required (e.g. 127.0.0.1:9187)");
    std::vector<std::string> paths = {o.file};
    paths.insert(paths.end(), o.args.begin(), o.args.end());
    for (const auto& p : paths) {
        if (core::remote::isRemoteUrl(p))
            throw UsageError("exporter: run the exporter on the host of " + p);
    }
    installStopHandlers();
    auto metrics = std::make_shared<QueueMetrics>(paths, o);
    std::unique_ptr<prometheus::Exposer> exposer;
    try {
        static CivetCallbacks callbacks;
        callbacks.begin_request = onlyMetrics;
        exposer = std::make_unique<prometheus::Exposer>(o.listen, 4, &callbacks);
    } catch (const std::exception& e) {
        throw core::Error(core::ErrorKind::Io, o.listen,
                          std::string("cannot listen there: ") + e.what());
    }
    // The first scrape has values: every file read once, or 30 s passed
    // (a file locked longer is served as down until it can be read).
    metrics->waitFirstRefresh(std::chrono::seconds(30));
    exposer->RegisterCollectable(metrics, "/metrics");
    const auto ports = exposer->GetListeningPorts();
    const std::string host = o.listen.substr(0, o.listen.rfind(':'));
    err("lqctl exporter: serving http://" + host + ":" +
        (ports.empty() ? std::string("?") : std::to_string(ports.front())) + "/metrics for " +
        plural(static_cast<std::int64_t>(paths.size()), "path", "paths") + "\n");
    while (!stopRequested())
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    return ExitOk;
}

} // namespace lq::ctl
