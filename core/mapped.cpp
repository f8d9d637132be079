// SPDX-License-Identifier: MIT
#include "mapped.h"

#include <new>

#if defined(__unix__)
#include <sys/mman.h>
#endif

namespace lq::core {

void* mapPages(std::size_t bytes) {
    if (bytes == 0)
        bytes = 1;
#if defined(__unix__)
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        throw std::bad_alloc();
    return p;
#else
    return ::operator new(bytes);
#endif
}

void unmapPages(void* p, std::size_t bytes) noexcept {
    if (!p)
        return;
#if defined(__unix__)
    munmap(p, bytes == 0 ? 1 : bytes);
#else
    (void)bytes;
    ::operator delete(p);
#endif
}

} // namespace lq::core
