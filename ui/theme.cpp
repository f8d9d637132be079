// SPDX-License-Identifier: MIT
#include "ui/theme.h"

#include <QApplication>
#include <QGuiApplication>
#include <QStyleFactory>

#include <algorithm>
#include <cmath>

namespace lq::ui::theme {

using core::State;

bool isDark(const QPalette& p) {
    return p.color(QPalette::Window).lightness() < 128;
}

QPalette appPalette() {
    return QGuiApplication::palette();
}

QColor stateColor(State s, const QPalette& p) {
    const bool dark = isDark(p);
    // Light: Material 700-900 shades; dark: 200-300 tints of the same hues.
    switch (s) {
    case State::Ready:
        return dark ? QColor(0x64, 0xb5, 0xf6) : QColor(0x15, 0x65, 0xc0);
    case State::Locked:
    case State::Leased:
        return dark ? QColor(0xff, 0xb7, 0x4d) : QColor(0xa8, 0x48, 0x00);
    case State::Done:
        return dark ? QColor(0x81, 0xc7, 0x84) : QColor(0x27, 0x6b, 0x2b);
    case State::Failed:
        return dark ? QColor(0xef, 0x9a, 0x9a) : QColor(0xc6, 0x28, 0x28);
    case State::Scheduled:
        return dark ? QColor(0xce, 0x93, 0xd8) : QColor(0x6a, 0x1b, 0x9a);
    case State::Expired:
        return dark ? QColor(0xbc, 0xaa, 0xa4) : QColor(0x79, 0x55, 0x48);
    case State::Unknown:
        break;
    }
    return dark ? QColor(0xbd, 0xbd, 0xbd) : QColor(0x61, 0x61, 0x61);
}

QColor stuckBackground(const QPalette& p) {
    return isDark(p) ? QColor(0x4a, 0x3a, 0x00) : QColor(0xff, 0xf1, 0xc4);
}

QColor mutedText(const QPalette& p) {
    return isDark(p) ? QColor(0xa0, 0xa0, 0xa0) : QColor(0x6b, 0x6b, 0x6b);
}

BannerColors bannerColors(BannerBar::Level level, const QPalette& p) {
    const bool dark = isDark(p);
    BannerColors c;
    c.foreground = dark ? QColor(0xf0, 0xf0, 0xf0) : QColor(0x21, 0x21, 0x21);
    switch (level) {
    case BannerBar::Level::Info:
        c.background = dark ? QColor(0x0d, 0x3a, 0x5c) : QColor(0xe3, 0xf2, 0xfd);
        break;
    case BannerBar::Level::Warning:
        c.background = dark ? QColor(0x4d, 0x3b, 0x00) : QColor(0xff, 0xf3, 0xcd);
        break;
    case BannerBar::Level::Error:
        c.background = dark ? QColor(0x5c, 0x1a, 0x1a) : QColor(0xfd, 0xde, 0xde);
        break;
    }
    return c;
}

QColor healthColor(Health h, const QPalette& p) {
    const bool dark = isDark(p);
    switch (h) {
    case Health::Ok:
        return dark ? QColor(0x81, 0xc7, 0x84) : QColor(0x27, 0x6b, 0x2b);
    case Health::Warning:
        return dark ? QColor(0xff, 0xb7, 0x4d) : QColor(0xa1, 0x53, 0x00);
    case Health::Stuck:
        return dark ? QColor(0xef, 0x9a, 0x9a) : QColor(0xc6, 0x28, 0x28);
    case Health::Skipped:
        break;
    }
    return mutedText(p);
}

QPalette darkPalette() {
    const QColor window(0x2d, 0x2d, 0x2d);
    const QColor base(0x23, 0x23, 0x23);
    const QColor text(0xe8, 0xe8, 0xe8);
    const QColor disabled(0x80, 0x80, 0x80);
    QPalette p;
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, QColor(0x2a, 0x2a, 0x2a));
    p.setColor(QPalette::ToolTipBase, QColor(0x3a, 0x3a, 0x3a));
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, QColor(0xa0, 0xa0, 0xa0));
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, QColor(0x3a, 0x3a, 0x3a));
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, QColor(0xff, 0x8a, 0x80));
    p.setColor(QPalette::Light, QColor(0x4a, 0x4a, 0x4a));
    p.setColor(QPalette::Midlight, QColor(0x40, 0x40, 0x40));
    p.setColor(QPalette::Mid, QColor(0x30, 0x30, 0x30));
    p.setColor(QPalette::Dark, QColor(0x1a, 0x1a, 0x1a));
    p.setColor(QPalette::Shadow, QColor(0x10, 0x10, 0x10));
    p.setColor(QPalette::Highlight, QColor(0x2f, 0x65, 0xca));
    p.setColor(QPalette::HighlightedText, QColor(0xff, 0xff, 0xff));
    p.setColor(QPalette::Link, QColor(0x64, 0xb5, 0xf6));
    p.setColor(QPalette::LinkVisited, QColor(0xce, 0x93, 0xd8));
    for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText}) {
        p.setColor(QPalette::Disabled, role, disabled);
    }
    p.setColor(QPalette::Disabled, QPalette::Highlight, QColor(0x40, 0x40, 0x40));
    return p;
}

void useDarkFusion() {
    QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    QApplication::setPalette(darkPalette());
}

double relativeLuminance(const QColor& c) {
    const auto channel = [](double v) {
        return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
    };
    const QColor rgb = c.toRgb();
    return 0.2126 * channel(rgb.redF()) + 0.7152 * channel(rgb.greenF()) +
           0.0722 * channel(rgb.blueF());
}

double contrastRatio(const QColor& a, const QColor& b) {
    const double la = relativeLuminance(a);
    const double lb = relativeLuminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

} // namespace lq::ui::theme
