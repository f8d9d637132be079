// SPDX-License-Identifier: MIT
#include "packedcolumn.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace lq::core {

PackedColumn::PackedColumn(const PackedColumn& other) {
    append(other);
}

PackedColumn::PackedColumn(PackedColumn&& other) noexcept
    : m_pages(std::move(other.m_pages))
    , m_pageUsed(std::exchange(other.m_pageUsed, kPageBytes))
    , m_blocks(std::move(other.m_blocks))
    , m_tail(std::move(other.m_tail))
    , m_size(std::exchange(other.m_size, 0)) {
    other.clear();
}

PackedColumn& PackedColumn::operator=(PackedColumn&& other) noexcept {
    if (this != &other) {
        m_pages = std::move(other.m_pages);
        m_pageUsed = std::exchange(other.m_pageUsed, kPageBytes);
        m_blocks = std::move(other.m_blocks);
        m_tail = std::move(other.m_tail);
        m_size = std::exchange(other.m_size, 0);
        other.clear();
    }
    return *this;
}

PackedColumn& PackedColumn::operator=(const PackedColumn& other) {
    if (this != &other) {
        clear();
        append(other);
    }
    return *this;
}

void PackedColumn::clear() {
    m_pages.clear();
    m_pageUsed = kPageBytes;
    m_blocks.clear();
    m_tail.clear();
    m_size = 0;
}

void PackedColumn::append(const PackedColumn& other) {
    if (&other == this) {
        // Onto itself: by index, up to the size it had (decodeBlock would
        // read the block being filled).
        const std::size_t n = m_size;
        for (std::size_t i = 0; i < n; ++i)
            push_back((*this)[i]);
        return;
    }
    std::vector<value_type> block(kBlock);
    for (std::size_t k = 0;; ++k) {
        const std::size_t n = other.decodeBlock(k, block.data());
        if (n == 0)
            break;
        for (std::size_t j = 0; j < n; ++j)
            push_back(block[j]);
    }
}

bool PackedColumn::operator==(const PackedColumn& other) const {
    if (m_size != other.m_size)
        return false;
    // Block by block: the poll compares orderings of millions of rows.
    std::vector<value_type> a(kBlock), b(kBlock);
    for (std::size_t k = 0;; ++k) {
        const std::size_t n = decodeBlock(k, a.data());
        if (n == 0)
            return true;
        other.decodeBlock(k, b.data());
        if (!std::equal(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(n), b.begin()))
            return false;
    }
}

std::size_t PackedColumn::decodeBlock(std::size_t block, value_type* out) const noexcept {
    if (block >= m_blocks.size()) {
        if (block > m_blocks.size())
            return 0;
        std::copy(m_tail.begin(), m_tail.end(), out);
        return m_tail.size();
    }
    const Block k = m_blocks[block]; // a local: the stores to `out` cannot change it
    if (k.bits == 0) {
        std::fill_n(out, kBlock, kNull);
        return kBlock;
    }
    const std::byte* p = m_pages[k.page].data() + k.offset;
    for (std::size_t i = 0; i < kBlock; ++i)
        out[i] = valueAt(k, p, i);
    return kBlock;
}

std::size_t PackedColumn::bytesHeld() const noexcept {
    // Pages count as far as they are written (the rest is never touched).
    const std::size_t pages = m_pages.empty() ? 0 : (m_pages.size() - 1) * kMapBytes + m_pageUsed;
    return pages + m_blocks.capacity() * sizeof(Block) + m_tail.capacity() * sizeof(value_type);
}

void PackedColumn::seal() {
    const value_type* v = m_tail.data();
    // The range of the block's values, NULLs aside; unsigned, so any two
    // int64 values have a difference that fits.
    bool any = false;
    value_type lo = 0, hi = 0;
    for (std::size_t i = 0; i < kBlock; ++i) {
        if (v[i] == kNull)
            continue;
        if (!any) {
            lo = hi = v[i];
            any = true;
        } else {
            lo = std::min(lo, v[i]);
            hi = std::max(hi, v[i]);
        }
    }
    Block b;
    if (!any) {
        m_blocks.push_back(b); // width 0: all NULL, no bytes
        m_tail.clear();
        return;
    }
    // The widest offset plus one more code for NULL (all ones). A value
    // wider than 57 bits may not lie in the 8 bytes from its first byte:
    // those take 64.
    const std::uint64_t range = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
    std::uint8_t bits = 1;
    while (bits <= kMaxPackedBits && range + 1 > (std::uint64_t{1} << bits) - 1)
        ++bits;
    if (bits > kMaxPackedBits)
        bits = 64;
    // At 64 bits the largest offset is 2^64 - 2 (hi = INT64_MAX, lo =
    // INT64_MIN + 1, since INT64_MIN is the NULL): all ones stays free.
    b.base = lo;
    b.top = hi;
    b.bits = bits;
    b.null = bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
    const std::size_t bytes = kBlock / 8 * bits;
    if (m_pageUsed + bytes > kPageBytes) {
        m_pages.emplace_back(kMapBytes);
        m_pageUsed = 0;
    }
    b.page = static_cast<std::uint32_t>(m_pages.size() - 1);
    b.offset = static_cast<std::uint32_t>(m_pageUsed);
    // Fresh pages are zero: each value is ORed into place, low bits first
    // (little-endian), touching at most the 8 bytes from its first byte
    // (the page's spare bytes cover the last).
    std::byte* out = m_pages.back().data() + m_pageUsed;
    for (std::size_t i = 0; i < kBlock; ++i) {
        const std::uint64_t u =
            v[i] == kNull ? b.null
                          : static_cast<std::uint64_t>(v[i]) - static_cast<std::uint64_t>(lo);
        const std::size_t bit = i * bits;
        std::uint64_t word = 0;
        std::memcpy(&word, out + bit / 8, sizeof word);
        word |= u << (bit % 8);
        std::memcpy(out + bit / 8, &word, sizeof word);
    }
    m_pageUsed += bytes;
    m_blocks.push_back(b);
    m_tail.clear();
}

} // namespace lq::core
