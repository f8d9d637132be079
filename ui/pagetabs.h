// SPDX-License-Identifier: MIT
#pragma once

#include <QEvent>
#include <QSize>
#include <QTabWidget>

#include <optional>

namespace lq::ui {

/// The window's tab pages (messages, dashboard, failures, ...). They fill
/// the room the window gives them: their height never depends on their
/// width, and what they hold never resizes the window. A QTabWidget asks
/// every page, hidden or not, for its size at each relayout of the window
/// (a chip's new text, a banner), and each word-wrapped label on them
/// shapes its text to answer: 8 - 14 ms on the UI thread a time, most of
/// the stalls left in the first second after an open (docs/BENCHMARKS.md).
/// So the sizes are asked once, and again only when a page is added or
/// removed or the font or the style changes.
class PageTabs final : public QTabWidget {
    Q_OBJECT
public:
    using QTabWidget::QTabWidget;
    bool hasHeightForWidth() const override { return false; }
    int heightForWidth(int /*width*/) const override { return -1; }
    QSize sizeHint() const override {
        if (!m_hint)
            m_hint = QTabWidget::sizeHint();
        return *m_hint;
    }
    QSize minimumSizeHint() const override {
        if (!m_minimum)
            m_minimum = QTabWidget::minimumSizeHint();
        return *m_minimum;
    }

protected:
    // A page added or removed: its size counts in the hints.
    void tabInserted(int /*index*/) override { forgetHints(); }
    void tabRemoved(int /*index*/) override { forgetHints(); }
    void changeEvent(QEvent* e) override {
        if (e->type() == QEvent::FontChange || e->type() == QEvent::StyleChange)
            forgetHints();
        QTabWidget::changeEvent(e);
    }

private:
    void forgetHints() {
        m_hint.reset();
        m_minimum.reset();
    }

    mutable std::optional<QSize> m_hint;
    mutable std::optional<QSize> m_minimum;
};

} // namespace lq::ui
