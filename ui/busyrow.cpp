// SPDX-License-Identifier: MIT
#include "ui/busyrow.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QShortcut>
#include <QToolButton>

namespace lq::ui {

BusyRow::BusyRow(QWidget* parent)
    : QWidget(parent) {
    setObjectName(QStringLiteral("busyRow"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_label = new QLabel(this);
    m_label->setTextFormat(Qt::PlainText);
    auto* bar = new QProgressBar(this);
    bar->setRange(0, 0); // how far a scan is, SQLite does not say
    bar->setTextVisible(false);
    bar->setMaximumWidth(160);
    bar->setAccessibleName(tr("Filtering"));
    auto* cancel = new QToolButton(this);
    cancel->setObjectName(QStringLiteral("cancelFilter"));
    cancel->setText(tr("Cancel"));
    cancel->setToolTip(tr("Drop the search and the JSON condition: the read stops (Esc)"));
    layout->addWidget(m_label);
    layout->addWidget(bar);
    layout->addWidget(cancel);
    layout->addStretch(1);
    setVisible(false);
    connect(cancel, &QToolButton::clicked, this, &BusyRow::cancelRequested);
    // Esc is taken only while the row shows (elsewhere it is the views').
    m_esc = new QShortcut(QKeySequence(Qt::Key_Escape), this);
    m_esc->setContext(Qt::WindowShortcut);
    m_esc->setEnabled(false);
    connect(m_esc, &QShortcut::activated, this, &BusyRow::cancelRequested);
    m_delay.setSingleShot(true);
    connect(&m_delay, &QTimer::timeout, this, [this] {
        setVisible(true);
        m_esc->setEnabled(true);
    });
}

void BusyRow::started(const QString& text, int delayMs) {
    m_label->setText(text);
    m_delay.start(delayMs);
}

void BusyRow::done() {
    m_delay.stop();
    m_esc->setEnabled(false);
    setVisible(false);
}

} // namespace lq::ui
