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
    // in the strip and does not flicker when its numbers follow the file.
    QWidget* frame = m_banners.value(key);
    QLabel* label = nullptr;
    if (frame) {
        label = frame->findChild<QLabel*>(QStringLiteral("bannerText"));
        // Its button may be the one being clicked: gone once the click is.
        if (auto* old = frame->findChild<QPushButton*>(QStringLiteral("bannerButton"))) {
            old->setObjectName(QString());
            old->hide();
            old->deleteLater();
        }
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
    pal.setColor(QPalette::Window, colors.background);
    pal.setColor(QPalette::WindowText, colors.foreground);
    frame->setPalette(pal);
    label->setText(text);
    if (!buttonText.isEmpty() && onButton) {
        auto* button = new QPushButton(buttonText, frame);
        button->setObjectName(QStringLiteral("bannerButton"));
        connect(button, &QPushButton::clicked, this, [onButton] { onButton(); });
        frame->layout()->addWidget(button);
    }
    setVisible(true);
}

void BannerBar::removeBanner(const QString& key) {
    if (QWidget* w = m_banners.take(key)) {
        w->deleteLater();
        w->hide();
    }
    setVisible(!m_banners.isEmpty());
}

void BannerBar::clear() {
    const QStringList all = m_banners.keys();
    for (const QString& k : all) {
        removeBanner(k);
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
