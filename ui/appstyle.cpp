// SPDX-License-Identifier: MIT
#include "ui/appstyle.h"

#include <QApplication>
#include <QPainter>
#include <QStyleOptionSlider>

namespace lq::ui {

namespace {

/// A one-pixel frame as four opaque fills (a drawn rectangle's outline
/// would be lines, which the raster engine may hand to its pool).
void frame(QPainter* p, const QRect& r, const QColor& c) {
    p->fillRect(QRect(r.left(), r.top(), r.width(), 1), c);
    p->fillRect(QRect(r.left(), r.bottom(), r.width(), 1), c);
    p->fillRect(QRect(r.left(), r.top(), 1, r.height()), c);
    p->fillRect(QRect(r.right(), r.top(), 1, r.height()), c);
}

} // namespace

void AppStyle::drawComplexControl(ComplexControl control, const QStyleOptionComplex* option,
                                  QPainter* painter, const QWidget* widget) const {
    const auto* bar = qstyleoption_cast<const QStyleOptionSlider*>(option);
    if (control != CC_ScrollBar || !bar) {
        QProxyStyle::drawComplexControl(control, option, painter, widget);
        return;
    }
    const QPalette& pal = bar->palette;
    const QColor window = pal.color(QPalette::Window);
    const bool dark = window.lightness() < 128;
    const QColor groove = dark ? window.lighter(115) : window.darker(104);
    const QColor edge = dark ? window.lighter(140) : window.darker(118);
    const QColor base = pal.color(QPalette::Button);
    const bool sunken =
        (bar->state & State_Sunken) && (bar->activeSubControls & SC_ScrollBarSlider);
    const bool hover =
        (bar->state & State_MouseOver) && (bar->activeSubControls & SC_ScrollBarSlider);
    QColor handle = dark ? base.lighter(sunken  ? 150
                                        : hover ? 135
                                                : 125)
                         : base.darker(sunken  ? 118
                                       : hover ? 108
                                               : 102);
    if (!(bar->state & State_Enabled)) {
        handle = groove;
    }

    const QRect grooveRect = subControlRect(CC_ScrollBar, bar, SC_ScrollBarGroove, widget);
    if (bar->subControls & SC_ScrollBarGroove) {
        painter->fillRect(grooveRect, groove);
        // The edge toward the content.
        painter->fillRect(bar->orientation == Qt::Vertical
                              ? QRect(grooveRect.left(), grooveRect.top(), 1, grooveRect.height())
                              : QRect(grooveRect.left(), grooveRect.top(), grooveRect.width(), 1),
                          edge);
    }
    if ((bar->subControls & SC_ScrollBarSlider) && bar->maximum > bar->minimum) {
        const QRect slider = subControlRect(CC_ScrollBar, bar, SC_ScrollBarSlider, widget)
                                 .adjusted(bar->orientation == Qt::Vertical ? 2 : 1,
                                           bar->orientation == Qt::Vertical ? 1 : 2, -1, -1);
        if (slider.isValid()) {
            painter->fillRect(slider.adjusted(1, 1, -1, -1), handle);
            frame(painter, slider, edge.darker(dark ? 80 : 115));
        }
    }
    // The arrow buttons are short: Fusion's own drawing stays.
    QStyleOptionSlider rest = *bar;
    rest.subControls &= (SC_ScrollBarAddLine | SC_ScrollBarSubLine);
    if (rest.subControls) {
        QProxyStyle::drawComplexControl(control, &rest, painter, widget);
    }
}

void useAppStyle() {
    QApplication::setStyle(new AppStyle(QApplication::style()->name()));
}

} // namespace lq::ui
