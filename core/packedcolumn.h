// SPDX-License-Identifier: MIT
#pragma once

#include "mapped.h"

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <memory>
#include <vector>

namespace lq::core {

/// A column of int64 values held compactly and exactly: the values are kept
/// in blocks of kBlock, each as unsigned offsets from the block's least value
/// in the fewest bits that hold its range (frame-of-reference encoding, bit
/// packed). Neighbouring values of a queue are close: a block of nanosecond
/// timestamps usually needs 35-38 bits a value instead of 64, a block of
/// NULLs (kNull) none, and a table ordering of rowids 13 bits (by id) or 24
/// (by another key, ten million rows). Reads are O(1) by index. Appending is
/// the only write.
class PackedColumn {
public:
    using value_type = std::int64_t;
    /// The value a NULL is stored and read back as (TimingColumns::kNoTime).
    /// Stored like any other value: what goes in comes back.
    static constexpr value_type kNull = INT64_MIN;

    /// A random-access iterator that reads values (there is no element to
    /// refer to): for the standard algorithms.
    class const_iterator {
    public:
        using iterator_category = std::random_access_iterator_tag;
        using value_type = PackedColumn::value_type;
        using difference_type = std::ptrdiff_t;
        using pointer = void;
        using reference = value_type;

        const_iterator() = default;
        const_iterator(const PackedColumn* c, std::size_t i)
            : m_c(c)
            , m_i(i) {}
        value_type operator*() const { return (*m_c)[m_i]; }
        value_type operator[](difference_type k) const {
            return (*m_c)[m_i + static_cast<std::size_t>(k)];
        }
        const_iterator& operator++() { return ++m_i, *this; }
        const_iterator operator++(int) { return {m_c, m_i++}; }
        const_iterator& operator--() { return --m_i, *this; }
        const_iterator operator--(int) { return {m_c, m_i--}; }
        const_iterator& operator+=(difference_type k) {
            m_i += static_cast<std::size_t>(k);
            return *this;
        }
        const_iterator& operator-=(difference_type k) {
            m_i -= static_cast<std::size_t>(k);
            return *this;
        }
        friend const_iterator operator+(const_iterator a, difference_type k) { return a += k; }
        friend const_iterator operator+(difference_type k, const_iterator a) { return a += k; }
        friend const_iterator operator-(const_iterator a, difference_type k) { return a -= k; }
        friend difference_type operator-(const const_iterator& a, const const_iterator& b) {
            return static_cast<difference_type>(a.m_i) - static_cast<difference_type>(b.m_i);
        }
        friend bool operator==(const const_iterator& a, const const_iterator& b) {
            return a.m_i == b.m_i;
        }
        friend auto operator<=>(const const_iterator& a, const const_iterator& b) {
            return a.m_i <=> b.m_i;
        }

    private:
        const PackedColumn* m_c = nullptr;
        std::size_t m_i = 0;
    };

    PackedColumn() = default;
    /// The values of [first, last), in order.
    template <typename It> PackedColumn(It first, It last) {
        for (; first != last; ++first)
            push_back(*first);
    }
    PackedColumn(const PackedColumn& other);
    PackedColumn& operator=(const PackedColumn& other);
    PackedColumn(PackedColumn&& other) noexcept;
    PackedColumn& operator=(PackedColumn&& other) noexcept;
    ~PackedColumn() = default;

    void push_back(value_type v) {
        if (m_tail.capacity() < kBlock)
            m_tail.reserve(kBlock);
        m_tail.push_back(v);
        ++m_size;
        if (m_tail.size() == kBlock)
            seal();
    }
    value_type operator[](std::size_t i) const {
        const std::size_t b = i / kBlock;
        if (b == m_blocks.size())
            return m_tail[i % kBlock];
        const Block& k = m_blocks[b];
        if (k.bits == 0)
            return kNull;
        return valueAt(k, m_pages[k.page].data() + k.offset, i % kBlock);
    }
    std::size_t size() const noexcept { return m_size; }
    bool empty() const noexcept { return m_size == 0; }
    const_iterator begin() const noexcept { return {this, 0}; }
    const_iterator end() const noexcept { return {this, m_size}; }
    /// The same values in the same order.
    bool operator==(const PackedColumn& other) const;
    void clear();
    /// Appends every value of `other`.
    void append(const PackedColumn& other);
    /// Whether the values at [block * kBlock, (block + 1) * kBlock) may
    /// include one in [lo, hi): false only when none of them does, so a scan
    /// for a range of values can skip the whole block.
    bool blockMayHold(std::size_t block, value_type lo, value_type hi) const noexcept {
        if (block >= m_blocks.size())
            return true; // the open block (or past the end): not summarised
        const Block& k = m_blocks[block];
        return k.bits != 0 && k.base < hi && k.top >= lo;
    }
    /// Decodes the values of block `block` (those at [block * kBlock,
    /// (block + 1) * kBlock), fewer in the last) into `out`, which holds
    /// kBlock; returns how many. A scan over every row reads faster so than
    /// by index.
    std::size_t decodeBlock(std::size_t block, value_type* out) const noexcept;
    /// Bytes held (pages, block table and the open block), for tests and
    /// benchmarks.
    std::size_t bytesHeld() const noexcept;

    static constexpr std::size_t kBlock = 4096;

private:
    struct Block {
        value_type base = 0;    ///< the least non-NULL value
        value_type top = 0;     ///< the greatest
        std::uint64_t null = 0; ///< the offset that stands for NULL (all ones)
        std::uint32_t page = 0; ///< index in m_pages
        std::uint32_t offset = 0;
        std::uint8_t bits = 0; ///< bits a value (1-57 or 64); 0: every value is NULL
    };
    /// Value j of a block of 1-64 bits whose bytes start at `data`.
    static value_type valueAt(const Block& k, const std::byte* data, std::size_t j) noexcept {
        const std::size_t bit = j * k.bits;
        std::uint64_t u = 0;
        // Every page has 8 spare bytes at its end: an 8-byte load is safe.
        std::memcpy(&u, data + bit / 8, sizeof u);
        // A value of up to 57 bits lies in the 8 bytes from its first; one
        // of 64 starts on a byte.
        u >>= bit % 8;
        if (k.bits < 64)
            u &= (std::uint64_t{1} << k.bits) - 1;
        return u == k.null ? kNull
                           : static_cast<value_type>(static_cast<std::uint64_t>(k.base) + u);
    }
    /// The widest packing whose values an 8-byte load from their first
    /// byte holds (a shift of up to 7 bits); wider blocks take 64.
    static constexpr std::uint8_t kMaxPackedBits = 57;
    /// Encodes the full open block into the pages and empties it.
    void seal();
    static_assert(std::endian::native == std::endian::little,
                  "offsets are stored and loaded as the low bits of a uint64");

    /// Pages are MappedBytes: only the bytes written are resident (the last
    /// page of a column is mostly unused), and all of it goes back when freed.
    static constexpr std::size_t kMapBytes = std::size_t{1} << 20;
    /// Spare bytes at a page's end: an 8-byte load of its last value.
    static constexpr std::size_t kPad = 8;
    static constexpr std::size_t kPageBytes = kMapBytes - kPad;
    std::vector<MappedBytes> m_pages;
    std::size_t m_pageUsed = kPageBytes; ///< bytes used in the last page
    std::vector<Block> m_blocks;
    std::vector<value_type> m_tail; ///< the open block, raw
    std::size_t m_size = 0;
};

} // namespace lq::core
