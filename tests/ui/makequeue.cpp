// SPDX-License-Identifier: MIT
// lq_makequeue OUT N: writes a litequeue-0.14 queue of N messages with a
// simulated history (3 hours of arrivals, one worker, a few failures and
// stuck claims, a READY backlog at the end) through lqcore. For
// screenshots and manual performance checks of lqadmin on big files.

#include "core/queue.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

using namespace lq::core;

static std::string payload(std::mt19937_64& rng, std::uint64_t i) {
    static const char* const tasks[] = {"resize_image",   "send_email", "charge_card",
                                        "sync_inventory", "render_pdf", "webhook"};
    switch (rng() % 10) {
    case 0:
        return "Reminder for order #" + std::to_string(100000 + i) + ": ship before Friday";
    case 1:
        return "{\"task\": \"send_email\", \"to\": \"user" + std::to_string(rng() % 90000) +
               "@example.com\", \"template\": \"welcome\", \"locale\": \"de-CH\"}";
    default: {
        const char* t = tasks[rng() % 6];
        return std::string("{\"task\":\"") + t + "\",\"job\":" + std::to_string(i) +
               ",\"user_id\":" + std::to_string(rng() % 100000) + ",\"src\":\"s3://media/u/" +
               std::to_string(rng() % 1000) + "/img_" + std::to_string(rng() % 100000) +
               ".jpg\",\"sizes\":[64,256,1024],\"priority\":" + std::to_string(rng() % 5) + "}";
    }
    }
}

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s OUT N\n", argv[0]);
        return 2;
    }
    const std::string out = argv[1];
    const std::int64_t n = std::atoll(argv[2]);
    std::mt19937_64 rng(20250314);
    std::lognormal_distribution<double> proc(std::log(0.02), 0.8); // seconds
    std::uniform_real_distribution<double> u(0, 1);

    const TimeNs end = systemNowNs();
    const TimeNs span = 3LL * 3600 * kNsPerSecond;
    TimeNs t = end - span;
    auto q = Queue::create(out);
    q->setClock([&t] { return t; });

    const std::int64_t batch = 100;
    const std::int64_t batches = (n + batch - 1) / batch;
    const TimeNs step = span / std::max<std::int64_t>(1, batches);
    const std::int64_t stopConsumingAt = batches * 93 / 100;
    std::int64_t made = 0;
    for (std::int64_t b = 0; b < batches; ++b) {
        std::vector<PutItem> items;
        for (std::int64_t i = 0; i < batch && made < n; ++i, ++made) {
            PutItem it;
            it.data = made == n / 2 ? std::string("<b>x</b><img src=x>")
                                    : payload(rng, std::uint64_t(made));
            if (rng() % 7 == 0) {
                it.idempotencyKey = "order-" + std::to_string(made);
            }
            items.push_back(std::move(it));
        }
        t += step / 4;
        q->putMany(items);
        if (b >= stopConsumingAt) {
            t += step * 3 / 4;
            continue;
        }
        // One worker drains what arrived, inside one transaction per batch.
        const TimeNs budgetEnd = t + step * 3 / 4;
        auto tx = q->transaction();
        while (t < budgetEnd) {
            auto m = q->pop();
            if (!m) {
                break;
            }
            const double r = u(rng);
            t += secondsToNs(std::min(proc(rng), 20.0));
            if (r < 0.0004) {
                continue; // the worker died: stays LOCKED, soon stuck
            }
            if (r < 0.03) {
                q->markFailed(m->messageId, m->claimId);
            } else if (r < 0.04) {
                q->retry(m->messageId, m->claimId);
            } else {
                q->done(m->messageId, m->claimId);
            }
        }
        tx->commit();
        t = std::max(t, budgetEnd);
    }
    // The last claims: two workers hung 12 minutes ago (stuck), two are
    // busy right now, one just failed its message.
    t = end - 12 * 60 * kNsPerSecond;
    for (int i = 0; i < 2; ++i) {
        q->pop();
        t += 900'000'000;
    }
    t = end - 40 * kNsPerSecond;
    if (auto m = q->pop()) {
        t += 2 * kNsPerSecond;
        q->markFailed(m->messageId, m->claimId);
    }
    t = end - 15 * kNsPerSecond;
    for (int i = 0; i < 2; ++i) {
        q->pop();
        t += 1'300'000'000;
    }
    const Counts c = q->counts(300 * kNsPerSecond);
    std::printf("%s: %lld stored, %lld ready, %lld locked (%lld stuck), %lld done, %lld failed\n",
                out.c_str(), (long long)c.stored, (long long)c.ready, (long long)c.locked,
                (long long)c.stuck, (long long)c.done, (long long)c.failed);
    return 0;
}
