// SPDX-License-Identifier: MIT
#include "ui/prunedialog.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace lq::ui {

PruneDialog::PruneDialog(QWidget* parent)
    : QDialog(parent)
    , m_useAge(new QCheckBox(tr("Only messages finished more than"), this))
    , m_hours(new QSpinBox(this))
    , m_keepFailed(new QCheckBox(tr("Keep FAILED messages"), this)) {
    setWindowTitle(tr("Prune finished messages"));
    auto* layout = new QVBoxLayout(this);
    auto* intro = new QLabel(tr("Deletes DONE (and FAILED) messages from the file. The cutoff "
                                "is fixed when you confirm: nothing that finishes later is "
                                "deleted."),
                             this);
    intro->setWordWrap(true);
    layout->addWidget(intro);
    auto* form = new QFormLayout;
    m_hours->setRange(0, 24 * 365);
    m_hours->setValue(24);
    m_hours->setSuffix(tr(" h ago"));
    m_useAge->setChecked(true);
    form->addRow(m_useAge, m_hours);
    form->addRow(m_keepFailed);
    layout->addLayout(form);
    connect(m_useAge, &QCheckBox::toggled, m_hours, &QWidget::setEnabled);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Count\u2026"));
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
}

std::optional<double> PruneDialog::olderThanSeconds() const {
    if (!m_useAge->isChecked()) {
        return std::nullopt;
    }
    return double(m_hours->value()) * 3600.0;
}

bool PruneDialog::includeFailed() const {
    return !m_keepFailed->isChecked();
}

} // namespace lq::ui
