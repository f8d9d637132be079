// SPDX-License-Identifier: MIT
// lqpopper FILE: a worker process for tst_concurrency. Pops until the queue is
// empty, completes each message, and prints every claimed id on its own line.
// lqcore only, no Qt.

#include "core/error.h"
#include "core/queue.h"

#include <cstdio>
#include <iostream>

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: lqpopper FILE\n");
        return 2;
    }
    try {
        auto q = lq::core::Queue::open(argv[1]);
        while (auto m = q->pop()) {
            if (!q->done(m->messageId, m->claimId)) {
                std::cerr << "lqpopper: done refused for " << m->messageId << " claim "
                          << m->claimId << '\n';
                return 1;
            }
            std::cout << m->messageId << '\n';
        }
    } catch (const lq::core::Error& e) {
        std::cerr << "lqpopper: " << e.what() << '\n';
        return 1;
    }
    std::cout.flush();
    return 0;
}
