// SPDX-License-Identifier: MIT
#include "ui/textcelldelegate.h"

#include <QApplication>
#include <QFontMetrics>
#include <QPainter>
#include <QStyle>

#include <algorithm>

namespace lq::ui {

namespace {

bool isLineBreak(QChar c) {
    return c == u'\n' || c == u'\r' || c == QChar::LineSeparator || c == QChar::ParagraphSeparator;
}

/// One line: what QCommonStyle does with line breaks in an unwrapped cell
/// would still lay out several lines; a table cell shows one. The text is
/// copied only when it has a break.
QString oneLine(const QString& text) {
    if (std::none_of(text.begin(), text.end(), isLineBreak))
        return text;
    QString out = text;
    std::replace_if(out.begin(), out.end(), isLineBreak, QChar(u' '));
    return out;
}

} // namespace

int TextCellDelegate::fontIndex(const QFont& font) const {
    const qsizetype i = m_fonts.indexOf(font);
    if (i >= 0)
        return int(i);
    m_fonts.append(font);
    return int(m_fonts.size() - 1);
}

const QStaticText& TextCellDelegate::shownText(const QString& text, const QFont& font, int width,
                                               Qt::TextElideMode mode) const {
    Key key{text, width, fontIndex(font), int(mode)};
    if (auto it = m_cache.constFind(key); it != m_cache.cend())
        return *it;
    if (m_cache.size() >= kMaxCached)
        m_cache.clear();
    const QString line = oneLine(text);
    QStaticText st;
    st.setTextFormat(Qt::PlainText);
    // A long text (a payload's 200-character preview) is shaped only as far
    // as the cell can show: a head of it that is already too wide elides to
    // the same text as the whole, as the cut is right of the ellipsis. Each
    // shaping of the whole was a third of the first paint of a table.
    if (mode == Qt::ElideRight) {
        const QFontMetrics fm(font);
        qsizetype enough = qsizetype(width / std::max(1, fm.averageCharWidth())) * 3 / 2 + 8;
        if (line.size() > enough) {
            if (line.at(enough - 1).isHighSurrogate()) {
                --enough;
            }
            const QString head = line.first(enough);
            const QString elided = fm.elidedText(head, mode, width);
            if (elided != head) {
                st.setText(elided);
                st.prepare(QTransform(), font);
                return *m_cache.insert(key, st);
            }
        }
    }
    st.setText(line);
    st.prepare(QTransform(), font);
    if (st.size().width() > width && mode != Qt::ElideNone) {
        st.setText(QFontMetrics(font).elidedText(st.text(), mode, width));
        st.prepare(QTransform(), font);
    }
    return *m_cache.insert(key, st);
}

QRect TextCellDelegate::textArea(const QStyleOptionViewItem& option) const {
    const QWidget* widget = option.widget;
    QStyle* style = widget ? widget->style() : QApplication::style();
    const AreaKey key{
        option.rect.size(),
        fontIndex(option.font),
        int(option.features &
            (QStyleOptionViewItem::HasCheckIndicator | QStyleOptionViewItem::HasDecoration)),
        (option.features & QStyleOptionViewItem::HasDecoration) ? option.decorationSize : QSize(),
        int(option.decorationPosition),
        int(option.direction),
        style};
    if (auto it = m_areas.constFind(key); it != m_areas.cend())
        return it->translated(option.rect.topLeft());
    if (m_areas.size() >= 1024)
        m_areas.clear();
    // A text wider than the cell (no glyph of 'M' is under 4 px) fills the
    // area, so the style's box for it is the area itself.
    QStyleOptionViewItem opt = option;
    opt.rect.moveTo(0, 0);
    opt.text = QString(opt.rect.width() / 4 + 2, u'M');
    opt.displayAlignment = Qt::AlignLeft | Qt::AlignVCenter;
    opt.features |= QStyleOptionViewItem::HasDisplay;
    opt.features &= ~QStyleOptionViewItem::WrapText;
    const QRect area = style->subElementRect(QStyle::SE_ItemViewItemText, &opt, widget);
    m_areas.insert(key, area);
    return area.translated(option.rect.topLeft());
}

void TextCellDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option,
                             const QModelIndex& index) const {
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    const QWidget* widget = opt.widget;
    QStyle* style = widget ? widget->style() : QApplication::style();
    const QString text = opt.text;
    const QRect textRect = textArea(opt);
    // Background, selection, icon and focus frame as the style draws them.
    opt.text.clear();
    style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, widget);
    if (text.isEmpty())
        return;
    // QCommonStyle's text margin and colours (viewItemDrawText).
    const int margin = style->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, widget) + 1;
    const QRect r = textRect.adjusted(margin, 0, -margin, 0);
    if (r.width() <= 0)
        return;
    const QStaticText& st = shownText(text, opt.font, r.width(), opt.textElideMode);
    const QPalette::ColorGroup group = !(opt.state & QStyle::State_Enabled) ? QPalette::Disabled
                                       : (opt.state & QStyle::State_Active) ? QPalette::Normal
                                                                            : QPalette::Inactive;
    painter->save();
    painter->setFont(opt.font);
    painter->setPen(opt.palette.color(
        group, (opt.state & QStyle::State_Selected) ? QPalette::HighlightedText : QPalette::Text));
    const QSizeF size = st.size();
    qreal x = r.left();
    if (opt.displayAlignment & Qt::AlignRight)
        x = r.right() + 1 - size.width();
    else if (opt.displayAlignment & Qt::AlignHCenter)
        x = r.left() + (r.width() - size.width()) / 2;
    const qreal y = r.top() + (r.height() - size.height()) / 2;
    painter->setClipRect(r, Qt::IntersectClip);
    painter->drawStaticText(QPointF(x, y), st);
    painter->restore();
}

} // namespace lq::ui
