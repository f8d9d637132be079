// SPDX-License-Identifier: MIT
#pragma once

#include "clock.h"
#include "mapped.h"

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

namespace lq::core {

/// A column of timestamps held compactly and exactly: the values are kept in
/// blocks of kBlock, each as unsigned offsets from the block's least value in
/// the fewest whole bytes that hold its range (frame-of-reference encoding).
/// Consecutive rows of a queue are close in time, so a block of nanosecond
/// timestamps usually needs 5 bytes a value instead of 8; a block of NULLs
/// (kNull) needs none. Reads are O(1) by index. Appending is the only write.
class TimeColumn {
public:
    /// The value a NULL is stored and read back as (TimingColumns::kNoTime).
    static constexpr TimeNs kNull = INT64_MIN;

    TimeColumn() = default;
    TimeColumn(const TimeColumn& other);
    TimeColumn& operator=(const TimeColumn& other);
    TimeColumn(TimeColumn&& other) noexcept;
    TimeColumn& operator=(TimeColumn&& other) noexcept;
    ~TimeColumn() = default;

    void push_back(TimeNs v) {
        if (m_tail.capacity() < kBlock)
            m_tail.reserve(kBlock);
        m_tail.push_back(v);
        ++m_size;
        if (m_tail.size() == kBlock)
            seal();
    }
    TimeNs operator[](std::size_t i) const {
        const std::size_t b = i / kBlock;
        if (b == m_blocks.size())
            return m_tail[i % kBlock];
        const Block& k = m_blocks[b];
        if (k.width == 0)
            return kNull;
        std::uint64_t u = 0;
        // Every page has 8 spare bytes at its end: an 8-byte load is safe.
        const std::byte* p =
            m_pages[k.page].data() + k.offset + (i % kBlock) * static_cast<std::size_t>(k.width);
        std::memcpy(&u, p, sizeof u);
        if (k.width < 8)
            u &= (std::uint64_t{1} << (8 * k.width)) - 1;
        return u == k.null ? kNull : static_cast<TimeNs>(static_cast<std::uint64_t>(k.base) + u);
    }
    std::size_t size() const noexcept { return m_size; }
    bool empty() const noexcept { return m_size == 0; }
    /// Kept for the vector-like call sites: blocks are sized as they fill.
    void reserve(std::size_t) noexcept {}
    void clear();
    /// Appends every value of `other`.
    void append(const TimeColumn& other);
    /// Bytes held (pages, block table and the open block), for tests and
    /// benchmarks.
    std::size_t bytesHeld() const noexcept;

    static constexpr std::size_t kBlock = 4096;

private:
    struct Block {
        TimeNs base = 0;        ///< the least non-NULL value
        std::uint64_t null = 0; ///< the offset that stands for NULL (all ones)
        std::uint32_t page = 0; ///< index in m_pages
        std::uint32_t offset = 0;
        std::uint8_t width = 0; ///< bytes a value; 0: every value is NULL
    };
    /// Encodes the full open block into the pages and empties it.
    void seal();
    static_assert(std::endian::native == std::endian::little,
                  "offsets are stored and loaded as the low bytes of a uint64");

    /// Pages are MappedBytes: only the bytes written are resident (the last
    /// page of a column is mostly unused), and all of it goes back when freed.
    static constexpr std::size_t kMapBytes = std::size_t{1} << 20;
    /// Spare bytes at a page's end: an 8-byte load of its last value.
    static constexpr std::size_t kPad = 8;
    static constexpr std::size_t kPageBytes = kMapBytes - kPad;
    std::vector<MappedBytes> m_pages;
    std::size_t m_pageUsed = kPageBytes; ///< bytes used in the last page
    std::vector<Block> m_blocks;
    std::vector<TimeNs> m_tail; ///< the open block, raw
    std::size_t m_size = 0;
};

} // namespace lq::core
