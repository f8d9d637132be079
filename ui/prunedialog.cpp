// SPDX-License-Identifier: MIT
#include "ui/prunedialog.h"

#include "core/clock.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace lq::ui {

PruneDialog::PruneDialog(QWidget* parent)
    : QDialog(parent)
    , m_useAge(new QCheckBox(tr("Only messages finished more than"), this))
    , m_amount(new QSpinBox(this))
    , m_unit(new QComboBox(this))
    , m_keepFailed(new QCheckBox(tr("Keep FAILED messages"), this)) {
    setWindowTitle(tr("Prune finished messages"));
    auto* layout = new QVBoxLayout(this);
    m_intro = new QLabel(this);
    m_intro->setTextFormat(Qt::PlainText);
    m_intro->setWordWrap(true);
    layout->addWidget(m_intro);
    setLibraryRule({});
    auto* form = new QFormLayout;
    m_amount->setRange(0, 100000);
    m_amount->setValue(24);
    m_amount->setAccessibleName(tr("Finished more than"));
    m_unit->addItem(tr("minutes ago"), 60);
    m_unit->addItem(tr("hours ago"), 3600);
    m_unit->addItem(tr("days ago"), 86400);
    m_unit->setCurrentIndex(1);
    m_unit->setAccessibleName(tr("Unit of the age"));
    m_useAge->setChecked(true);
    auto* age = new QHBoxLayout;
    age->addWidget(m_amount);
    age->addWidget(m_unit);
    form->addRow(m_useAge, age);
    form->addRow(m_keepFailed);
    layout->addLayout(form);
    connect(m_useAge, &QCheckBox::toggled, m_amount, &QWidget::setEnabled);
    connect(m_useAge, &QCheckBox::toggled, m_unit, &QWidget::setEnabled);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Count\u2026"));
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
}

std::optional<std::chrono::nanoseconds> PruneDialog::olderThan() const {
    if (!m_useAge->isChecked()) {
        return std::nullopt;
    }
    return core::secondsDuration(double(m_amount->value()) * m_unit->currentData().toDouble());
}

void PruneDialog::setOlderThanSeconds(std::optional<double> seconds) {
    m_useAge->setChecked(seconds.has_value());
    if (!seconds) {
        return;
    }
    const qint64 s = qint64(*seconds);
    const int unit = s % 86400 == 0 && s > 0 ? 2 : (s % 3600 == 0 && s > 0 ? 1 : 0);
    m_unit->setCurrentIndex(unit);
    m_amount->setValue(int(s / m_unit->currentData().toLongLong()));
}

void PruneDialog::setLibraryRule(const QString& text) {
    const QString cutoff = tr("The cutoff is fixed when you confirm: nothing that finishes later "
                              "is deleted.");
    m_intro->setText(text.isEmpty()
                         ? tr("Deletes DONE (and FAILED) messages from the file. %1").arg(cutoff)
                         : tr("Without an age, deletes what the library's own pruner deletes: "
                              "%1. With an age, those states finished before it. %2")
                               .arg(text, cutoff));
}

bool PruneDialog::includeFailed() const {
    return !m_keepFailed->isChecked();
}

} // namespace lq::ui
