// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

namespace lq::core {

/// Memory mapped from the system for the large buffers of a scan (timing
/// columns, orderings being read, the values a statistic gathers): unmapped
/// the moment it is freed, where malloc keeps freed chunks of its
/// per-thread arenas resident (at ten million rows, over 100 MB after a
/// scan), and resident only as far as it is written. Sizes are rounded up
/// to whole pages by the system: for buffers of hundreds of KB and more.
void* mapPages(std::size_t bytes);
void unmapPages(void* p, std::size_t bytes) noexcept;

namespace detail {
struct Unmap {
    std::size_t bytes = 0;
    void operator()(std::byte* p) const noexcept { unmapPages(p, bytes); }
};
} // namespace detail

/// One mapped buffer of a fixed size.
class MappedBytes {
public:
    MappedBytes() = default;
    explicit MappedBytes(std::size_t bytes)
        : m_data(static_cast<std::byte*>(mapPages(bytes)), detail::Unmap{bytes}) {}
    std::byte* data() const noexcept { return m_data.get(); }
    std::size_t size() const noexcept { return m_data.get_deleter().bytes; }

private:
    std::unique_ptr<std::byte[], detail::Unmap> m_data;
};

/// An allocator of mapped memory, for a large vector that must not stay
/// resident after it is freed.
template <class T> struct MappedAllocator {
    using value_type = T;
    MappedAllocator() = default;
    template <class U> explicit MappedAllocator(const MappedAllocator<U>&) noexcept {}
    T* allocate(std::size_t n) { return static_cast<T*>(mapPages(n * sizeof(T))); }
    void deallocate(T* p, std::size_t n) noexcept { unmapPages(p, n * sizeof(T)); }
    friend bool operator==(const MappedAllocator&, const MappedAllocator&) noexcept { return true; }
};

template <class T> using MappedVector = std::vector<T, MappedAllocator<T>>;

} // namespace lq::core
