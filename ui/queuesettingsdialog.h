// SPDX-License-Identifier: MIT
#pragma once

#include "core/format.h"

#include <QDialog>

#include <functional>

class QAction;
class QWidget;

namespace lq::core {
class QueueFormat;
}

namespace lq::ui {

class QueueDocument;
class QueueSettingsModel;

/// "Queue settings": the library settings the open format reads but the
/// file does not store (QueueFormat::settings()), with the library's
/// defaults, one row per named queue for a setting the library takes per
/// queue. Accepting it hands back the values (settings()).
class QueueSettingsDialog : public QDialog {
    Q_OBJECT
public:
    QueueSettingsDialog(const core::QueueFormat& format, const QStringList& queues,
                        const core::FormatSettings& values, const QString& fileName,
                        QWidget* parent = nullptr);
    QueueSettingsModel* model() const { return m_model; }
    core::FormatSettings settings() const;

private:
    QueueSettingsModel* m_model;
};

/// The "Queue settings…" action of `doc`: enabled while the open format
/// declares settings; it lists the file's named queues in a worker, opens
/// the dialog (object name "queueSettingsDialog", a child of `window`), and
/// on OK stores the values for the file (storeQueueSettings()) and calls
/// `reopen`, which opens the file again with them.
QAction* createQueueSettingsAction(QueueDocument* doc, QWidget* window,
                                   std::function<void()> reopen);

} // namespace lq::ui
