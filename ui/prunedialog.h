// SPDX-License-Identifier: MIT
#pragma once

#include <QDialog>

#include <optional>

class QCheckBox;
class QSpinBox;

namespace lq::ui {

/// Prune parameters: how long ago a message must have finished, and
/// whether FAILED messages are kept.
class PruneDialog : public QDialog {
    Q_OBJECT
public:
    explicit PruneDialog(QWidget* parent = nullptr);
    /// Unset: every finished message.
    std::optional<double> olderThanSeconds() const;
    bool includeFailed() const;

private:
    QCheckBox* m_useAge;
    QSpinBox* m_hours;
    QCheckBox* m_keepFailed;
};

} // namespace lq::ui
