// SPDX-License-Identifier: MIT
#pragma once

#include "core/message.h"
#include "ui/bannerbar.h"

#include <QColor>
#include <QPalette>

/// The colours the UI picks itself — status text, the stuck-row background,
/// banners, fleet health — in one place. Each is chosen for the palette it
/// is drawn on: a light palette gets dark, saturated text; a dark palette
/// (its window colour is dark) gets light tints. Every foreground keeps a
/// WCAG contrast ratio of at least 4.5 against the background it sits on
/// (tst_theme checks both a light and a dark palette).
namespace lq::ui::theme {

/// Whether `p` is a dark palette: its window colour is darker than mid-grey.
bool isDark(const QPalette& p);

/// The application's palette (what models, which have no widget, draw on).
QPalette appPalette();

/// Text colour of a message status (the Status column and its dot).
QColor stateColor(core::State s, const QPalette& p = appPalette());
/// Background of a stuck row; text on it keeps the palette's Text colour.
QColor stuckBackground(const QPalette& p = appPalette());
/// Secondary text: a row not loaded yet, a skipped fleet entry.
QColor mutedText(const QPalette& p = appPalette());

struct BannerColors {
    QColor background;
    QColor foreground;
};
/// A banner's background and text per level.
BannerColors bannerColors(BannerBar::Level level, const QPalette& p);

enum class Health { Ok, Warning, Stuck, Skipped };
/// A fleet entry's health: the text colour of its name and its dot.
QColor healthColor(Health h, const QPalette& p = appPalette());

/// A dark palette for the Fusion style (`lqadmin --dark`).
QPalette darkPalette();
/// Switches the application to the Fusion style with darkPalette(); call
/// before the first window is created (models pick their icons then).
void useDarkFusion();

/// WCAG 2 relative luminance of `c` (0 black .. 1 white).
double relativeLuminance(const QColor& c);
/// WCAG 2 contrast ratio of two colours (1 .. 21); 4.5 is the minimum for
/// body text.
double contrastRatio(const QColor& a, const QColor& b);

} // namespace lq::ui::theme
