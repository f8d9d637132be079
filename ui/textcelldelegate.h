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

    /// Where a cell's text goes: the part of `option.rect` the style leaves
    /// beside the check box and icon, less nothing else. The style's own
    /// text rect is the text's box aligned inside this area; it would shape
    /// the whole text to size that box (a payload preview of a thousand
    /// characters, on every paint), so the area is asked for once per cell
    /// geometry with a text that fills it, and the shown text is aligned in
    /// it here.
    QRect textArea(const QStyleOptionViewItem& option) const;

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
    /// What the style's layout of a cell depends on, besides the text.
    struct AreaKey {
        QSize size;
        int font = 0;
        int features = 0;
        QSize decoration;
        int decorationPosition = 0;
        int direction = 0;
        const void* style = nullptr; ///< the app does not change styles while it runs
        friend bool operator==(const AreaKey& a, const AreaKey& b) = default;
        friend size_t qHash(const AreaKey& k, size_t seed = 0) {
            return qHashMulti(seed, k.size.width(), k.size.height(), k.font, k.features,
                              k.decoration.width(), k.decoration.height(), k.decorationPosition,
                              k.direction, k.style);
        }
    };

    mutable QHash<Key, QStaticText> m_cache;
    mutable QList<QFont> m_fonts;          ///< the few fonts the cells use
    mutable QHash<AreaKey, QRect> m_areas; ///< textArea() relative to the cell
};

} // namespace lq::ui
