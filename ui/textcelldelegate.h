// SPDX-License-Identifier: MIT
#pragma once

#include <QFont>
#include <QHash>
#include <QList>
#include <QStaticText>
#include <QStyledItemDelegate>

namespace lq::ui {

/// The message table's cells, painted as QStyledItemDelegate paints them
/// (the style draws the background, selection, icon and focus) except the
/// text: the style lays every cell's text out anew on every paint (a
/// QTextLayout per cell, 12 ms for a screenful of a dozen columns on this
/// machine, most of a frame), here each shown text is shaped once and kept
/// as a QStaticText until the cache fills. Always plain text: a payload that
/// looks like markup is shown as written.
class TextCellDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    /// Prepared texts kept; the cache is emptied when it is full.
    static constexpr qsizetype kMaxCached = 8192;

    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter* painter, const QStyleOptionViewItem& option,
               const QModelIndex& index) const override;

    /// The text painted for `text` in `width` pixels with `font`: one line,
    /// elided with `mode` when it does not fit (shaped once, then cached).
    /// The reference is valid until the next call (the cache may grow).
    const QStaticText& shownText(const QString& text, const QFont& font, int width,
                                 Qt::TextElideMode mode) const;
    qsizetype cachedTexts() const { return m_cache.size(); }

private:
    struct Key {
        QString text;
        int width = 0;
        int font = 0;
        int mode = 0;
        friend bool operator==(const Key& a, const Key& b) {
            return a.width == b.width && a.font == b.font && a.mode == b.mode && a.text == b.text;
        }
        friend size_t qHash(const Key& k, size_t seed = 0) {
            return qHashMulti(seed, k.text, k.width, k.font, k.mode);
        }
    };
    int fontIndex(const QFont& font) const;

    mutable QHash<Key, QStaticText> m_cache;
    mutable QList<QFont> m_fonts; ///< the few fonts the cells use
};

} // namespace lq::ui
