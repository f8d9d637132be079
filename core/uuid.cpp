// SPDX-License-Identifier: MIT
// RFC 9562 UUIDv7 message ids that sort in arrival order within a process:
// 48 bits of Unix ms, then a 12-bit counter in rand_a (method 1 of RFC 9562
// §6.2), then 62 random bits.
#include "queue.h"

#include <mutex>
#include <random>

namespace lq::core {

namespace {

std::uint64_t splitmix(std::uint64_t& x) {
    std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

struct Generator {
    std::mutex mutex;
    std::uint64_t lastMs = 0;
    std::uint32_t seq = 0;
    std::uint64_t rng;
    Generator() {
        std::random_device rd;
        rng = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
    }
};

Generator& generator() {
    static Generator g;
    return g;
}

} // namespace

std::string Queue::newMessageId(TimeNs now) {
    auto& g = generator();
    std::uint64_t ms = now > 0 ? static_cast<std::uint64_t>(now / 1'000'000) : 0;
    std::uint32_t seq;
    std::uint64_t randB;
    {
        std::lock_guard lock(g.mutex);
        if (ms > g.lastMs) {
            g.lastMs = ms;
            // Start low in the counter space so bursts rarely overflow it.
            g.seq = static_cast<std::uint32_t>(splitmix(g.rng) & 0x1ff);
        } else {
            ms = g.lastMs; // clock went back or same ms: stay monotonic
            if (++g.seq > 0xfff) {
                g.seq = 0;
                ms = ++g.lastMs;
            }
        }
        seq = g.seq;
        randB = splitmix(g.rng);
    }
    unsigned char b[16];
    for (int i = 0; i < 6; ++i)
        b[i] = static_cast<unsigned char>(ms >> (40 - 8 * i));
    b[6] = static_cast<unsigned char>(0x70 | ((seq >> 8) & 0x0f));
    b[7] = static_cast<unsigned char>(seq & 0xff);
    for (int i = 0; i < 8; ++i)
        b[8 + i] = static_cast<unsigned char>(randB >> (56 - 8 * i));
    b[8] = static_cast<unsigned char>(0x80 | (b[8] & 0x3f));
    static const char* hex = "0123456789abcdef";
    std::string out;
    out.reserve(36);
    for (int i = 0; i < 16; ++i) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            out += '-';
        out += hex[b[i] >> 4];
        out += hex[b[i] & 0xf];
    }
    return out;
}

} // namespace lq::core
