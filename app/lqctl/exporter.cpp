// SPDX-License-Identifier: MIT
// `lqctl exporter --listen ADDR:PORT PATH...`: the metrics of `stats
// --prometheus` for many queue files and folders over HTTP, served by
// prometheus-cpp's pull module (civetweb). The exposition is the one
// prometheusText() writes (output.cpp), parsed into metric families, plus
// lq_up and lq_scrape_duration_seconds per queue. Every file is read at most
// once per --interval, with a read-only connection that holds no lock
// between statements, so writers never wait for a scrape.
#include "commands.h"
#include "output.h"

#include <core/formats/queueformat.h>

#include <core/fleet.h>

#include <CivetServer.h>
#include <civetweb.h>
#include <prometheus/collectable.h>
#include <prometheus/exposer.h>
#include <prometheus/metric_family.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <mutex>
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

// ---- the queues, cached ----------------------------------------------------------

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
        , m_opts(o) {}

    std::vector<MetricFamily> Collect() const override {
        const core::TimeNs now = core::systemNowNs();
        std::vector<PromQueue> queues;
        MetricFamily up{"lq_up",
                        "1 when the queue file could be read at the last refresh.",
                        MetricType::Gauge,
                        {}};
        MetricFamily took{"lq_scrape_duration_seconds",
                          "Time the last refresh of the queue file took (it is cached for "
                          "--interval seconds).",
                          MetricType::Gauge,
                          {}};
        const auto files = this->files();
        for (const auto& [path, inFolder] : files) {
            const auto e = entry(path);
            std::lock_guard lock(e->mutex);
            if (!e->valid || Clock::now() - e->at > minInterval())
                refresh(path, *e);
            if (inFolder && e->notAQueue)
                continue; // like lqctl fleet and --watch: not a queue, not a target
            queues.insert(queues.end(), e->queues.begin(), e->queues.end());
            ClientMetric m;
            m.label = {{"queue", path}};
            m.gauge.value = e->up ? 1 : 0;
            up.metric.push_back(m);
            m.gauge.value = e->seconds;
            took.metric.push_back(m);
        }
        forget(files);
        auto families =
            parseExposition(prometheusText(queues, m_opts.stuckAfterSeconds, now, true));
        families.push_back(std::move(up));
        families.push_back(std::move(took));
        return families;
    }

private:
    std::chrono::duration<double> minInterval() const {
        return std::chrono::duration<double>(m_opts.interval);
    }

    /// The files named, and every queue candidate of the folders named
    /// (listed again at every scrape: new files appear, deleted ones go).
    /// Each with whether it was found in a folder.
    std::vector<std::pair<std::string, bool>> files() const {
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

    /// Drops the cache of files that are gone: memory stays bounded.
    void forget(const std::vector<std::pair<std::string, bool>>& files) const {
        std::lock_guard lock(m_mapMutex);
        for (auto it = m_entries.begin(); it != m_entries.end();) {
            if (std::none_of(files.begin(), files.end(),
                             [&](const auto& f) { return f.first == it->first; }))
                it = m_entries.erase(it);
            else
                ++it;
        }
    }

    void refresh(const std::string& path, Entry& e) const {
        const auto t0 = Clock::now();
        e.queues.clear();
        try {
            Options one = m_opts;
            one.file = path;
            one.now.reset();
            one.busyTimeoutMs = std::min(m_opts.busyTimeoutMs, 1000);
            auto q = openQueue(one, false);
            // One series per queue table of a multi-table file; a format
            // that keeps one queue in several tables (backlite) is one queue.
            std::vector<std::string> tables = {q->info().table};
            if (core::QueueFormat::of(q->info()).multiTable())
                tables = q->info().queueTables;
            for (const auto& t : tables) {
                std::unique_ptr<core::Queue> tq;
                if (t != q->info().table) {
                    one.table = t;
                    tq = openQueue(one, false);
                }
                core::Queue& qq = tq ? *tq : *q;
                PromQueue pq;
                pq.path = path;
                pq.info = qq.info();
                pq.counts = qq.counts(m_opts.stuckAfterNs());
                pq.stats = qq.stats();
                pq.fileSize = qq.fileSize();
                pq.walSize = qq.walSize();
                pq.namedQueues = namedQueueCounts(qq, m_opts.stuckAfterNs());
                e.queues.push_back(std::move(pq));
            }
            e.up = true;
            e.notAQueue = false;
            e.error.clear();
        } catch (const core::Error& ex) {
            e.notAQueue = ex.kind() == core::ErrorKind::NotAQueue ||
                          ex.kind() == core::ErrorKind::Unsupported ||
                          ex.kind() == core::ErrorKind::Corrupt;
            if (e.error != ex.what())
                err("lqctl exporter: " + terminalSafe(ex.what()) + "\n");
            e.queues.clear();
            e.up = false;
            e.error = ex.what();
        } catch (const std::exception& ex) {
            if (e.error != ex.what())
                err("lqctl exporter: " + terminalSafe(ex.what()) + "\n");
            e.queues.clear();
            e.up = false;
            e.error = ex.what();
        }
        e.at = Clock::now();
        e.valid = true;
        e.seconds = std::chrono::duration<double>(e.at - t0).count();
    }

    std::vector<std::string> m_paths;
    Options m_opts;
    mutable std::mutex m_mapMutex;
    mutable std::map<std::string, std::shared_ptr<Entry>> m_entries;
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
