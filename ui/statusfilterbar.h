// SPDX-License-Identifier: MIT
#pragma once

#include "core/format.h"
#include "core/formats/queueformat.h"
#include "core/query.h"

#include <QHash>
#include <QWidget>

class QButtonGroup;
class QLabel;
class QToolButton;

namespace lq::ui {

/// The status filter: one checkable button per state with its live count
/// ("Ready 58"). Exactly one is checked; choosing one emits filterChanged().
class StatusFilterBar : public QWidget {
    Q_OBJECT
public:
    enum Choice { All, Ready, Locked, Stuck, Done, Failed, Unknown, Scheduled, Leased, Expired };
    Q_ENUM(Choice)

    explicit StatusFilterBar(QWidget* parent = nullptr);

    void setCounts(const core::Counts& counts);
    /// The states the file's format has (QueueFormat::states()): one
    /// button each, Stuck with Locked.
    void setStates(const std::vector<core::State>& states);
    /// The format's own states (QueueFormat::extraStates()): a count each
    /// after the chips, so that the counts add up to All. Not filters (core
    /// filters by canonical state); the tooltip says what the state is.
    void setExtraStates(const std::vector<core::QueueFormat::ExtraState>& extras);
    /// The count label of extra state `name` (nullptr: none).
    QLabel* extraLabel(const QString& name) const;
    Choice choice() const { return m_choice; }
    void setChoice(Choice c);
    QToolButton* button(Choice c) const { return m_buttons.value(c); }
    /// Chooses the n-th chip shown (0-based), as a click would; false if none.
    bool clickVisible(int n);

    /// Narrows `f` (states, stuckOnly) to this choice.
    static void applyTo(Choice c, core::Filter& f);

signals:
    void filterChanged(lq::ui::StatusFilterBar::Choice choice);

private:
    QString label(Choice c) const;
    void updateTexts();
    void updateUnknown();

    QHash<int, QToolButton*> m_buttons;
    QButtonGroup* m_group;
    core::Counts m_counts;
    std::vector<core::State> m_states;
    std::vector<core::QueueFormat::ExtraState> m_extras;
    std::vector<QLabel*> m_extraLabels; ///< one per m_extras entry
    Choice m_choice = All;
};

} // namespace lq::ui
