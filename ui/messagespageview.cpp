// SPDX-License-Identifier: MIT
// MessagesPage's view of the table: which columns the format has and the
// operator shows, the id column's fit, and what is kept per file (filter,
// search, queue, sort, widths, hidden columns).
#include "ui/messagespage.h"

#include "core/formats/queueformat.h"
#include "ui/queuedocument.h"
#include "ui/settingsstore.h"
#include "ui/statusfilterbar.h"
#include "ui/uitext.h"

#include <QAction>
#include <QFontMetrics>
#include <QHeaderView>
#include <QLineEdit>
#include <QMenu>
#include <QStyle>
#include <QTableView>

#include <algorithm>

namespace lq::ui {

void MessagesPage::fitIdColumn() {
    if (m_fitIdColumn && m_model->rowCount() > 0 && m_model->rowAt(0)) {
        m_fitIdColumn = false;
        const int widest = m_view->fontMetrics().horizontalAdvance(QLatin1Char('0')) * 37 + 16;
        // The ids' own advances, not resizeColumnToContents(): that lays
        // each cell out through the style (2 ms of the turn that shows
        // the first rows). The margins are the style's, as it adds them.
        const auto column = MessageModel::MessageId;
        const QFontMetrics ids(m_model->index(0, column).data(Qt::FontRole).value<QFont>());
        int text = 0;
        for (int r = 0, n = std::min(m_model->rowCount(), 64); r < n; ++r) {
            text =
                std::max(text, ids.horizontalAdvance(m_model->index(r, column).data().toString()));
        }
        const int margin =
            2 * (m_view->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, m_view) + 1);
        const int fit = std::max(text + margin + (m_view->showGrid() ? 1 : 0),
                                 m_view->horizontalHeader()->sectionSizeHint(column)) +
                        16;
        m_view->horizontalHeader()->resizeSection(column, std::min(widest, fit));
        // Kept with the file's view: it was saved at the open, before the
        // rows were there to fit, and came back UUID-wide for small ids.
        rememberView();
    }
}

void MessagesPage::rememberView() {
    const QString path = m_doc->path();
    if (path.isEmpty() || m_restoringView) {
        return;
    }
    const QString group = fileSettingsKey(path) + u'/';
    const auto set = [&group](const QString& name, const QVariant& v) {
        settings::setValue(group + name, v);
    };
    set(QStringLiteral("path"), path);
    set(QStringLiteral("choice"), int(m_filterBar->choice()));
    set(QStringLiteral("extraStates"), m_filterBar->checkedExtras());
    set(QStringLiteral("search"), m_search->text());
    set(QStringLiteral("where"), m_where->text());
    set(QStringLiteral("queue"), m_queue);
    set(QStringLiteral("sortColumn"), m_sortColumn);
    set(QStringLiteral("sortOrder"), int(m_sortOrder));
    set(QStringLiteral("header"), m_view->horizontalHeader()->saveState());
    QVariantList hidden;
    for (int c : std::as_const(m_userHidden)) {
        hidden << c;
    }
    set(QStringLiteral("hiddenColumns"), hidden);
}

void MessagesPage::restoreView() {
    const QString path = m_doc->path();
    m_userHidden.clear();
    m_queue.clear();
    const QString group = fileSettingsKey(path) + u'/';
    const auto stored = [&group](const QString& name, const QVariant& fallback = {}) {
        return settings::value(group + name, fallback);
    };
    if (stored(QStringLiteral("path")).toString() != path) {
        return; // never opened here before
    }
    {
        QSignalBlocker block(m_search);
        m_search->setText(stored(QStringLiteral("search")).toString());
    }
    {
        QSignalBlocker block(m_where);
        m_where->setText(stored(QStringLiteral("where")).toString());
        m_whereRow->setVisible(!m_where->text().isEmpty());
    }
    m_queue = stored(QStringLiteral("queue")).toString();
    const auto choice = StatusFilterBar::Choice(stored(QStringLiteral("choice"), 0).toInt());
    if (choice >= StatusFilterBar::All && choice <= StatusFilterBar::Expired) {
        QSignalBlocker block(m_filterBar);
        m_filterBar->setChoice(choice);
        m_filterBar->setCheckedExtras(stored(QStringLiteral("extraStates")).toStringList());
    }
    QHeaderView* hh = m_view->horizontalHeader();
    m_fitIdColumn = !hh->restoreState(stored(QStringLiteral("header")).toByteArray());
    const QVariantList hidden = stored(QStringLiteral("hiddenColumns")).toList();
    for (const QVariant& c : hidden) {
        m_userHidden.insert(c.toInt());
    }
    const int col = stored(QStringLiteral("sortColumn"), int(MessageModel::MessageId)).toInt();
    const auto order = Qt::SortOrder(stored(QStringLiteral("sortOrder"), 0).toInt());
    if (MessageModel::isSortable(col)) {
        hh->setSortIndicator(col, order);
    }
}

bool MessagesPage::formatHasColumn(int column) const {
    // The latency columns where the format stores what they read (the
    // dashboard's rule: Laravel keeps reservations, so a wait, but no
    // finish); a key column where it has keys; the field columns it declares.
    const core::QueueFormat& format = m_doc->format();
    if (column == MessageModel::Claim) {
        return !format.tokenField();
    }
    if (column == MessageModel::IdempotencyKey) {
        return format.hasKeys(m_doc->info());
    }
    using BaseTime = core::QueueFormat::BaseTime;
    if (column == MessageModel::Enqueued) {
        return format.storesTime(BaseTime::Enqueued);
    }
    if (column == MessageModel::Claimed) {
        return format.storesTime(BaseTime::Claimed);
    }
    if (column == MessageModel::Finished) {
        return format.storesTime(BaseTime::Finished);
    }
    if (column == MessageModel::Wait) {
        return format.storesMetric(core::Filter::Metric::Wait, m_doc->info());
    }
    if (column == MessageModel::Processing) {
        return format.storesMetric(core::Filter::Metric::Processing, m_doc->info());
    }
    if (const auto f = MessageModel::fieldOf(column)) {
        return format.hasField(*f);
    }
    return true;
}

void MessagesPage::applyColumnSet() {
    for (int c = 0; c < MessageModel::ColumnCount; ++c) {
        m_view->setColumnHidden(c, !formatHasColumn(c) || m_userHidden.contains(c));
    }
    // A claim token stored as text (an execution, an allocation id) needs room.
    if (m_doc->format().hasField(core::QueueFormat::Field::Token)) {
        QHeaderView* hh = m_view->horizontalHeader();
        const int wide =
            m_view->fontMetrics().horizontalAdvance(QStringLiteral("claimed:00:00")) + 16;
        if (hh->sectionSize(MessageModel::Claim) < wide) {
            hh->resizeSection(MessageModel::Claim, wide);
        }
    }
}

void MessagesPage::setColumnShown(int column, bool shown) {
    if (shown) {
        m_userHidden.remove(column);
    } else {
        m_userHidden.insert(column);
    }
    applyColumnSet();
    rememberView();
}

void MessagesPage::showHeaderMenu(const QPoint& pos) {
    // The operator hides and shows the columns this format has; the choice
    // is kept per file with the rest of the view.
    QMenu menu(this);
    for (int c = 0; c < MessageModel::ColumnCount; ++c) {
        if (!formatHasColumn(c) || c == MessageModel::MessageId) {
            continue;
        }
        QAction* a = menu.addAction(m_model->headerData(c, Qt::Horizontal).toString());
        a->setCheckable(true);
        a->setChecked(!m_userHidden.contains(c));
        connect(a, &QAction::toggled, this, [this, c](bool shown) { setColumnShown(c, shown); });
    }
    menu.exec(m_view->horizontalHeader()->mapToGlobal(pos));
}

} // namespace lq::ui
