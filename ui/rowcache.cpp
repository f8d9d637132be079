// SPDX-License-Identifier: MIT
#include "ui/rowcache.h"

#include <algorithm>

namespace lq::ui {

const MessageRow* RowCache::find(qint64 rowid) const {
    auto it = m_rows.constFind(rowid);
    return it == m_rows.cend() ? nullptr : &it.value();
}

std::vector<std::pair<qint64, quint64>> RowCache::fingerprints() const {
    std::vector<std::pair<qint64, quint64>> out;
    out.reserve(std::size_t(m_rows.size()));
    for (auto it = m_rows.cbegin(); it != m_rows.cend(); ++it) {
        out.emplace_back(it.key(), it.value().fingerprint);
    }
    return out;
}

void RowCache::touch(int block) {
    auto it = m_blocks.find(block);
    if (it != m_blocks.end() && it->lru != m_lru.begin()) {
        m_lru.splice(m_lru.begin(), m_lru, it->lru);
    }
}

bool RowCache::markPending(int block) {
    if (m_pending.contains(block)) {
        return false;
    }
    m_pending.insert(block);
    return true;
}

void RowCache::insertBlock(int block, std::vector<MessageRow>& rows,
                           std::vector<std::int64_t> rowids) {
    if (auto existing = m_blocks.constFind(block); existing != m_blocks.cend()) {
        m_lru.erase(existing->lru);
        m_blocks.remove(block);
    }
    QSet<qint64> found;
    for (MessageRow& row : rows) {
        const qint64 id = row.msg.rowid;
        found.insert(id);
        m_stale.remove(id);
        m_rows.emplace(id, std::move(row));
    }
    for (qint64 id : rowids) {
        if (!found.contains(id)) {
            m_gone.insert(id);
        }
    }
    m_lru.push_front(block);
    m_blocks.insert(block, Block{m_lru.begin(), std::move(rowids)});
    evict();
}

bool RowCache::replace(const MessageRow& row) {
    auto it = m_rows.find(row.msg.rowid);
    if (it == m_rows.end()) {
        return false;
    }
    *it = row;
    m_stale.remove(row.msg.rowid);
    return true;
}

void RowCache::markStaleExcept(const QSet<qint64>& except) {
    for (auto it = m_rows.cbegin(); it != m_rows.cend(); ++it) {
        if (!except.contains(it.key())) {
            m_stale.insert(it.key());
        }
    }
}

std::vector<int> RowCache::positionsOf(const QSet<qint64>& rowids) const {
    // Cached rows live in cached blocks: their positions are the blocks'.
    std::vector<int> positions;
    for (auto b = m_blocks.cbegin(); b != m_blocks.cend(); ++b) {
        const std::vector<std::int64_t>& ids = b.value().rowids;
        for (std::size_t i = 0; i < ids.size(); ++i) {
            if (rowids.contains(ids[i])) {
                positions.push_back(b.key() * kBlockSize + int(i));
            }
        }
    }
    std::sort(positions.begin(), positions.end());
    return positions;
}

void RowCache::forgetPositions() {
    // Rows are cached by rowid, so they stay right under a new ordering:
    // keep them to show at once (a block load refreshes them) instead of
    // "…" in every row until the blocks come back. Found with a Status sort
    // under load, where each poll reorders many rows and used to blank the
    // table for seconds. Only positions (blocks) are forgotten; rows left
    // over from them are dropped once they exceed what the blocks may hold.
    m_blocks.clear();
    m_lru.clear();
    forgetPending();
    if (m_rows.size() > qsizetype(kMaxBlocks) * kBlockSize) {
        m_rows.clear();
        m_stale.clear();
    }
}

void RowCache::forgetPending() {
    m_pending.clear();
    m_gone.clear();
}

void RowCache::clear() {
    m_rows.clear();
    m_stale.clear();
    m_blocks.clear();
    m_lru.clear();
    forgetPending();
}

void RowCache::evict() {
    while (m_blocks.size() > kMaxBlocks && !m_lru.empty()) {
        const int victim = m_lru.back();
        m_lru.pop_back();
        auto it = m_blocks.constFind(victim);
        if (it == m_blocks.cend()) {
            continue;
        }
        for (qint64 id : it->rowids) {
            m_rows.remove(id);
        }
        m_blocks.remove(victim);
    }
}

} // namespace lq::ui
