// SPDX-License-Identifier: MIT
// `lqctl demo FILE`: a live synthetic workload on one shared Queue.
//
// A producer puts JSON tasks at --rate (Poisson arrivals, some with
// idempotency keys that repeat); --workers threads pop, "process" for a
// log-normal time (median ~150 ms, long tail, at most 30 s) and then mark the
// message done, retry it (transient failure) or mark it failed
// (--fail-ratio). About 1 % of pops "hang": the worker abandons the message
// LOCKED, so retry-expired has work; a janitor calls retryExpired(30) every
// 10 s. SIGINT/SIGTERM or --duration stop every thread cleanly; a worker
// stopped mid-task gives its message back (retry) like a polite worker would.
#include "commands.h"
#include "output.h"

#include <core/timefmt.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <mutex>
#include <random>
#include <thread>

namespace lq::ctl {

namespace {

using Steady = std::chrono::steady_clock;

struct Shared {
    Shared(core::Queue& queue, const Options& opts)
        : q(queue)
        , o(opts) {}

    core::Queue& q;
    const Options& o;
    std::atomic_bool stop{false};
    std::atomic<std::int64_t> puts{0}, conflicts{0}, full{0};
    std::atomic<std::int64_t> done{0}, retried{0}, failed{0}, hung{0}, released{0};
    std::atomic<std::int64_t> expiredRetried{0}, busy{0};
    std::mutex errorMutex;
    std::exception_ptr fatal;

    bool stopping() const { return stop.load() || stopRequested(); }

    /// Sleeps up to `seconds`; false when asked to stop meanwhile.
    bool sleep(double seconds) const {
        const auto until = Steady::now() + std::chrono::nanoseconds(core::secondsToNs(seconds));
        while (!stopping()) {
            const auto left = until - Steady::now();
            if (left <= std::chrono::nanoseconds::zero())
                return true;
            std::this_thread::sleep_for(
                std::min<std::chrono::nanoseconds>(left, std::chrono::milliseconds(25)));
        }
        return false;
    }

    /// Busy is weather (another process writes): count it and go on.
    /// Anything else stops the demo and is rethrown by cmdDemo. Call from a
    /// catch block.
    void fail(const std::exception& e) {
        if (const auto* ce = dynamic_cast<const core::Error*>(&e);
            ce && ce->kind() == core::ErrorKind::Busy) {
            ++busy;
            return;
        }
        std::lock_guard lock(errorMutex);
        if (!fatal)
            fatal = std::current_exception();
        stop = true;
    }
};

std::mt19937_64 seededRng() {
    std::random_device rd;
    return std::mt19937_64((static_cast<std::uint64_t>(rd()) << 32) ^ rd());
}

struct TaskKind {
    const char* name;
    double weight;
    double medianSeconds;
};

// clang-format off
constexpr TaskKind kTasks[] = {
    {"resize", 0.40, 0.15},
    {"thumbnail", 0.25, 0.06},
    {"email", 0.20, 0.12},
    {"transcode", 0.05, 0.6},
    {"report", 0.10, 0.3},
};
// clang-format on

void producer(Shared& s) {
    auto rng = seededRng();
    std::exponential_distribution<double> gap(s.o.rate);
    std::uniform_real_distribution<double> u(0, 1);
    std::uniform_int_distribution<int> image(1, 5000);
    std::discrete_distribution<int> kind(
        {kTasks[0].weight, kTasks[1].weight, kTasks[2].weight, kTasks[3].weight, kTasks[4].weight});
    auto next = Steady::now();
    std::int64_t serial = 0;
    while (!s.stopping()) {
        next += std::chrono::nanoseconds(core::secondsToNs(gap(rng)));
        const auto wait = next - Steady::now();
        if (wait > std::chrono::nanoseconds::zero() &&
            !s.sleep(std::chrono::duration<double>(wait).count()))
            break;
        const TaskKind& k = kTasks[kind(rng)];
        const int img = image(rng);
        std::string data =
            std::string("{\"task\":\"") + k.name + "\",\"image\":" + std::to_string(img) + "}";
        std::optional<std::string> key;
        const double r = u(rng);
        if (r < 0.2) {
            // Keyed by image: a second put of the same task and image is a
            // replay and returns the stored message.
            key = std::string(k.name) + "-" + std::to_string(img);
        } else if (r < 0.202) {
            // A rare client bug: the same key with other data.
            key = std::string(k.name) + "-" + std::to_string(img);
            data = std::string("{\"task\":\"") + k.name + "\",\"image\":" + std::to_string(img) +
                   ",\"retry_of\":" + std::to_string(++serial) + "}";
        }
        try {
            s.q.put(data, key);
            ++s.puts;
        } catch (const core::IdempotencyConflict&) {
            ++s.conflicts;
        } catch (const core::QueueFull&) {
            ++s.full;
            s.sleep(0.2);
        } catch (const std::exception& e) {
            s.fail(e);
        }
    }
}

double processingSeconds(std::mt19937_64& rng, const TaskKind& k) {
    std::uniform_real_distribution<double> u(0, 1);
    // Median ~150 ms over the task mix; 0.5 % of tasks land in a slow tail
    // (median 3 s), and nothing runs longer than 30 s. Four workers then
    // serve about 18 tasks/s: the default 20 puts/s keeps them busy.
    const bool slow = u(rng) < 0.005;
    std::lognormal_distribution<double> d(std::log(slow ? 3.0 : k.medianSeconds), slow ? 1.0 : 0.7);
    return std::clamp(d(rng), 0.001, 30.0);
}

const TaskKind& kindOf(const std::string& data) {
    for (const auto& k : kTasks) {
        if (data.find(std::string("\"") + k.name + "\"") != std::string::npos)
            return k;
    }
    return kTasks[0];
}

void worker(Shared& s) {
    auto rng = seededRng();
    std::uniform_real_distribution<double> u(0, 1);
    while (!s.stopping()) {
        try {
            const auto m = s.q.pop();
            if (!m) {
                s.sleep(0.05 + 0.1 * u(rng));
                continue;
            }
            const double r = u(rng);
            if (r < 0.01) {
                // Hangs: the worker dies holding the message.
                ++s.hung;
                continue;
            }
            if (!s.sleep(processingSeconds(rng, kindOf(m->data)))) {
                if (s.q.retry(m->messageId, m->token))
                    ++s.released;
                break;
            }
            const double fate = u(rng);
            if (fate < s.o.failRatio) {
                if (s.q.markFailed(m->messageId, m->token))
                    ++s.failed;
            } else if (fate < s.o.failRatio + 0.03) {
                if (s.q.retry(m->messageId, m->token))
                    ++s.retried;
            } else if (s.q.done(m->messageId, m->token)) {
                ++s.done;
            }
        } catch (const std::exception& e) {
            s.fail(e);
            s.sleep(0.1);
        }
    }
}

void janitor(Shared& s) {
    while (s.sleep(10)) {
        try {
            s.expiredRetried += s.q.retryExpired(std::chrono::seconds(30));
        } catch (const std::exception& e) {
            s.fail(e);
        }
    }
}

} // namespace

int cmdDemo(const Options& o) {
    if (o.now)
        throw UsageError("demo runs on the real clock; --now does not apply");
    installStopHandlers();
    auto q = core::Queue::create(o.file, o.maxsize, openOptions(o, true));
    if (q->readOnly()) {
        throw core::ReadOnly(o.file, "the queue is read-only: " + q->info().readOnlyReason +
                                         ". Nothing was changed.");
    }
    Shared s(*q, o);

    std::vector<std::thread> threads;
    if (o.rate > 0)
        threads.emplace_back(producer, std::ref(s));
    for (int i = 0; i < o.workers; ++i)
        threads.emplace_back(worker, std::ref(s));
    threads.emplace_back(janitor, std::ref(s));

    if (!o.quiet && !o.json) {
        char head[160];
        std::snprintf(head, sizeof head, ": %g puts/s, %d workers, fail ratio %g", o.rate,
                      o.workers, o.failRatio);
        out("demo on " + o.file + head +
            (o.duration > 0 ? ", for " + core::humanDuration(core::secondsToNs(o.duration))
                            : std::string(", until Ctrl-C")) +
            "\n");
        std::fflush(stdout);
    }
    const auto start = Steady::now();
    auto nextReport = start + std::chrono::seconds(1);
    std::int64_t lastPuts = 0, lastDone = 0;
    while (!s.stopping()) {
        const auto now = Steady::now();
        if (o.duration > 0 &&
            now - start >= std::chrono::nanoseconds(core::secondsToNs(o.duration)))
            break;
        if (now >= nextReport) {
            nextReport += std::chrono::seconds(1);
            if (!o.quiet) {
                try {
                    const auto c = q->counts();
                    const std::int64_t p = s.puts, d = s.done;
                    const double t = std::chrono::duration<double>(now - start).count();
                    if (o.json) {
                        core::Json j = core::Json::object();
                        j.set("t", t);
                        j.set("ready", c.ready);
                        j.set("locked", c.locked);
                        j.set("done", c.done);
                        j.set("failed", c.failed);
                        j.set("puts_per_s", p - lastPuts);
                        j.set("done_per_s", d - lastDone);
                        out(j.dump() + "\n");
                    } else {
                        char buf[200];
                        std::snprintf(
                            buf, sizeof buf,
                            "%6.0fs  ready=%lld locked=%lld done=%lld failed=%lld  "
                            "put/s=%lld done/s=%lld\n",
                            t, static_cast<long long>(c.ready), static_cast<long long>(c.locked),
                            static_cast<long long>(c.done), static_cast<long long>(c.failed),
                            static_cast<long long>(p - lastPuts),
                            static_cast<long long>(d - lastDone));
                        out(buf);
                    }
                    std::fflush(stdout);
                    lastPuts = p;
                    lastDone = d;
                } catch (const std::exception& e) {
                    s.fail(e);
                }
            }
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    s.stop = true;
    for (auto& t : threads)
        t.join();

    if (!o.quiet && !o.json) {
        out("demo stopped: " + std::to_string(s.puts.load()) + " puts (" +
            std::to_string(s.conflicts.load()) + " key conflicts, " +
            std::to_string(s.full.load()) + " refused as full), " + std::to_string(s.done.load()) +
            " done, " + std::to_string(s.retried.load()) + " retried, " +
            std::to_string(s.failed.load()) + " failed, " + std::to_string(s.hung.load()) +
            " abandoned LOCKED, " + std::to_string(s.expiredRetried.load()) +
            " recovered by the janitor\n");
    }
    if (s.fatal)
        std::rethrow_exception(s.fatal);
    return ExitOk;
}

} // namespace lq::ctl
