// SPDX-License-Identifier: MIT
#pragma once

#include <QDialog>

#include <chrono>
#include <optional>

class QCheckBox;
class QLabel;
class QComboBox;
class QSpinBox;

namespace lq::ui {

/// Prune parameters: how long ago a message must have finished, and
/// whether FAILED messages are kept.
class PruneDialog : public QDialog {
    Q_OBJECT
public:
    explicit PruneDialog(QWidget* parent = nullptr);
    /// Unset: every finished message, or what the format's library prunes
    /// (setLibraryRule()).
    std::optional<std::chrono::nanoseconds> olderThan() const;
    /// What the format's own pruner deletes (QueueFormat::pruneText()): what
    /// a prune without an age does on this file. "" for the default.
    void setLibraryRule(const QString& text);
    bool includeFailed() const;
    /// Sets the age as an amount of minutes, hours or days (the unit that
    /// shows it exactly).
    void setOlderThanSeconds(std::optional<double> seconds);

private:
    QLabel* m_intro;
    QCheckBox* m_useAge;
    QSpinBox* m_amount;
    QComboBox* m_unit; ///< minutes, hours, days: "1 m" stays one minute
    QCheckBox* m_keepFailed;
};

} // namespace lq::ui
