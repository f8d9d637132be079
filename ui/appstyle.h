// SPDX-License-Identifier: MIT
#pragma once

#include <QProxyStyle>

namespace lq::ui {

/// The app's widget style: the platform's (Fusion on most Linux desktops)
/// with scroll bars drawn as flat, opaque rectangles.
///
/// Fusion paints a scroll bar's groove and handle with gradients and its
/// edges as lines. Qt's raster engine splits any such fill taller than 96
/// lines into 64-line pieces for its own thread pool and waits for them; on
/// a 2-core virtual machine each piece waits for an idle core to wake, and
/// the window's two tall scroll bars alone kept a repaint waiting 5-10 ms
/// (docs/BENCHMARKS.md's 16 ms budget). Opaque rectangles take the raster engine's
/// direct fill on the UI thread. Horizontal bars look the same.
class AppStyle : public QProxyStyle {
    Q_OBJECT
public:
    using QProxyStyle::QProxyStyle;

    void drawComplexControl(ComplexControl control, const QStyleOptionComplex* option,
                            QPainter* painter, const QWidget* widget = nullptr) const override;
};

/// Makes AppStyle, over the current style, the application's style.
void useAppStyle();

} // namespace lq::ui
