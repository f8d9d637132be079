// SPDX-License-Identifier: MIT
// lqmkqueue OUT --rows N [--seed S] [--hours H] [--workers W] [--end NS]
//           [--maxsize M]
//
// Writes a litequeue-0.14 queue of N messages with a realistic history,
// simulated event by event on a fake clock through lqcore (put, pop, done,
// markFailed inside Queue::transaction() batches of 10,000 operations):
// arrivals with a daily-ish swell and a burst, W polling workers with
// lognormal processing times per task type, about 2 % failures, an
// incident that halves the workers for a while (the backlog and the waits
// grow, then drain), a late rush that leaves a backlog, a few workers that die holding a message
// (stuck LOCKED), and what is in flight or waiting at the end. The history ends at
// --end (default: now), printed for `--now`. Used for screenshots and by
// the scale benchmarks.

#include "core/error.h"
#include "core/queue.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <numbers>
#include <optional>
#include <queue>
#include <random>
#include <string>
#include <vector>

using namespace lq::core;

namespace {

int usage() {
    std::fprintf(stderr, "usage: lqmkqueue OUT --rows N [--seed S] [--hours H] [--workers W] "
                         "[--end NS] [--maxsize M]\n");
    return 2;
}

struct TaskType {
    const char* name;
    double medianS; ///< lognormal processing time
    double sigma;
    double failRate;
};

const TaskType kTasks[] = {
    {"send_email", 0.08, 0.6, 0.01}, {"resize_image", 0.45, 0.7, 0.015},
    {"charge_card", 0.9, 0.5, 0.03}, {"sync_inventory", 2.5, 1.0, 0.02},
    {"render_pdf", 4.0, 0.8, 0.04},  {"webhook", 0.25, 1.3, 0.05},
};
const double kTaskWeights[] = {35, 25, 10, 8, 4, 18};

std::string payload(std::mt19937_64& rng, std::uint64_t i, const TaskType& t) {
    switch (rng() % 12) {
    case 0:
        return "Reminder for order #" + std::to_string(100000 + i) + ": ship before Friday";
    case 1:
        return "{\"task\": \"" + std::string(t.name) + "\", \"to\": \"user" +
               std::to_string(rng() % 90000) + "@example.com\", \"locale\": \"de-CH\"}";
    default:
        return std::string("{\"task\":\"") + t.name + "\",\"job\":" + std::to_string(i) +
               ",\"user_id\":" + std::to_string(rng() % 100000) +
               ",\"priority\":" + std::to_string(rng() % 5) + "}";
    }
}

enum class Ev { Poll, Complete };
struct Event {
    TimeNs t;
    Ev kind;
    int worker;
    std::string id;
    std::int64_t claim = 0;
    bool fail = false;
    bool operator>(const Event& o) const { return t > o.t; }
};

} // namespace

int main(int argc, char** argv) {
    if (argc < 2 || argv[1][0] == '-')
        return usage();
    const std::string out = argv[1];
    std::int64_t rows = -1;
    std::uint64_t seed = 20250314;
    double hours = 6;
    int workers = 8;
    TimeNs end = systemNowNs();
    std::optional<std::int64_t> maxsize;
    for (int i = 2; i < argc; ++i) {
        const std::string a = argv[i];
        if (i + 1 >= argc)
            return usage();
        const char* v = argv[++i];
        if (a == "--rows")
            rows = std::atoll(v);
        else if (a == "--seed")
            seed = std::strtoull(v, nullptr, 10);
        else if (a == "--hours")
            hours = std::atof(v);
        else if (a == "--workers")
            workers = std::max(1, std::atoi(v));
        else if (a == "--end")
            end = std::atoll(v);
        else if (a == "--maxsize")
            maxsize = std::atoll(v);
        else
            return usage();
    }
    if (rows < 0 || hours <= 0)
        return usage();
    if (std::filesystem::exists(out)) {
        std::fprintf(stderr, "%s exists; not overwriting\n", out.c_str());
        return 1;
    }
    const auto wallStart = std::chrono::steady_clock::now();
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    std::discrete_distribution<int> taskOf(std::begin(kTaskWeights), std::end(kTaskWeights));

    const TimeNs span = static_cast<TimeNs>(hours * 3600 * 1e9);
    const TimeNs start = end - span;
    // Arrival times: a swell over the period, a burst at 70 %, by rejection
    // sampling of the rate shape.
    const auto rate = [&](double x) { // x in [0, 1)
        double r = 1.0 + 0.6 * std::sin(2 * std::numbers::pi * (x * hours / 6.0) - 1.0);
        if (x > 0.70 && x < 0.73)
            r *= 3.0;
        if (x > 0.96) // a late rush: the workers fall behind at the end
            r *= 5.0;
        return r;
    };
    std::vector<TimeNs> arrivals;
    arrivals.reserve(static_cast<std::size_t>(rows));
    while (static_cast<std::int64_t>(arrivals.size()) < rows) {
        const double x = u(rng);
        if (u(rng) * 8.0 < rate(x))
            arrivals.push_back(start + static_cast<TimeNs>(x * static_cast<double>(span)));
    }
    std::sort(arrivals.begin(), arrivals.end());

    // Capacity sized to the load: busy but keeping up, except in the
    // incident (half the workers from 45 % to 55 % of the period).
    double meanService = 0;
    for (std::size_t k = 0; k < std::size(kTasks); ++k)
        meanService += kTaskWeights[k] / 100.0 * kTasks[k].medianS *
                       std::exp(kTasks[k].sigma * kTasks[k].sigma / 2);
    const double perSecond = static_cast<double>(rows) / (hours * 3600);
    // Workers run at about 60 % of their capacity on average: the speed
    // factor scales processing times so that W workers give that.
    const double speed = std::max(1e-6, perSecond * meanService / (0.6 * workers));
    const TimeNs incidentFrom = start + span * 45 / 100, incidentTo = start + span * 55 / 100;
    // A few workers die holding a message in the last 40 minutes (stuck).
    std::vector<TimeNs> crashes;
    for (int k = 0; k < 6; ++k)
        crashes.push_back(end - static_cast<TimeNs>((8 + 32 * u(rng)) * 60 * 1e9));
    std::sort(crashes.begin(), crashes.end());
    std::size_t nextCrash = 0;

    std::unique_ptr<Queue> q;
    try {
        q = Queue::create(out, maxsize);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
    TimeNs now = start;
    q->setClock([&now] { return now; });

    std::priority_queue<Event, std::vector<Event>, std::greater<>> events;
    for (int w = 0; w < workers; ++w)
        events.push({start + static_cast<TimeNs>(u(rng) * 1e9), Ev::Poll, w, {}, 0, false});
    const TimeNs pollInterval = 250'000'000;

    std::int64_t ready = 0, ops = 0, rejected = 0;
    std::size_t nextArrival = 0;
    auto tx = q->transaction();
    const auto op = [&] {
        if (++ops % 10000 == 0) {
            tx->commit();
            tx.reset(); // release before the next BEGIN
            tx = q->transaction();
        }
    };
    while (true) {
        const TimeNs tArr = nextArrival < arrivals.size() ? arrivals[nextArrival]
                                                          : std::numeric_limits<TimeNs>::max();
        const TimeNs tEv = events.empty() ? std::numeric_limits<TimeNs>::max() : events.top().t;
        const TimeNs t = std::min(tArr, tEv);
        if (t >= end)
            break;
        now = t;
        if (tArr <= tEv) {
            const TaskType& task = kTasks[taskOf(rng)];
            PutItem it;
            it.data = payload(rng, nextArrival, task);
            if (rng() % 9 == 0)
                it.idempotencyKey = "order-" + std::to_string(nextArrival);
            try {
                q->put(it.data, it.idempotencyKey);
                ++ready;
            } catch (const QueueFull&) {
                ++rejected;
            }
            ++nextArrival;
            op();
            continue;
        }
        Event e = events.top();
        events.pop();
        if (e.kind == Ev::Complete) {
            if (e.fail)
                q->markFailed(e.id, e.claim);
            else
                q->done(e.id, e.claim);
            op();
            events.push({now + 2'000'000, Ev::Poll, e.worker, {}, 0, false});
            continue;
        }
        // Poll: in the incident, odd workers are down.
        if (now >= incidentFrom && now < incidentTo && e.worker % 2 == 1) {
            events.push(
                {incidentTo + static_cast<TimeNs>(u(rng) * 5e9), Ev::Poll, e.worker, {}, 0, false});
            continue;
        }
        if (ready == 0) {
            events.push({now + pollInterval / 2 + static_cast<TimeNs>(u(rng) * 2.5e8),
                         Ev::Poll,
                         e.worker,
                         {},
                         0,
                         false});
            continue;
        }
        auto m = q->pop();
        op();
        if (!m)
            continue;
        --ready;
        if (nextCrash < crashes.size() && now >= crashes[nextCrash]) {
            // The worker dies holding the message and restarts a minute later.
            ++nextCrash;
            events.push({now + 60 * kNsPerSecond, Ev::Poll, e.worker, {}, 0, false});
            continue;
        }
        // The task type is in the payload; look it up for its time profile.
        const TaskType* task = &kTasks[0];
        for (const TaskType& k : kTasks)
            if (m->data.find(k.name) != std::string::npos)
                task = &k;
        std::lognormal_distribution<double> proc(std::log(task->medianS), task->sigma);
        const bool fail = u(rng) < task->failRate;
        double secs = proc(rng) / speed * (fail ? 0.6 : 1.0);
        secs = std::min(secs, 1800.0);
        events.push({now + static_cast<TimeNs>(secs * 1e9), Ev::Complete, e.worker, m->messageId,
                     m->claimId, fail});
    }
    tx->commit();
    tx.reset();
    now = end;
    const Counts c = q->counts(300 * kNsPerSecond);
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    std::printf("%s: %lld stored, %lld ready, %lld locked (%lld stuck), %lld done, %lld failed, "
                "%lld rejected (full); end %lld; %.1f s\n",
                out.c_str(), (long long)c.stored, (long long)c.ready, (long long)c.locked,
                (long long)c.stuck, (long long)c.done, (long long)c.failed, (long long)rejected,
                (long long)end, secs);
    return 0;
}
