// SPDX-License-Identifier: MIT
#pragma once

#include <QDialog>

#include <chrono>
#include <optional>

class QCheckBox;
class QComboBox;
class QSpinBox;

namespace lq::ui {

/// Prune parameters: how long ago a message must have finished, and
/// whether FAILED messages are kept.
class PruneDialog : public QDialog {
    Q_OBJECT
public:
    explicit PruneDialog(QWidget* parent = nullptr);
    /// Unset: every finished message.
    std::optional<std::chrono::nanoseconds> olderThan() const;
    bool includeFailed() const;
    /// Sets the age as an amount of minutes, hours or days (the unit that
    /// shows it exactly).
    void setOlderThanSeconds(std::optional<double> seconds);

private:
    QCheckBox* m_useAge;
    QSpinBox* m_amount;
    QComboBox* m_unit; ///< minutes, hours, days: "1 m" stays one minute
    QCheckBox* m_keepFailed;
};

} // namespace lq::ui
