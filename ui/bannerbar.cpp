// SPDX-License-Identifier: MIT
#include "ui/bannerbar.h"

#include "ui/theme.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace lq::ui {

BannerBar::BannerBar(QWidget* parent)
    : QWidget(parent)
    , m_layout(new QVBoxLayout(this)) {
    m_layout->setContentsMargins(0, 0, 0, 0);
    m_layout->setSpacing(2);
    setVisible(false);
}

void BannerBar::setBanner(const QString& key, Level level, const QString& text,
                          const QString& buttonText, const std::function<void()>& onButton) {
    // A banner that is there already changes in place: it keeps its place
    // in the strip, its label and its button, and does not flicker (or make
    // the window lay itself out again) when its numbers follow the file.
    QWidget* frame = m_banners.value(key);
    if (!frame && m_reserved.contains(key)) {
        frame = m_reserved.value(key); // the banner takes its reserved place
        m_banners.insert(key, frame);
    }
    QLabel* label = nullptr;
    if (frame) {
        label = frame->findChild<QLabel*>(QStringLiteral("bannerText"));
    } else {
        frame = new QWidget(this);
        frame->setObjectName(QStringLiteral("banner_") + key);
        frame->setAutoFillBackground(true);
        auto* row = new QHBoxLayout(frame);
        row->setContentsMargins(8, 4, 8, 4);
        label = new QLabel(frame);
        label->setObjectName(QStringLiteral("bannerText"));
        label->setTextFormat(Qt::PlainText); // the text may quote the file
        label->setWordWrap(true);
        label->setTextInteractionFlags(Qt::TextSelectableByMouse);
        row->addWidget(label, 1);
        m_layout->addWidget(frame);
        m_banners.insert(key, frame);
    }
    QPalette pal = frame->palette();
    const theme::BannerColors colors = theme::bannerColors(level, pal);
    if (pal.color(QPalette::Window) != colors.background ||
        pal.color(QPalette::WindowText) != colors.foreground) {
        pal.setColor(QPalette::Window, colors.background);
        pal.setColor(QPalette::WindowText, colors.foreground);
        frame->setPalette(pal);
    }
    label->setText(text);
    auto* button = frame->findChild<QPushButton*>(QStringLiteral("bannerButton"));
    if (!buttonText.isEmpty() && onButton) {
        m_actions.insert(key, onButton);
        if (!button) {
            button = new QPushButton(frame);
            button->setObjectName(QStringLiteral("bannerButton"));
            QSizePolicy keep = button->sizePolicy();
            keep.setRetainSizeWhenHidden(true); // a reserved place keeps its height
            button->setSizePolicy(keep);
            // The action of the banner's latest setBanner(), called from a
            // copy: it may remove the banner.
            connect(button, &QPushButton::clicked, this, [this, key] {
                if (const std::function<void()> action = m_actions.value(key)) {
                    action();
                }
            });
            frame->layout()->addWidget(button);
        }
        button->setText(buttonText);
        button->setVisible(true);
    } else {
        m_actions.remove(key);
        if (button) {
            button->setVisible(false);
        }
    }
    setVisible(true);
}

void BannerBar::removeBanner(const QString& key) {
    m_actions.remove(key);
    if (QWidget* w = m_banners.take(key)) {
        if (m_reserved.value(key) == w) {
            blank(w); // its place stays: nothing below it moves
        } else {
            w->deleteLater();
            w->hide();
        }
    }
    setVisible(!m_banners.isEmpty() || !m_reserved.isEmpty());
}

void BannerBar::blank(QWidget* frame) {
    if (auto* label = frame->findChild<QLabel*>(QStringLiteral("bannerText"))) {
        label->clear();
    }
    if (auto* button = frame->findChild<QPushButton*>(QStringLiteral("bannerButton"))) {
        button->setVisible(false); // hidden, its size kept
    }
    frame->setPalette(palette());
}

void BannerBar::reserve(const QString& key, bool on) {
    if (!on) {
        QWidget* w = m_reserved.take(key);
        if (w && !m_banners.contains(key)) {
            w->deleteLater();
            w->hide();
        }
        setVisible(!m_banners.isEmpty() || !m_reserved.isEmpty());
        return;
    }
    if (m_reserved.contains(key)) {
        return;
    }
    if (QWidget* shown = m_banners.value(key)) {
        m_reserved.insert(key, shown);
        return;
    }
    // A banner with a button, blank: the height the banner will take.
    setBanner(key, Level::Info, QStringLiteral(" "), QStringLiteral(" "), [] {});
    QWidget* frame = m_banners.take(key);
    m_actions.remove(key);
    m_reserved.insert(key, frame);
    blank(frame);
    setVisible(true);
}

void BannerBar::clear() {
    const QStringList all = m_banners.keys();
    for (const QString& k : all) {
        removeBanner(k);
    }
    const QStringList reserved = m_reserved.keys();
    for (const QString& k : reserved) {
        reserve(k, false);
    }
}

QString BannerBar::bannerText(const QString& key) const {
    QWidget* w = m_banners.value(key);
    if (!w) {
        return {};
    }
    auto* label = w->findChild<QLabel*>(QStringLiteral("bannerText"));
    return label ? label->text() : QString();
}

} // namespace lq::ui
