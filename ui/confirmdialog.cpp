// SPDX-License-Identifier: MIT
#include "ui/confirmdialog.h"

#include "ui/actionreport.h"

#include <QButtonGroup>
#include <QDialogButtonBox>
#include <QLabel>
#include <QPushButton>
#include <QRadioButton>
#include <QVBoxLayout>

namespace lq::ui {

ConfirmDialog::ConfirmDialog(const ConfirmRequest& request, QWidget* parent)
    : QDialog(parent)
    , m_request(request) {
    setWindowTitle(tr("Confirm"));
    setObjectName(QStringLiteral("confirmDialog"));
    auto* layout = new QVBoxLayout(this);
    m_text = new QLabel(this);
    m_text->setObjectName(QStringLiteral("confirmText"));
    m_text->setTextFormat(Qt::PlainText);
    m_text->setWordWrap(true);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_text->setMinimumWidth(420);
    layout->addWidget(m_text);
    if (request.scopeOffered) {
        auto* group = new QButtonGroup(this);
        m_selection = new QRadioButton(
            request.selectionCount > 0
                ? tr("Only the selected job(s): %1").arg(localeCount(request.selectionCount))
                : tr("Only the selected job(s): none selected"),
            this);
        m_selection->setObjectName(QStringLiteral("scopeSelection"));
        m_selection->setEnabled(request.selectionCount > 0);
        m_filter = new QRadioButton(
            request.filterCount >= 0
                ? tr("Every job matching the filter: %1").arg(localeCount(request.filterCount))
                : tr("Every job matching the filter"),
            this);
        m_filter->setObjectName(QStringLiteral("scopeFilter"));
        group->addButton(m_selection);
        group->addButton(m_filter);
        const bool all = request.wholeFilter || request.selectionCount == 0;
        (all ? m_filter : m_selection)->setChecked(true);
        layout->addWidget(m_selection);
        layout->addWidget(m_filter);
        connect(group, &QButtonGroup::buttonToggled, this, [this] { update(); });
    }
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    // Enter answers Cancel: a write is one deliberate click or Alt+O away.
    QPushButton* cancel = buttons->button(QDialogButtonBox::Cancel);
    cancel->setDefault(true);
    cancel->setFocus();
    update();
}

bool ConfirmDialog::wholeFilter() const {
    return m_filter && m_filter->isChecked();
}

QString ConfirmDialog::text() const {
    return m_text->text();
}

void ConfirmDialog::update() {
    m_text->setText(wholeFilter() ? m_request.filterText : m_request.text);
}

} // namespace lq::ui
