// SPDX-License-Identifier: MIT
#include "ui/enqueuedialog.h"

#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace lq::ui {

EnqueueDialog::EnqueueDialog(QWidget* parent)
    : QDialog(parent)
    , m_data(new QPlainTextEdit(this))
    , m_key(new QLineEdit(this)) {
    setWindowTitle(tr("Enqueue a message"));
    auto* layout = new QVBoxLayout(this);
    auto* form = new QFormLayout;
    m_data->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_data->setPlaceholderText(tr("Payload (any text; JSON is common)"));
    m_key->setPlaceholderText(tr("optional: a put with a stored key returns the stored message"));
    form->addRow(tr("Payload:"), m_data);
    form->addRow(tr("Idempotency key:"), m_key);
    layout->addLayout(form);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Enqueue"));
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    resize(520, 320);
}

QString EnqueueDialog::data() const {
    return m_data->toPlainText();
}

QString EnqueueDialog::idempotencyKey() const {
    return m_key->text();
}

} // namespace lq::ui
