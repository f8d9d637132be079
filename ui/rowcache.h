// SPDX-License-Identifier: MIT
#pragma once

#include "core/message.h"

#include <QHash>
#include <QSet>
#include <QString>

#include <cstdint>
#include <list>
#include <vector>

namespace lq::ui {

/// One cached row: the message (payload cut to a preview-sized prefix, the
/// detail pane loads the rest), the payload's full size and a fingerprint of
/// everything shown, so a refresh can tell which rows changed.
struct MessageRow {
    core::Message msg;
    qint64 dataBytes = 0;
    QString preview;
    quint64 fingerprint = 0;
};

/// The rows the message table has loaded: blocks of kBlockSize positions in
/// a bounded LRU (kMaxBlocks), rows kept by rowid so they stay right under a
/// new ordering. The loader fills it (MessageLoader's block results); the
/// model reads it in data(). UI thread only.
class RowCache {
public:
    static constexpr int kBlockSize = 256;
    static constexpr int kMaxBlocks = 64;

    const MessageRow* find(qint64 rowid) const;
    /// A block load did not find the row (deleted since): not asked again
    /// until the next ordering.
    bool isGone(qint64 rowid) const { return m_gone.contains(rowid); }
    qsizetype size() const { return m_rows.size(); }
    /// (rowid, fingerprint) of every cached row.
    std::vector<std::pair<qint64, quint64>> fingerprints() const;

    /// The block was used (LRU).
    void touch(int block);
    /// False when the block is already on its way.
    bool markPending(int block);
    void donePending(int block) { m_pending.remove(block); }
    bool hasPending() const { return !m_pending.isEmpty(); }

    /// A loaded block: its rows (moved from), and the rowids asked for.
    void insertBlock(int block, std::vector<MessageRow>& rows, std::vector<std::int64_t> rowids);
    /// Replaces a cached row; false when it is not cached.
    bool replace(const MessageRow& row);
    void remove(qint64 rowid) {
        m_rows.remove(rowid);
        m_stale.remove(rowid);
    }
    /// The file changed and only `except` (the rows on screen) were read
    /// again: every other cached row is stale, shown as it was until its
    /// block is read again (MessageModel::data() asks for it).
    void markStaleExcept(const QSet<qint64>& except);
    bool isStale(qint64 rowid) const { return m_stale.contains(rowid); }
    /// Positions (block * kBlockSize + offset) of these rowids in cached
    /// blocks, ascending.
    std::vector<int> positionsOf(const QSet<qint64>& rowids) const;

    /// A new ordering: positions (blocks) are forgotten; rows stay to show at
    /// once, unless more than the blocks may hold.
    void forgetPositions();
    /// Rows moved (inserted or removed): pending and gone marks are void.
    void forgetPending();
    void clear();

private:
    struct Block {
        std::list<int>::iterator lru;
        std::vector<std::int64_t> rowids;
    };
    void evict();

    QHash<qint64, MessageRow> m_rows;
    QHash<int, Block> m_blocks;
    std::list<int> m_lru; ///< most recent first
    QSet<int> m_pending;
    QSet<qint64> m_gone;
    QSet<qint64> m_stale; ///< cached rows not read since the file last changed
};

} // namespace lq::ui
