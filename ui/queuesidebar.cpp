// SPDX-License-Identifier: MIT
#include "ui/queuesidebar.h"

#include "ui/fleetmodel.h"

#include <QApplication>
#include <QClipboard>
#include <QLabel>
#include <QListView>
#include <QMenu>
#include <QPainter>
#include <QStyledItemDelegate>
#include <QVBoxLayout>

namespace lq::ui {

namespace {

/// Two lines per queue: the name (bold, coloured by health) and the counts
/// or the reason it was skipped.
class QueueDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex&) const override {
        const QFontMetrics fm(option.font);
        return {200, fm.height() * 2 + 12};
    }

    void paint(QPainter* p, const QStyleOptionViewItem& option,
               const QModelIndex& index) const override {
        QStyleOptionViewItem opt = option;
        initStyleOption(&opt, index);
        const QString name = opt.text;
        opt.text.clear();
        opt.icon = QIcon();
        const QWidget* w = option.widget;
        QStyle* style = w ? w->style() : QApplication::style();
        style->drawControl(QStyle::CE_ItemViewItem, &opt, p, w);

        const QRect r = option.rect.adjusted(6, 4, -6, -4);
        const int iconSize = 14;
        const QIcon icon = index.data(Qt::DecorationRole).value<QIcon>();
        const QFontMetrics fm(option.font);
        icon.paint(p, QRect(r.left(), r.top() + (fm.height() - iconSize) / 2, iconSize, iconSize));

        const bool selected = option.state & QStyle::State_Selected;
        const bool skipped = index.data(FleetModel::SkippedRole).toBool();
        QColor nameColor = selected ? option.palette.color(QPalette::HighlightedText)
                                    : option.palette.color(QPalette::Text);
        if (!selected) {
            if (const QVariant fg = index.data(Qt::ForegroundRole); fg.isValid()) {
                nameColor = fg.value<QBrush>().color();
            }
        }
        QColor second = selected ? option.palette.color(QPalette::HighlightedText)
                                 : option.palette.color(QPalette::PlaceholderText);
        if (skipped && !selected) {
            second = nameColor;
        }

        p->save();
        QFont bold = option.font;
        bold.setBold(!skipped);
        p->setFont(bold);
        p->setPen(nameColor);
        const QRect line1(r.left() + iconSize + 6, r.top(), r.width() - iconSize - 6, fm.height());
        p->drawText(line1, Qt::AlignLeft | Qt::AlignVCenter,
                    QFontMetrics(bold).elidedText(name, Qt::ElideMiddle, line1.width()));
        QFont small = option.font;
        small.setPointSizeF(option.font.pointSizeF() * 0.9);
        p->setFont(small);
        p->setPen(second);
        const QRect line2(line1.left(), line1.bottom() + 2, line1.width(), fm.height());
        p->drawText(line2, Qt::AlignLeft | Qt::AlignVCenter,
                    QFontMetrics(small).elidedText(index.data(FleetModel::SummaryRole).toString(),
                                                   Qt::ElideRight, line2.width()));
        p->restore();
    }
};

} // namespace

QueueSidebar::QueueSidebar(FleetModel* model, QWidget* parent)
    : QWidget(parent)
    , m_model(model)
    , m_view(new QListView(this))
    , m_header(new QLabel(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    m_header->setTextFormat(Qt::PlainText);
    m_header->setContentsMargins(6, 2, 6, 2);
    layout->addWidget(m_header);
    m_view->setObjectName(QStringLiteral("queueList"));
    m_view->setModel(m_model);
    m_view->setItemDelegate(new QueueDelegate(m_view));
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setUniformItemSizes(true);
    m_view->setContextMenuPolicy(Qt::CustomContextMenu);
    m_view->setMouseTracking(true);
    layout->addWidget(m_view, 1);

    connect(m_view, &QListView::clicked, this, &QueueSidebar::onClicked);
    connect(m_view, &QListView::activated, this, &QueueSidebar::onClicked);
    connect(m_view, &QWidget::customContextMenuRequested, this, &QueueSidebar::showContextMenu);
    connect(m_model, &FleetModel::scanned, this, &QueueSidebar::updateHeader);
    connect(m_model, &QAbstractItemModel::rowsInserted, this, &QueueSidebar::updateHeader);
    connect(m_model, &QAbstractItemModel::rowsRemoved, this, &QueueSidebar::updateHeader);
    updateHeader();
}

void QueueSidebar::updateHeader() {
    int queues = 0;
    int skipped = 0;
    int unhealthy = 0;
    for (int r = 0; r < m_model->rowCount(); ++r) {
        const QModelIndex i = m_model->index(r);
        if (i.data(FleetModel::SkippedRole).toBool()) {
            ++skipped;
        } else if (!i.data(FleetModel::QueueNameRole).toString().isEmpty()) {
            continue; // a named queue inside a file counted already
        } else {
            ++queues;
            unhealthy += m_model->healthAt(r) != FleetModel::Healthy ? 1 : 0;
        }
    }
    if (queues == 0 && skipped == 0) {
        m_header->setText(tr("No queues. File › Open or Watch folder\u2026"));
        return;
    }
    QString t = queues == 1 ? tr("1 queue") : tr("%1 queues").arg(queues);
    if (unhealthy > 0) {
        t += unhealthy == 1 ? tr(", 1 needs attention") : tr(", %1 need attention").arg(unhealthy);
    }
    if (skipped > 0) {
        t += tr(", %1 skipped").arg(skipped);
    }
    m_header->setText(t);
}

void QueueSidebar::setCurrent(const QString& path, const QString& table, const QString& queueName) {
    const int row = m_model->rowOf(path, table, queueName);
    if (row < 0) {
        m_view->selectionModel()->clearSelection();
        return;
    }
    m_view->selectionModel()->setCurrentIndex(m_model->index(row),
                                              QItemSelectionModel::ClearAndSelect);
}

void QueueSidebar::onClicked(const QModelIndex& index) {
    if (!index.isValid()) {
        return;
    }
    if (index.data(FleetModel::SkippedRole).toBool()) {
        emit skippedActivated(index.data(FleetModel::PathRole).toString(),
                              index.data(FleetModel::ReasonRole).toString());
        return;
    }
    emit queueActivated(index.data(FleetModel::PathRole).toString(),
                        index.data(FleetModel::TableRole).toString(),
                        index.data(FleetModel::QueueNameRole).toString());
}

void QueueSidebar::showContextMenu(const QPoint& pos) {
    const QModelIndex index = m_view->indexAt(pos);
    QMenu menu(this);
    if (index.isValid()) {
        const QString path = index.data(FleetModel::PathRole).toString();
        if (!index.data(FleetModel::SkippedRole).toBool()) {
            menu.addAction(tr("Open"), this, [this, index] { onClicked(index); });
            if (m_menuHook) {
                m_menuHook(menu, index);
            }
        }
        menu.addAction(tr("Copy path"), this, [path] { QApplication::clipboard()->setText(path); });
        if (m_model->files().contains(path)) {
            menu.addAction(tr("Remove from the list"), this,
                           [this, path] { m_model->removeFile(path); });
        }
        menu.addSeparator();
    }
    for (const QString& dir : m_model->folders()) {
        menu.addAction(tr("Stop watching %1").arg(dir), this,
                       [this, dir] { m_model->unwatchFolder(dir); });
    }
    menu.addAction(tr("Watch folder\u2026"), this, &QueueSidebar::watchFolderRequested);
    menu.addAction(tr("Scan now"), m_model, &FleetModel::scanNow);
    menu.exec(m_view->viewport()->mapToGlobal(pos));
}

} // namespace lq::ui

#include "queuesidebar.moc"
