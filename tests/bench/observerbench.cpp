// SPDX-License-Identifier: MIT
// lqbench observer (issue 38, "looking costs the workers nothing"): a
// monitor must never slow down the workers of the queue it watches.
//
// Each format's fixture is grown to N jobs (formatprofiles.cpp's SQL; Laravel
// in journal mode DELETE, its default; Solid Queue in WAL), once per N and
// kept in --dir. Every run starts from a fresh copy of it, starts the
// observers (lqadmin, its Dashboard tab, lqctl watch, lqctl exporter scraped
// every second, lqadmin's fleet sidebar on the folder; `a+b` both at once),
// gives them a warm-up, then runs the format's real worker flat out and a
// producer at a fixed rate for S seconds (observer/laravel_worker.php on
// Debian's php-illuminate-queue; observer/solidqueue_worker.py with Solid
// Queue's statements). The workers time every write; the runs with
// observers are compared with the runs alone (first and last, their mean).
#include "observerbench.h"
#include "formatprofiles.h"
#include "growfile.h"
#include "launchbench.h"

#include "core/json.h"

#include <QCoreApplication>
#include <QProcess>
#include <QProcessEnvironment>
#include <QStandardPaths>
#include <QThread>

#include <sqlite3.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace lq::bench {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using core::Json;

/// What the exporter's scrapes and the ratios are held to (issue 38).
constexpr double kSlowestPlusMs = 50;
constexpr double kP99Factor = 1.2;
constexpr double kJobsFactor = 0.95;
constexpr double kWalFactor = 1.1;
constexpr double kScrapeMs = 50;

double secondsSince(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

void sleepMs(int ms) {
    QThread::msleep(static_cast<unsigned long>(ms));
}

struct Format {
    const char* name;     ///< --formats
    const char* profile;  ///< formatProfiles() id
    const char* fixture;  ///< file name in tests/data/formats
    const char* journal;  ///< the journal mode of the grown file
    const char* runtime;  ///< the interpreter of the worker script
    const char* script;   ///< in tests/bench/observer
    const char* countSql; ///< jobs stored
    const char* maxIdSql; ///< the last job id before growing
    /// Run after growing ("{base}": that last id), so the worker flat out
    /// cannot run out of work within a run; empty when the profile's
    /// backlog is large enough already.
    const char* topUp;
    const char* backlogSql; ///< jobs the worker can take
};

const std::vector<Format>& formatTable() {
    static const std::vector<Format> f = {
        // The grown backlog: 95 % of N available, a third of it on the queue
        // `default` the worker pops (Laravel's default).
        {"laravel", "laravel-database", "laravel-database.sqlite3", "delete", "php",
         "laravel_worker.php", "SELECT count(*) FROM jobs", "SELECT coalesce(max(id), 0) FROM jobs",
         "",
         "SELECT count(*) FROM jobs WHERE queue = 'default' AND ((reserved_at IS NULL AND "
         "available_at <= CAST(strftime('%s', 'now') AS INTEGER)) OR reserved_at <= "
         "CAST(strftime('%s', 'now') AS INTEGER) - 90)"},
        // The grown file has 5 % of N ready, and the fixture pauses one of
        // its three queues: 33,000 claimable jobs in a 1,000,000-job file,
        // while the worker flat out does up to 5,600 jobs/s here (170,000 in
        // 30 s). 45 more points of the finished history are made ready again
        // (finished_at cleared, a ready execution inserted): 50 % ready,
        // 333,000 claimable at 1,000,000 jobs, 67,000 at 200,000.
        {"solidqueue", "solid-queue", "solid-queue.sqlite3", "wal", "python3",
         "solidqueue_worker.py", "SELECT count(*) FROM solid_queue_jobs",
         "SELECT coalesce(max(id), 0) FROM solid_queue_jobs",
         "UPDATE solid_queue_jobs SET finished_at = NULL WHERE id > {base} AND (id - {base}) % 100 "
         "BETWEEN 45 AND 89; INSERT INTO solid_queue_ready_executions (job_id, queue_name, "
         "priority, created_at) SELECT id, queue_name, priority, created_at FROM solid_queue_jobs "
         "WHERE id > {base} AND (id - {base}) % 100 BETWEEN 45 AND 89",
         "SELECT count(*) FROM solid_queue_ready_executions WHERE queue_name NOT IN (SELECT "
         "queue_name FROM solid_queue_pauses)"},
    };
    return f;
}

const Format* findFormat(const std::string& name) {
    for (const Format& f : formatTable())
        if (name == f.name)
            return &f;
    return nullptr;
}

bool knownObserver(const std::string& k) {
    for (const char* n : {"lqadmin", "dashboard", "watch", "exporter", "fleet"})
        if (k == n)
            return true;
    return false;
}

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::string part;
    std::istringstream in(s);
    while (std::getline(in, part, sep))
        out.push_back(part);
    return out;
}

std::string readFile(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

/// The end of a log, for error messages.
std::string tail(const std::string& path, std::size_t n = 1500) {
    const std::string s = readFile(path);
    return s.size() > n ? "..." + s.substr(s.size() - n) : s;
}

// ---- files ----------------------------------------------------------------

std::int64_t fileSize(const std::string& path) {
    std::error_code ec;
    const auto n = fs::file_size(path, ec);
    return ec ? 0 : static_cast<std::int64_t>(n);
}

void removeDb(const std::string& path) {
    for (const char* suffix : {"", "-wal", "-shm", "-journal"})
        fs::remove(path + suffix);
}

/// Writes a file (or a folder) through to the disk.
void syncPath(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ::fsync(fd);
        ::close(fd);
    }
}

/// Copies a database file with its -wal and -shm when present, and writes
/// the copy through: the writeback of hundreds of MB would otherwise run
/// during the measurement, beside the workers' own fsyncs.
void copyDb(const std::string& from, const std::string& to) {
    removeDb(to);
    fs::copy_file(from, to);
    for (const char* suffix : {"-wal", "-shm"})
        if (fs::exists(from + suffix))
            fs::copy_file(from + suffix, to + suffix);
    for (const char* suffix : {"", "-wal", "-shm"})
        if (fs::exists(to + suffix))
            syncPath(to + suffix);
    syncPath(fs::path(to).parent_path().string());
}

/// The first column of the first row of `sql` on our own copy of a file.
std::string scalar(const std::string& path, const std::string& sql) {
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
        sqlite3_close(db);
        throw std::runtime_error("cannot open " + path);
    }
    sqlite3_busy_timeout(db, 10000);
    sqlite3_stmt* st = nullptr;
    std::string v;
    int rc = sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr);
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(st);
        if (rc == SQLITE_ROW && sqlite3_column_text(st, 0))
            v = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    }
    const std::string error = sqlite3_errmsg(db);
    sqlite3_finalize(st);
    sqlite3_close(db);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        throw std::runtime_error(error + " in: " + sql + " (" + path + ")");
    return v;
}

struct Grown {
    std::string path;
    std::int64_t jobs = 0;
    std::int64_t backlog = 0; ///< what the worker can take at the start of a run
    bool reused = false;
    double growS = 0;
};

/// The fixture grown by `rows` jobs in `dir`, in the format's journal mode:
/// the file of an earlier run when it holds the right number of jobs.
Grown prepareGrown(const ObserverOptions& o, const Format& f) {
    const std::string fixture = (fs::path(o.fixtures) / f.fixture).string();
    const std::string master =
        (fs::path(o.dir) / (std::string(f.profile) + "-" + std::to_string(o.rows) + ".sqlite3"))
            .string();
    const std::string probe =
        (fs::path(o.dir) / (std::string(f.profile) + "-fixture.sqlite3")).string();
    copyDb(fixture, probe);
    const std::int64_t want = std::stoll(scalar(probe, f.countSql)) + o.rows;
    const std::string base = scalar(probe, f.maxIdSql);
    removeDb(probe);

    if (o.noCache)
        removeDb(master);
    if (fs::exists(master)) {
        try {
            if (std::stoll(scalar(master, f.countSql)) == want &&
                scalar(master, "PRAGMA journal_mode") == f.journal)
                return {master, want, std::stoll(scalar(master, f.backlogSql)), true, 0};
        } catch (const std::exception& e) {
            std::fprintf(stderr, "lqbench observer: %s\n", e.what());
        }
        std::fprintf(stderr,
                     "lqbench observer: %s is not %lld jobs in journal mode %s: grown again\n",
                     master.c_str(), static_cast<long long>(want), f.journal);
    }
    const std::string part = master + ".part";
    copyDb(fixture, part);
    const auto t0 = Clock::now();
    const auto it = formatProfiles().find(f.profile);
    if (it == formatProfiles().end())
        throw std::runtime_error(std::string("no grow profile for ") + f.profile);
    std::fprintf(stderr, "lqbench observer: growing %s by %ld jobs...\n", f.fixture, o.rows);
    grow(part, it->second, o.rows);
    if (*f.topUp) {
        for (std::string sql : split(f.topUp, ';')) {
            for (std::size_t at; (at = sql.find("{base}")) != std::string::npos;)
                sql.replace(at, 6, base);
            scalar(part, sql);
        }
    }
    const std::string mode = scalar(part, std::string("PRAGMA journal_mode=") + f.journal);
    if (mode != f.journal)
        throw std::runtime_error("journal mode " + mode + " instead of " + f.journal);
    if (std::string(f.journal) == "wal")
        scalar(part, "PRAGMA wal_checkpoint(TRUNCATE)");
    removeDb(master);
    fs::rename(part, master);
    for (const char* suffix : {"-wal", "-shm"})
        if (fs::exists(part + suffix))
            fs::rename(part + suffix, master + suffix);
    syncPath(master);
    syncPath(o.dir);
    Grown g{master, std::stoll(scalar(master, f.countSql)),
            std::stoll(scalar(master, f.backlogSql)), false, secondsSince(t0)};
    if (g.jobs != want)
        throw std::runtime_error("grown file holds " + std::to_string(g.jobs) + " jobs, not " +
                                 std::to_string(want));
    std::fprintf(stderr, "lqbench observer: grown in %.1f s: %s\n", g.growS, master.c_str());
    return g;
}

// ---- child processes ------------------------------------------------------

/// Every child of a run: stopped (TERM, then KILL) when the run ends, also
/// on an exception; and killed by the kernel if this process dies first.
class Children {
public:
    Children() = default;
    Children(const Children&) = delete;
    Children& operator=(const Children&) = delete;
    ~Children() { stopAll(); }

    QProcess* start(const std::string& program, const QStringList& args,
                    const QProcessEnvironment& env, const std::string& out,
                    const std::string& err) {
        auto p = std::make_unique<QProcess>();
        p->setProcessEnvironment(env);
        p->setStandardInputFile(QProcess::nullDevice());
        p->setStandardOutputFile(out.empty() ? QProcess::nullDevice()
                                             : QString::fromStdString(out));
        p->setStandardErrorFile(QString::fromStdString(err));
        p->setChildProcessModifier([parent = ::getpid()] {
            ::prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (::getppid() != parent)
                ::_exit(127);
        });
        p->start(QString::fromStdString(program), args);
        if (!p->waitForStarted(10000))
            throw std::runtime_error("cannot start " + program + ": " +
                                     p->errorString().toStdString());
        m_procs.push_back(std::move(p));
        return m_procs.back().get();
    }

    static bool running(QProcess* p) {
        return p->state() != QProcess::NotRunning && !p->waitForFinished(0);
    }

    static void stop(QProcess* p) {
        if (p->state() == QProcess::NotRunning)
            return;
        p->terminate();
        if (!p->waitForFinished(3000)) {
            p->kill();
            p->waitForFinished(3000);
        }
    }

    void stopAll() {
        for (auto& p : m_procs)
            stop(p.get());
    }

private:
    std::vector<std::unique_ptr<QProcess>> m_procs;
};

/// CPU seconds (user + system) a process has used, -1 when it is gone.
double cpuSeconds(qint64 pid) {
    std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
    std::string s;
    std::getline(f, s);
    const auto close = s.rfind(')');
    if (close == std::string::npos)
        return -1;
    std::istringstream in(s.substr(close + 2));
    std::vector<std::string> fields;
    for (std::string w; in >> w;)
        fields.push_back(w);
    if (fields.size() < 13)
        return -1;
    // Fields 14 and 15 of stat (utime, stime); the state (3) is fields[0].
    return double(std::stoll(fields[11]) + std::stoll(fields[12])) / double(sysconf(_SC_CLK_TCK));
}

/// The host's CPU seconds so far, all CPUs: busy (user, nice, system, irq,
/// softirq, steal) and waiting for I/O.
struct HostCpu {
    double busyS = 0;
    double iowaitS = 0;
};

HostCpu hostCpu() {
    std::ifstream f("/proc/stat");
    std::string cpu;
    double v[8] = {};
    f >> cpu;
    for (double& x : v)
        f >> x;
    const double tick = double(sysconf(_SC_CLK_TCK));
    return {(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / tick, v[4] / tick};
}

/// One GET /metrics on 127.0.0.1:port; its wall time in ms, or nullopt.
std::optional<double> scrape(int port) {
    const auto t0 = Clock::now();
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return std::nullopt;
    timeval tv{10, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    std::string response;
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
        const std::string req = "GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
        if (::send(fd, req.data(), req.size(), MSG_NOSIGNAL) == ssize_t(req.size())) {
            char buf[16384];
            for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;)
                response.append(buf, std::size_t(n));
        }
    }
    ::close(fd);
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    if (response.rfind("HTTP/1.", 0) != 0 || response.find(" 200 ") == std::string::npos ||
        response.find("lq_") == std::string::npos)
        return std::nullopt;
    return ms;
}

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

QString qtPlatform() {
    const QString env = qEnvironmentVariable("QT_QPA_PLATFORM");
    if (!env.isEmpty())
        return env;
    return qEnvironmentVariableIsEmpty("DISPLAY") ? QStringLiteral("offscreen")
                                                  : QStringLiteral("xcb");
}

/// An observer's environment: a HOME of its own (settings, audit log).
QProcessEnvironment observerEnv(const std::string& home) {
    fs::create_directories(home);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("HOME"), qs(home));
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), qs(home + "/.config"));
    env.insert(QStringLiteral("XDG_DATA_HOME"), qs(home + "/.local/share"));
    env.insert(QStringLiteral("XDG_CACHE_HOME"), qs(home + "/.cache"));
    env.insert(QStringLiteral("XDG_STATE_HOME"), qs(home + "/.local/state"));
    env.insert(QStringLiteral("LQ_AUDIT_DIR"), qs(home + "/audit"));
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), qtPlatform());
    return env;
}

struct Observer {
    std::string kind;
    QProcess* proc = nullptr;
    std::string log;
    int port = 0; ///< the exporter's
    double cpuStart = 0;
    double cpuEnd = 0;
};

/// The port in the exporter's "serving http://HOST:PORT/metrics" line, 0
/// while it has not said it yet.
int exporterPort(const std::string& log) {
    const std::string s = readFile(log);
    const auto at = s.find("serving http://");
    if (at == std::string::npos)
        return 0;
    const auto end = s.find("/metrics", at);
    const auto colon = s.rfind(':', end);
    if (end == std::string::npos || colon == std::string::npos || colon < at)
        return 0;
    return std::atoi(s.substr(colon + 1, end - colon - 1).c_str());
}

// ---- one run --------------------------------------------------------------

struct Waits {
    std::vector<double> ms;
    double p99() const { return percentile(ms, 0.99); }
    double max() const { return ms.empty() ? -1 : *std::max_element(ms.begin(), ms.end()); }
};

struct ScriptResult {
    std::int64_t jobs = 0;
    double elapsedS = 0;
    std::int64_t locked = 0;
    /// Of them, the writes that waited out the busy timeout first (a lock
    /// held that long, by anyone); the others SQLite refused at once (the
    /// deadlock of two writers' deferred transactions, which no busy timeout
    /// waits out and no reader causes by itself).
    std::int64_t lockedWaited = 0;
    std::int64_t errors = 0;
    std::string firstError;
    std::int64_t emptyPops = 0;
    double cpuS = 0;
    Waits waits;
};

ScriptResult parseScript(const std::string& out, const std::string& err, const char* what,
                         int exitCode, int busyTimeoutMs) {
    const std::string text = readFile(out);
    const auto nl = text.find_last_of('\n', text.size() >= 2 ? text.size() - 2 : 0);
    const std::string last = nl == std::string::npos ? text : text.substr(nl + 1);
    Json j;
    try {
        j = Json::parse(last);
    } catch (const std::exception& e) {
        throw std::runtime_error(std::string(what) + " printed no result (exit " +
                                 std::to_string(exitCode) + "): " + e.what() + "\n" + tail(err));
    }
    ScriptResult r;
    r.jobs = j["jobs"].toInt();
    r.elapsedS = j["elapsed_s"].toDouble();
    r.locked = j["locked"].toInt();
    for (const Json& w : j["locked_waits_us"].toArray())
        if (w.toDouble() / 1000.0 >= 0.9 * busyTimeoutMs)
            ++r.lockedWaited;
    r.errors = j["errors"].toInt();
    r.firstError = j["first_error"].isString() ? j["first_error"].toString() : std::string();
    r.emptyPops = j["empty_pops"].toInt();
    r.cpuS = j["cpu_s"].toDouble();
    for (const Json& w : j["waits_us"].toArray())
        r.waits.ms.push_back(w.toDouble() / 1000.0);
    return r;
}

struct RunResult {
    int order = 0;
    std::string observers; ///< "none", "lqadmin", "lqadmin+exporter"
    ScriptResult worker;
    ScriptResult producer;
    std::int64_t walBytes = 0;
    std::int64_t walMaxBytes = 0;
    double observerCpuS = 0;     ///< during the workers' run
    double observerWarmCpuS = 0; ///< during the warm-up
    double warmupS = 0;          ///< how long the warm-up took
    HostCpu host;                ///< the whole machine during the workers' run
    double hostSeconds = 0;      ///< wall time of that
    std::vector<double> scrapesMs;
    int scrapeFailures = 0;
    std::vector<std::string> notes;
    bool observerDied = false;

    bool alone() const { return observers == "none"; }
    /// CPU seconds others (not this run's processes) used meanwhile: a build
    /// beside the benchmark shows here.
    double othersCpuS() const {
        return std::max(0.0, host.busyS - worker.cpuS - producer.cpuS - observerCpuS);
    }
    double jobsPerS() const {
        return worker.elapsedS > 0 ? double(worker.jobs) / worker.elapsedS : 0;
    }
    std::int64_t locked() const { return worker.locked + producer.locked; }
    std::int64_t lockedWaited() const { return worker.lockedWaited + producer.lockedWaited; }
};

RunResult runOnce(const ObserverOptions& o, const Format& f, const Grown& g,
                  const std::string& observers, int order) {
    RunResult r;
    r.order = order;
    r.observers = observers;
    const std::string tag = std::string(f.name) + "-" + std::to_string(order);
    const std::string logs = (fs::path(o.dir) / "logs").string();
    const std::string runDir = (fs::path(o.dir) / "run").string();
    fs::create_directories(logs);
    fs::remove_all(runDir);
    fs::create_directories(runDir);
    const std::string file = (fs::path(runDir) / f.fixture).string();
    copyDb(g.path, file);

    Children kids;
    std::vector<Observer> obs;
    const auto warm0 = Clock::now();
    for (const std::string& kind : split(observers, '+')) {
        if (kind == "none")
            continue;
        Observer ob;
        ob.kind = kind;
        ob.log = logs + "/" + tag + "-" + kind + ".stderr";
        const QProcessEnvironment env = observerEnv(o.dir + "/home/" + tag + "-" + kind);
        QStringList args;
        std::string program = o.lqadmin;
        if (kind == "lqadmin")
            args = {qs(file)};
        else if (kind == "dashboard")
            args = {QStringLiteral("--dashboard"), qs(file)};
        else if (kind == "fleet")
            args = {QStringLiteral("--watch"), qs(runDir)};
        else if (kind == "watch") {
            program = o.lqctl;
            args = {QStringLiteral("watch"), qs(file)};
        } else {
            program = o.lqctl;
            args = {QStringLiteral("exporter"),   qs(file),
                    QStringLiteral("--listen"),   QStringLiteral("127.0.0.1:0"),
                    QStringLiteral("--interval"), QStringLiteral("1")};
        }
        ob.proc = kids.start(program, args, env, "", ob.log);
        obs.push_back(ob);
    }
    // The warm-up: the observers' first read of the file happens here, before
    // the workers start, and the workers start once it is over: at least
    // warmupS, then until the observers used under 20 ms of CPU in the last
    // second (a million-job file's first ordering and counts take seconds
    // on a slow machine; begun beside the workers, they were counted as
    // what watching costs). At most kMaxWarmupS, then the run says so.
    constexpr double kMaxWarmupS = 120;
    double lastCpu = -1;
    auto lastCpuAt = Clock::now();
    const auto observersCpu = [&obs] {
        double sum = 0;
        for (const Observer& ob : obs)
            sum += cpuSeconds(ob.proc->processId());
        return sum;
    };
    for (;;) {
        for (Observer& ob : obs) {
            if (!Children::running(ob.proc))
                throw std::runtime_error(ob.kind + " exited during the warm-up:\n" + tail(ob.log));
            if (ob.kind == "exporter" && ob.port == 0) {
                ob.port = exporterPort(ob.log);
                if (ob.port > 0 && !scrape(ob.port))
                    throw std::runtime_error("the exporter's first scrape failed");
            }
        }
        const bool ports = std::all_of(obs.begin(), obs.end(), [](const Observer& ob) {
            return ob.kind != "exporter" || ob.port > 0;
        });
        if (!ports && secondsSince(warm0) > 60)
            throw std::runtime_error("the exporter did not serve within 60 s");
        if (ports && secondsSince(warm0) >= o.warmupS) {
            if (obs.empty())
                break;
            if (secondsSince(lastCpuAt) >= 1) {
                const double cpu = observersCpu();
                if (lastCpu >= 0 && cpu - lastCpu < 0.02)
                    break;
                lastCpu = cpu;
                lastCpuAt = Clock::now();
            }
            if (secondsSince(warm0) > kMaxWarmupS) {
                r.notes.push_back("the observers were still busy after a warm-up of " +
                                  std::to_string(int(kMaxWarmupS)) + " s");
                break;
            }
        }
        sleepMs(50);
    }
    r.warmupS = secondsSince(warm0);
    for (Observer& ob : obs)
        ob.cpuStart = cpuSeconds(ob.proc->processId());

    const std::string script = (fs::path(o.scripts) / f.script).string();
    const auto scriptArgs = [&](const char* role) {
        QStringList a{qs(script),
                      QString::fromLatin1(role),
                      qs(file),
                      QStringLiteral("--seconds"),
                      QString::number(o.seconds),
                      QStringLiteral("--busy-timeout-ms"),
                      QString::number(std::string(role) == "producer" ? o.producerTimeoutMs()
                                                                      : o.busyTimeoutMs)};
        if (std::string(role) == "producer")
            a << QStringLiteral("--rate") << QString::number(o.rate);
        return a;
    };
    const QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    const std::string wOut = logs + "/" + tag + "-worker.json";
    const std::string wErr = logs + "/" + tag + "-worker.stderr";
    const std::string pOut = logs + "/" + tag + "-producer.json";
    const std::string pErr = logs + "/" + tag + "-producer.stderr";
    const HostCpu host0 = hostCpu();
    QProcess* producer = kids.start(f.runtime, scriptArgs("producer"), env, pOut, pErr);
    QProcess* worker = kids.start(f.runtime, scriptArgs("worker"), env, wOut, wErr);
    const auto run0 = Clock::now();
    double nextTick = 1;
    const std::string wal = file + "-wal";
    while (Children::running(worker) || Children::running(producer)) {
        if (secondsSince(run0) > o.seconds + 120)
            throw std::runtime_error("the worker or the producer did not finish in time");
        // The WAL at the end is its size just before the workers stop: the
        // last connection to close checkpoints it and deletes it.
        const std::int64_t walNow = fileSize(wal);
        r.walMaxBytes = std::max(r.walMaxBytes, walNow);
        if (secondsSince(run0) < o.seconds)
            r.walBytes = walNow;
        if (secondsSince(run0) >= nextTick) {
            nextTick += 1;
            for (const Observer& ob : obs) {
                if (ob.kind != "exporter")
                    continue;
                if (const auto ms = scrape(ob.port))
                    r.scrapesMs.push_back(*ms);
                else
                    ++r.scrapeFailures;
            }
        }
        sleepMs(20);
    }
    const HostCpu host1 = hostCpu();
    r.host = {host1.busyS - host0.busyS, host1.iowaitS - host0.iowaitS};
    r.hostSeconds = secondsSince(run0);
    for (Observer& ob : obs) {
        if (!Children::running(ob.proc)) {
            r.observerDied = true;
            r.notes.push_back(ob.kind + " exited during the run (exit " +
                              std::to_string(ob.proc->exitCode()) + "): " + tail(ob.log, 400));
            continue;
        }
        ob.cpuEnd = cpuSeconds(ob.proc->processId());
        r.observerCpuS += ob.cpuEnd - ob.cpuStart;
        r.observerWarmCpuS += ob.cpuStart;
    }
    kids.stopAll();
    r.worker = parseScript(wOut, wErr, "the worker", worker->exitCode(), o.busyTimeoutMs);
    r.producer =
        parseScript(pOut, pErr, "the producer", producer->exitCode(), o.producerTimeoutMs());
    if (r.worker.emptyPops > 0)
        r.notes.push_back("the worker found nothing to do " + std::to_string(r.worker.emptyPops) +
                          " times (backlog used up)");
    for (const auto* s : {&r.worker, &r.producer})
        if (!s->firstError.empty())
            r.notes.push_back(std::string(s == &r.worker ? "worker" : "producer") + ": " +
                              s->firstError);
    if (!o.keep)
        fs::remove_all(runDir);
    return r;
}

// ---- the figures ----------------------------------------------------------

struct Reference {
    double jobsPerS = 0;
    double slowestMs = 0;
    double p99Ms = 0;
    double walBytes = 0;
    double driftPct = 0; ///< last alone run against the first, jobs/s
    std::vector<int> runs;
};

Reference referenceOf(const std::vector<RunResult>& runs) {
    Reference ref;
    std::vector<const RunResult*> alone;
    for (const RunResult& r : runs)
        if (r.alone())
            alone.push_back(&r);
    if (alone.empty())
        return ref;
    for (const RunResult* r : alone) {
        ref.jobsPerS += r->jobsPerS() / double(alone.size());
        ref.slowestMs += r->worker.waits.max() / double(alone.size());
        ref.p99Ms += r->worker.waits.p99() / double(alone.size());
        ref.walBytes += double(r->walBytes) / double(alone.size());
        ref.runs.push_back(r->order);
    }
    if (alone.size() > 1 && alone.front()->jobsPerS() > 0)
        ref.driftPct = 100.0 * (alone.back()->jobsPerS() / alone.front()->jobsPerS() - 1);
    return ref;
}

struct Verdict {
    double jobsRatio = 0;
    double p99Ratio = 0;
    double slowestDeltaMs = 0;
    std::optional<double> walRatio; ///< none when alone has none
    bool jobsOk = false, p99Ok = false, slowestOk = false, walOk = false;
    std::optional<bool> scrapesOk; ///< runs with the exporter
};

Verdict judge(const RunResult& r, const Reference& ref) {
    Verdict v;
    v.jobsRatio = ref.jobsPerS > 0 ? r.jobsPerS() / ref.jobsPerS : 0;
    v.p99Ratio = ref.p99Ms > 0 ? r.worker.waits.p99() / ref.p99Ms : 0;
    v.slowestDeltaMs = r.worker.waits.max() - ref.slowestMs;
    if (ref.walBytes > 0)
        v.walRatio = double(r.walBytes) / ref.walBytes;
    v.jobsOk = r.jobsPerS() >= kJobsFactor * ref.jobsPerS;
    v.p99Ok = r.worker.waits.p99() <= kP99Factor * ref.p99Ms;
    v.slowestOk = r.worker.waits.max() <= ref.slowestMs + kSlowestPlusMs;
    v.walOk = double(r.walBytes) <= ref.walBytes * kWalFactor;
    if (r.observers.find("exporter") != std::string::npos)
        v.scrapesOk = r.scrapeFailures == 0 && !r.scrapesMs.empty() &&
                      percentile(r.scrapesMs, 1.0) <= kScrapeMs;
    return v;
}

const char* passFail(bool ok) {
    return ok ? "PASS" : "FAIL";
}

Json runJson(const RunResult& r, const Reference& ref) {
    Json j = Json::object();
    j.set("order", r.order);
    j.set("observers", r.observers);
    j.set("jobs", r.worker.jobs);
    j.set("elapsed_s", r.worker.elapsedS);
    j.set("jobs_per_s", r.jobsPerS());
    j.set("writes", static_cast<std::int64_t>(r.worker.waits.ms.size()));
    j.set("slowest_write_ms", r.worker.waits.max());
    j.set("p99_write_ms", r.worker.waits.p99());
    j.set("median_write_ms", median(r.worker.waits.ms));
    j.set("locked", r.locked());
    j.set("locked_after_busy_timeout", r.lockedWaited());
    j.set("locked_at_once", r.locked() - r.lockedWaited());
    j.set("worker_locked", r.worker.locked);
    j.set("worker_locked_after_busy_timeout", r.worker.lockedWaited);
    j.set("producer_locked", r.producer.locked);
    j.set("producer_locked_after_busy_timeout", r.producer.lockedWaited);
    j.set("errors", r.worker.errors + r.producer.errors);
    j.set("worker_empty_pops", r.worker.emptyPops);
    j.set("worker_cpu_s", r.worker.cpuS);
    j.set("producer_jobs", r.producer.jobs);
    j.set("producer_slowest_write_ms", r.producer.waits.max());
    j.set("producer_p99_write_ms", r.producer.waits.p99());
    j.set("wal_bytes", r.walBytes);
    j.set("wal_max_bytes", r.walMaxBytes);
    j.set("observer_cpu_s", r.observerCpuS);
    j.set("observer_warmup_cpu_s", r.observerWarmCpuS);
    j.set("warmup_s", r.warmupS);
    j.set("producer_cpu_s", r.producer.cpuS);
    j.set("host_busy_cpu_s", r.host.busyS);
    j.set("host_iowait_s", r.host.iowaitS);
    j.set("others_cpu_s", r.othersCpuS());
    j.set("run_wall_s", r.hostSeconds);
    if (r.observers.find("exporter") != std::string::npos) {
        Json s = Json::object();
        s.set("count", static_cast<std::int64_t>(r.scrapesMs.size()));
        s.set("failed", r.scrapeFailures);
        s.set("p99_ms", percentile(r.scrapesMs, 0.99));
        s.set("max_ms", percentile(r.scrapesMs, 1.0));
        Json all = Json::array();
        for (double ms : r.scrapesMs)
            all.push(ms);
        s.set("each_ms", std::move(all));
        j.set("scrapes", std::move(s));
    }
    Json notes = Json::array();
    for (const std::string& n : r.notes)
        notes.push(n);
    j.set("notes", std::move(notes));
    if (!r.alone() && !ref.runs.empty()) {
        const Verdict v = judge(r, ref);
        Json t = Json::object();
        t.set("jobs_per_s_ratio", v.jobsRatio);
        t.set("jobs_per_s", passFail(v.jobsOk));
        t.set("p99_ratio", v.p99Ratio);
        t.set("p99", passFail(v.p99Ok));
        t.set("slowest_minus_alone_ms", v.slowestDeltaMs);
        t.set("slowest", passFail(v.slowestOk));
        t.set("wal_ratio", v.walRatio);
        t.set("wal", passFail(v.walOk));
        if (v.scrapesOk)
            t.set("scrapes", passFail(*v.scrapesOk));
        j.set("targets", std::move(t));
    }
    return j;
}

std::string humanBytes(std::int64_t b) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(b));
    return buf;
}

void printTable(const ObserverOptions& o, const Format& f, const Grown& g,
                const std::vector<RunResult>& runs, const Reference& ref) {
    std::printf("\n%s: %s, %lld jobs (%ld added), %lld of them for the worker, journal mode "
                "%s%s\n",
                f.name, fs::path(g.path).filename().c_str(), static_cast<long long>(g.jobs), o.rows,
                static_cast<long long>(g.backlog), f.journal,
                g.reused ? " (grown file reused)" : "");
    std::printf("worker flat out + producer at %d jobs/s, %d s per run, busy timeout %d ms "
                "(the producer's %d ms); observers start at least %.0f s before the workers, "
                "which wait until the observers' first read is over (under 20 ms of their "
                "CPU in a second): the initial open is excluded\n",
                o.rate, o.seconds, o.busyTimeoutMs, o.producerTimeoutMs(), o.warmupS);
    std::printf("%-2s %-18s %8s %10s %8s %11s %11s %7s %6s | %-11s %-11s %-14s %-11s\n", "#",
                "observers", "jobs/s", "slowest ms", "p99 ms", "locked/TO", "WAL bytes", "obs CPU",
                "others", "jobs/s x", "p99 x", "slowest-alone", "WAL x");
    for (const RunResult& r : runs) {
        char locked[32];
        std::snprintf(locked, sizeof locked, "%lld/%lld", static_cast<long long>(r.locked()),
                      static_cast<long long>(r.lockedWaited()));
        std::printf("%-2d %-18s %8.1f %10.1f %8.2f %11s %11s %7.2f %6.1f | ", r.order,
                    r.observers.c_str(), r.jobsPerS(), r.worker.waits.max(), r.worker.waits.p99(),
                    locked, humanBytes(r.walBytes).c_str(), r.observerCpuS, r.othersCpuS());
        if (r.alone() || ref.runs.empty()) {
            std::printf("alone: %.2f x the mean jobs/s, %.2f x its p99\n",
                        ref.jobsPerS > 0 ? r.jobsPerS() / ref.jobsPerS : 0,
                        ref.p99Ms > 0 ? r.worker.waits.p99() / ref.p99Ms : 0);
        } else {
            const Verdict v = judge(r, ref);
            char wal[32];
            if (v.walRatio)
                std::snprintf(wal, sizeof wal, "%.2f", *v.walRatio);
            else
                std::snprintf(wal, sizeof wal, "%s", r.walBytes == 0 ? "0=0" : "inf");
            std::printf("%5.2f %-5s %5.2f %-5s %+7.1f %-6s %5s %-5s\n", v.jobsRatio,
                        passFail(v.jobsOk), v.p99Ratio, passFail(v.p99Ok), v.slowestDeltaMs,
                        passFail(v.slowestOk), wal, passFail(v.walOk));
        }
    }
    std::printf("alone (mean of runs");
    for (int i : ref.runs)
        std::printf(" %d", i);
    std::printf("): %.1f jobs/s, slowest %.1f ms, p99 %.2f ms, WAL %.0f bytes; drift of the "
                "last alone run against the first: %+.1f %% jobs/s\n",
                ref.jobsPerS, ref.slowestMs, ref.p99Ms, ref.walBytes, ref.driftPct);
    std::printf("locked/TO: writes of the worker and the producer that said \"database is "
                "locked\" / of them, after waiting out the busy timeout (the others SQLite "
                "refused at once); obs CPU: the observers' CPU seconds during the run; others: CPU "
                "seconds the rest of the machine used meanwhile\n");
    std::printf("targets: jobs/s >= %.2f x alone, p99 <= %.1f x alone, slowest <= alone + %.0f ms, "
                "WAL <= %.1f x alone; every exporter scrape <= %.0f ms\n",
                kJobsFactor, kP99Factor, kSlowestPlusMs, kWalFactor, kScrapeMs);
    for (const RunResult& r : runs) {
        if (r.observers.find("exporter") != std::string::npos) {
            const Verdict v = judge(r, ref);
            std::printf("run %d exporter scrapes: %zu, %d failed, p99 %.1f ms, max %.1f ms: %s\n",
                        r.order, r.scrapesMs.size(), r.scrapeFailures,
                        percentile(r.scrapesMs, 0.99), percentile(r.scrapesMs, 1.0),
                        passFail(v.scrapesOk.value_or(false)));
        }
        std::printf(
            "run %d: worker %lld jobs in %.1f s (CPU %.1f s), producer %lld jobs "
            "(CPU %.1f s, slowest %.1f ms); WAL max %lld bytes; host: %.1f CPU s busy "
            "in %.1f s, %.1f of them others', %.1f s iowait; warm-up %.1f s (observers' CPU "
            "%.1f s)%s",
            r.order, static_cast<long long>(r.worker.jobs), r.worker.elapsedS, r.worker.cpuS,
            static_cast<long long>(r.producer.jobs), r.producer.cpuS, r.producer.waits.max(),
            static_cast<long long>(r.walMaxBytes), r.host.busyS, r.hostSeconds, r.othersCpuS(),
            r.host.iowaitS, r.warmupS, r.observerWarmCpuS, r.notes.empty() ? "\n" : "; ");
        for (std::size_t i = 0; i < r.notes.size(); ++i)
            std::printf("%s%s", r.notes[i].c_str(), i + 1 < r.notes.size() ? "; " : "\n");
    }
    std::fflush(stdout);
}

/// Why a format cannot run here ("" when it can).
std::string missingRuntime(const ObserverOptions& o, const Format& f) {
    const QString exe = QStandardPaths::findExecutable(QString::fromLatin1(f.runtime));
    if (exe.isEmpty())
        return std::string(f.runtime) + " is not installed";
    if (!fs::exists(fs::path(o.scripts) / f.script))
        return std::string("no ") + f.script + " in " + o.scripts;
    if (std::string(f.name) == "laravel") {
        if (!fs::exists("/usr/share/php/Illuminate/Queue/autoload.php"))
            return "Laravel's queue is not installed (/usr/share/php/Illuminate/Queue/autoload.php;"
                   " apt install php-illuminate-queue)";
        QProcess p;
        p.start(exe, {QStringLiteral("-r"),
                      QStringLiteral("exit(extension_loaded('pdo_sqlite') ? 0 : 1);")});
        if (!p.waitForFinished(20000) || p.exitCode() != 0)
            return "php has no pdo_sqlite (apt install php-sqlite3)";
    }
    return {};
}

} // namespace

int runObserver(int argc, char** argv, const ObserverOptions& o) {
    QCoreApplication app(argc, argv);
    std::vector<const Format*> fmts;
    for (const std::string& name : o.formats) {
        const Format* f = findFormat(name);
        if (!f) {
            std::fprintf(stderr, "lqbench observer: unknown format %s (laravel, solidqueue)\n",
                         name.c_str());
            return 2;
        }
        fmts.push_back(f);
    }
    // None alone first and last; every other entry in the given order, a
    // "none" between two observers a run alone there too (the reference is
    // the mean of every run alone: a WAL's size alone varies by a third
    // from run to run on disk).
    std::vector<std::string> plan{"none"};
    for (const std::string& entry : o.observers) {
        if (entry == "none") {
            if (plan.back() != "none")
                plan.push_back(entry);
            continue;
        }
        for (const std::string& kind : split(entry, '+')) {
            if (!knownObserver(kind)) {
                std::fprintf(stderr,
                             "lqbench observer: unknown observer '%s' (none, lqadmin, dashboard, "
                             "watch, exporter, fleet; a+b for both at once)\n",
                             kind.c_str());
                return 2;
            }
        }
        plan.push_back(entry);
    }
    if (plan.size() == 1 || plan.back() != "none")
        plan.emplace_back("none");
    for (const Format* f : fmts) {
        const std::string why = missingRuntime(o, *f);
        if (!why.empty()) {
            std::fprintf(stderr, "lqbench observer: skipped: %s\n", why.c_str());
            return 77;
        }
    }
    for (const std::string* exe : {&o.lqadmin, &o.lqctl})
        if (!fs::exists(*exe)) {
            std::fprintf(stderr, "lqbench observer: %s is not built\n", exe->c_str());
            return 1;
        }

    fs::create_directories(o.dir);
    Json doc = Json::object();
    doc.set("benchmark", "observer");
    doc.set("rows_added", static_cast<std::int64_t>(o.rows));
    doc.set("seconds", o.seconds);
    doc.set("busy_timeout_ms", o.busyTimeoutMs);
    doc.set("producer_busy_timeout_ms", o.producerTimeoutMs());
    doc.set("producer_jobs_per_s", o.rate);
    doc.set("warmup_s", o.warmupS);
    doc.set("initial_open", "excluded: the observers start at least warmup_s before the "
                            "workers, which wait until the observers are idle");
    doc.set("qt_platform", qtPlatform().toStdString());
    doc.set("cpus", static_cast<std::int64_t>(sysconf(_SC_NPROCESSORS_ONLN)));
    Json targets = Json::object();
    targets.set("jobs_per_s_min_ratio", kJobsFactor);
    targets.set("p99_max_ratio", kP99Factor);
    targets.set("slowest_max_plus_ms", kSlowestPlusMs);
    targets.set("wal_max_ratio", kWalFactor);
    targets.set("scrape_max_ms", kScrapeMs);
    doc.set("targets", std::move(targets));
    Json formatsJson = Json::array();
    std::int64_t lockedTotal = 0;
    std::int64_t lockedWaitedTotal = 0;
    std::int64_t lockedWaitedAlone = 0;   ///< in the runs without observers
    std::int64_t lockedWaitedWatched = 0; ///< in the runs beside observers
    int rc = 0;
    for (const Format* f : fmts) {
        Json fj = Json::object();
        fj.set("format", f->name);
        fj.set("profile", f->profile);
        fj.set("journal_mode", f->journal);
        std::vector<RunResult> runs;
        try {
            const Grown g = prepareGrown(o, *f);
            fj.set("file", g.path);
            fj.set("jobs_in_file", g.jobs);
            fj.set("backlog_jobs", g.backlog);
            fj.set("grown_file_reused", g.reused);
            fj.set("grow_s", g.growS);
            // With --check, a write that outwaited its busy timeout beside the
            // observers (and in neither run alone) is confirmed by running
            // the plan once more: one starved write in thousands is the
            // scheduler's on two cores; a lock we hold too long repeats.
            std::int64_t unconfirmed = 0;
            for (int attempt = 1; attempt <= 2; ++attempt) {
                runs.clear();
                std::int64_t waitedAlone = 0;
                std::int64_t waitedWatched = 0;
                std::int64_t locked = 0;
                for (std::size_t i = 0; i < plan.size(); ++i) {
                    std::fprintf(stderr, "lqbench observer: %s run %zu/%zu%s: %s\n", f->name, i + 1,
                                 plan.size(), attempt > 1 ? " (again)" : "", plan[i].c_str());
                    runs.push_back(runOnce(o, *f, g, plan[i], int(i) + 1));
                    const RunResult& r = runs.back();
                    std::fprintf(stderr,
                                 "lqbench observer:   %.1f jobs/s, slowest %.1f ms, p99 %.2f ms, "
                                 "%lld locked (%lld after the busy timeout), WAL %lld bytes\n",
                                 r.jobsPerS(), r.worker.waits.max(), r.worker.waits.p99(),
                                 static_cast<long long>(r.locked()),
                                 static_cast<long long>(r.lockedWaited()),
                                 static_cast<long long>(r.walBytes));
                    locked += r.locked();
                    (plan[i] == "none" ? waitedAlone : waitedWatched) += r.lockedWaited();
                    if (r.observerDied)
                        rc = 1;
                }
                const bool again = o.check && attempt == 1 && waitedWatched > 0 && waitedAlone == 0;
                if (again) {
                    unconfirmed = waitedWatched;
                    std::fprintf(stderr,
                                 "lqbench observer: %s: %lld writes outwaited the busy timeout "
                                 "beside the observers, none alone: running the plan once more "
                                 "to confirm\n",
                                 f->name, static_cast<long long>(waitedWatched));
                    continue;
                }
                lockedTotal += locked;
                lockedWaitedTotal += waitedAlone + waitedWatched;
                lockedWaitedAlone += waitedAlone;
                lockedWaitedWatched += waitedWatched;
                break;
            }
            fj.set("unconfirmed_locked_after_busy_timeout", unconfirmed);
            const Reference ref = referenceOf(runs);
            Json rj = Json::object();
            rj.set("jobs_per_s", ref.jobsPerS);
            rj.set("slowest_write_ms", ref.slowestMs);
            rj.set("p99_write_ms", ref.p99Ms);
            rj.set("wal_bytes", ref.walBytes);
            rj.set("drift_jobs_per_s_pct", ref.driftPct);
            fj.set("alone", std::move(rj));
            Json runsJson = Json::array();
            for (const RunResult& r : runs)
                runsJson.push(runJson(r, ref));
            fj.set("runs", std::move(runsJson));
            if (!o.json)
                printTable(o, *f, g, runs, ref);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "lqbench observer: %s: %s\n", f->name, e.what());
            fj.set("error", std::string(e.what()));
            rc = 1;
        }
        formatsJson.push(std::move(fj));
    }
    doc.set("formats", std::move(formatsJson));
    doc.set("locked_total", lockedTotal);
    doc.set("locked_after_busy_timeout_total", lockedWaitedTotal);
    doc.set("check", o.check ? Json(lockedWaitedTotal == 0 ? "ok" : "failed") : Json());
    if (o.json)
        std::printf("%s\n", doc.dump(2).c_str());
    // --check: no write may wait out its busy timeout and fail. The locks
    // SQLite refuses at once (Laravel's deferred transactions upgrading while
    // the producer writes; alone as much as watched) are reported only.
    if (o.check && lockedWaitedAlone > 0) {
        // The workload alone outwaited its timeout on this machine: what the
        // observers add cannot be told apart from it here.
        std::fprintf(stderr,
                     "lqbench observer: check skipped: %lld writes outwaited the busy timeout "
                     "(%d ms) with no observer at all (%lld beside the observers); this "
                     "machine is too slow for the target\n",
                     static_cast<long long>(lockedWaitedAlone), o.busyTimeoutMs,
                     static_cast<long long>(lockedWaitedWatched));
        if (rc == 0)
            rc = 77;
    } else if (o.check && lockedWaitedTotal > 0) {
        std::fprintf(stderr,
                     "lqbench observer: check failed: %lld writes said \"database is "
                     "locked\" after waiting out the busy timeout (%d ms)\n",
                     static_cast<long long>(lockedWaitedTotal), o.busyTimeoutMs);
        rc = 1;
    } else if (o.check) {
        std::fprintf(stderr,
                     "lqbench observer: check ok: no write waited out the busy timeout "
                     "(%lld refused at once by SQLite, not checked)\n",
                     static_cast<long long>(lockedTotal));
    }
    if (o.noCache)
        for (const Format* f : fmts)
            removeDb((fs::path(o.dir) /
                      (std::string(f->profile) + "-" + std::to_string(o.rows) + ".sqlite3"))
                         .string());
    if (!o.keep) {
        fs::remove_all(fs::path(o.dir) / "run");
        fs::remove_all(fs::path(o.dir) / "home");
        fs::remove_all(fs::path(o.dir) / "logs");
    }
    std::error_code ec;
    fs::remove(o.dir, ec); // when nothing is left in it
    return rc;
}

} // namespace lq::bench
