// SPDX-License-Identifier: MIT
// The Messages page's JSON field filter (core/jsonwhere.h): its row under
// the chips, opened from the search box, and the condition checked as the
// query would check it before it filters anything.
#include "ui/messagespage.h"

#include "core/backend.h"
#include "core/jsonwhere.h"
#include "ui/queuedocument.h"
#include "ui/theme.h"
#include "ui/uitext.h"

#include <QAction>
#include <QHBoxLayout>
#include <QIcon>
#include <QLabel>
#include <QLineEdit>
#include <QToolButton>
#include <QVBoxLayout>

namespace lq::ui {

void MessagesPage::createWhereRow(QVBoxLayout* pageLayout) {
    // Its own row, opened from the search box (the filter row has no room
    // left at the default width: seven-digit chip counts must not wrap).
    m_whereRow = new QWidget(this);
    auto* row = new QHBoxLayout(m_whereRow);
    row->setContentsMargins(0, 0, 0, 0);
    auto* label = new QLabel(tr("JSON field:"), m_whereRow);
    m_where = new QLineEdit(m_whereRow);
    m_where->setObjectName(QStringLiteral("where"));
    m_where->setPlaceholderText(tr("args.user_id = 42"));
    m_where->setClearButtonEnabled(true);
    m_where->setAccessibleName(tr("JSON field filter"));
    m_whereHelp =
        tr("Only jobs whose JSON field matches: FIELD.path OP VALUE, e.g. args.user_id = 42 or "
           "arguments[0]._aj_globalid ~ Order/17. OP: %1 (~: contains); without OP, the path "
           "exists. FIELD as the library names it (args, meta, arguments, payload).")
            .arg(QString::fromLatin1(core::jsonConditionOperators()));
    m_where->setToolTip(m_whereHelp);
    label->setBuddy(m_where);
    auto* close = new QToolButton(m_whereRow);
    close->setObjectName(QStringLiteral("closeWhere"));
    close->setText(tr("Close"));
    close->setToolTip(tr("Drop the JSON condition and hide this row"));
    row->addWidget(label);
    row->addWidget(m_where, 1);
    row->addWidget(close);
    m_whereRow->setVisible(false);
    pageLayout->addWidget(m_whereRow);
    m_whereAction =
        m_search->addAction(QIcon(QStringLiteral(":/icons/json.svg")), QLineEdit::TrailingPosition);
    m_whereAction->setObjectName(QStringLiteral("showWhere"));
    m_whereAction->setText(tr("Filter by a JSON field"));
    m_whereAction->setToolTip(tr("Filter by a JSON field of the job (Ctrl+J)"));
    m_whereAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_J));
    m_whereAction->setShortcutContext(Qt::WindowShortcut);
    connect(m_whereAction, &QAction::triggered, this, [this] { showWhereRow(true); });
    connect(close, &QToolButton::clicked, this, [this] { showWhereRow(false); });
}

void MessagesPage::showWhereRow(bool show) {
    m_whereRow->setVisible(show);
    if (show) {
        m_where->setFocus();
        m_where->selectAll();
    } else if (!m_where->text().isEmpty()) {
        m_where->clear(); // the filter follows (textChanged)
    }
}

std::string MessagesPage::whereCondition() {
    // Checked here, as the query would (a parse and the format's field
    // names, no SQL): a condition still being typed, or naming a field the
    // jobs do not have, filters nothing and says why.
    const std::string text = toStd(m_where->text().trimmed());
    QString problem;
    if (const auto q = m_doc->backend(); !text.empty() && m_doc->isOpen() && q) {
        try {
            (void)core::checkJsonCondition(q->jsonFieldNames(), q->formatName(), text);
        } catch (const core::Error& e) {
            problem = fromStd(e.detail());
        }
    }
    m_where->setProperty("invalid", !problem.isEmpty());
    QPalette pal = palette();
    if (!problem.isEmpty())
        pal.setColor(QPalette::Text, theme::stateColor(core::State::Failed, pal));
    m_where->setPalette(pal);
    m_where->setToolTip(problem.isEmpty() ? m_whereHelp : problem);
    m_where->setAccessibleDescription(problem.isEmpty() ? m_whereHelp : problem);
    return problem.isEmpty() ? text : std::string();
}

} // namespace lq::ui
