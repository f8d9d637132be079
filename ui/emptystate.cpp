// SPDX-License-Identifier: MIT
#include "ui/emptystate.h"

#include <QAbstractScrollArea>
#include <QLabel>
#include <QVBoxLayout>

namespace lq::ui {

EmptyState::EmptyState(QAbstractScrollArea* view)
    : QObject(view)
    , m_label(new QLabel(view->viewport())) {
    m_label->setObjectName(QStringLiteral("emptyState"));
    m_label->setTextFormat(Qt::PlainText);
    m_label->setWordWrap(true);
    m_label->setAlignment(Qt::AlignCenter);
    m_label->setAttribute(Qt::WA_TransparentForMouseEvents);
    m_label->setMaximumWidth(560);
    QPalette pal = m_label->palette();
    pal.setColor(QPalette::WindowText, pal.color(QPalette::PlaceholderText));
    m_label->setPalette(pal);
    auto* layout = new QVBoxLayout(view->viewport());
    layout->addWidget(m_label, 0, Qt::AlignCenter);
    m_label->hide();
}

void EmptyState::setText(const QString& text) {
    m_label->setText(text);
    m_label->setAccessibleName(text);
    m_label->setVisible(!text.isEmpty());
}

QString EmptyState::text() const {
    return m_label->isVisible() ? m_label->text() : QString();
}

} // namespace lq::ui
