// SPDX-License-Identifier: MIT
#include "ui/queuesettingsdialog.h"

#include "core/backend.h"
#include "core/formats/queueformat.h"
#include "ui/queuedocument.h"
#include "ui/queuesettings.h"
#include "ui/runasync.h"
#include "ui/uiresources.h"
#include "ui/uitext.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QVBoxLayout>

namespace lq::ui {

namespace {

/// The value editor: a whole number, 0 shown as "not set".
class ValueDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    QWidget* createEditor(QWidget* parent, const QStyleOptionViewItem&,
                          const QModelIndex&) const override {
        auto* box = new QSpinBox(parent);
        box->setRange(0, 1'000'000'000);
        box->setSpecialValueText(QueueSettingsDialog::tr("not set"));
        return box;
    }
};

} // namespace

QueueSettingsDialog::QueueSettingsDialog(const core::QueueFormat& format, const QStringList& queues,
                                         const core::FormatSettings& values,
                                         const QString& fileName, QWidget* parent)
    : QDialog(parent)
    , m_model(new QueueSettingsModel(format.settings(), queues, values, this)) {
    setWindowTitle(tr("Queue settings \u2014 %1").arg(fileName));
    auto* layout = new QVBoxLayout(this);
    QString about = tr("Settings of the queue's library that %1 does not store. The counts, "
                       "states and actions follow them; they are kept for this file on this "
                       "computer. Not set: the library's default.")
                        .arg(fileName);
    for (const core::QueueFormat::Setting& s : format.settings()) {
        about += QStringLiteral("\n\u2022 ") + fromStd(s.label) + QStringLiteral(": ") +
                 fromStd(s.description) + QStringLiteral(" (lqctl ") + fromStd(s.option) +
                 QStringLiteral(").");
    }
    auto* intro = new QLabel(about, this);
    intro->setWordWrap(true);
    intro->setTextFormat(Qt::PlainText);
    layout->addWidget(intro);

    auto* view = new QTableView(this);
    view->setObjectName(QStringLiteral("queueSettingsTable"));
    view->setModel(m_model);
    view->setItemDelegateForColumn(QueueSettingsModel::Value, new ValueDelegate(view));
    view->setEditTriggers(QAbstractItemView::AllEditTriggers);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->verticalHeader()->hide();
    view->horizontalHeader()->setStretchLastSection(true);
    view->resizeColumnsToContents();
    layout->addWidget(view);

    auto* buttons = new QDialogButtonBox(
        QDialogButtonBox::Ok | QDialogButtonBox::Cancel | QDialogButtonBox::RestoreDefaults, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Apply and reopen"));
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(buttons->button(QDialogButtonBox::RestoreDefaults), &QPushButton::clicked, m_model,
            &QueueSettingsModel::clearValues);
    layout->addWidget(buttons);
    resize(640, 360);
}

core::FormatSettings QueueSettingsDialog::settings() const {
    return m_model->settings();
}

QAction* createQueueSettingsAction(QueueDocument* doc, QWidget* window,
                                   std::function<void()> reopen) {
    QAction* a =
        makeAction(window, "queueSettingsAction", QueueSettingsDialog::tr("Queue &Settings\u2026"));
    const auto update = [a, doc] {
        const bool offered = doc->isOpen() && !doc->format().settings().empty();
        a->setEnabled(offered && !doc->isBusy());
        a->setToolTip(offered ? QueueSettingsDialog::tr("The library settings this file's format "
                                                        "reads but does not store")
                              : QueueSettingsDialog::tr("This queue's format has no settings of "
                                                        "its library to set"));
    };
    update();
    QObject::connect(doc, &QueueDocument::opened, a, update);
    QObject::connect(doc, &QueueDocument::closed, a, update);
    QObject::connect(doc, &QueueDocument::busyChanged, a, update);
    QObject::connect(a, &QAction::triggered, window, [doc, window, reopen = std::move(reopen)] {
        std::shared_ptr<core::QueueBackend> backend = doc->backend();
        if (!backend) {
            return;
        }
        const QString path = doc->path();
        // The named queues come from the file: read them off the UI thread.
        runAsync(
            window,
            [backend]() -> QStringList {
                QStringList names;
                try {
                    for (const std::string& n : backend->queueNames()) {
                        names << fromStd(n);
                    }
                } catch (const std::exception&) {
                    // Without the names only the all-queues rows are offered.
                }
                return names;
            },
            [doc, window, path, reopen](const QStringList& names) {
                if (doc->path() != path || !doc->isOpen()) {
                    return; // another file meanwhile
                }
                auto* dlg = new QueueSettingsDialog(doc->format(), names, doc->info().settings,
                                                    doc->fileName(), window);
                dlg->setObjectName(QStringLiteral("queueSettingsDialog"));
                dlg->setAttribute(Qt::WA_DeleteOnClose);
                QObject::connect(dlg, &QDialog::accepted, window, [dlg, path, reopen, doc] {
                    const core::FormatSettings s = dlg->settings();
                    storeQueueSettings(path, s);
                    if (doc->path() == path && !(s == doc->info().settings)) {
                        reopen();
                    }
                });
                dlg->open();
            });
    });
    return a;
}

} // namespace lq::ui

#include "queuesettingsdialog.moc"
