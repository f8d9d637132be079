// SPDX-License-Identifier: MIT
#pragma once

#include "core/format.h"
#include "core/formats/queueformat.h"
#include "core/query.h"

#include <QHash>
#include <QWidget>

class QButtonGroup;
class QToolButton;

class QLabel;

namespace lq::ui {

/// The status filter: one checkable chip per state with its live count
/// ("Ready 58"), then one per state of the format's own ("retryable 2").
/// One canonical chip is chosen at a time; the format's chips add their
/// states to it (core::Filter::extraStates: the rows in the chosen state or
/// in any checked format state). "All" clears every chip. Every change
/// emits filterChanged().
class StatusFilterBar : public QWidget {
    Q_OBJECT
public:
    enum Choice { All, Ready, Locked, Stuck, Done, Failed, Unknown, Scheduled, Leased, Expired };
    Q_ENUM(Choice)

    explicit StatusFilterBar(QWidget* parent = nullptr);

    void setCounts(const core::Counts& counts);
    /// A file was opened and its counts are being computed: the chips show
    /// "…" instead of the previous file's numbers or zeros, until the next
    /// setCounts().
    void setCountsPending();
    /// The states the file's format has (QueueFormat::states()): one
    /// button each, Stuck with Locked.
    void setStates(const std::vector<core::State>& states);
    /// The state model's name of canonical chip `c` (core::partitionName):
    /// the chip's "lqState" property, and its caption where the library has
    /// its own word for the state ("Dead letter" for goqite's FAILED).
    void setStateName(Choice c, const QString& name, const QString& caption = {});
    /// The format's own states (QueueFormat::extraStates()) of format
    /// `formatId`: a checkable chip each after the canonical ones, with its
    /// count; the tooltip names the state and says what it is. Checked
    /// chips whose state the new format lacks are dropped. Call it after
    /// setStates(): where the Stuck chip shows, the library's stuck state
    /// (QueueFormat::kStuckState) gets no chip of its own.
    void setExtraStates(const std::vector<core::QueueFormat::ExtraState>& extras,
                        const QString& formatId = {});
    /// How the format tells a stuck message (QueueFormat::ownStuckRule()); ""
    /// for the operator's threshold. The Stuck chip's tooltip says it.
    void setStuckRule(const QString& rule);
    /// After the chips: the named queue shown is paused ("paused since …:
    /// workers skip it"); "" hides it.
    void setPausedNote(const QString& text);
    /// The chip of extra state `name` (nullptr: the format has none).
    QToolButton* extraButton(const QString& name) const;
    /// The canonical chip chosen; All also while only format chips are checked.
    Choice choice() const { return m_choice; }
    /// Shows exactly the messages of `c`: the format's chips are cleared.
    void setChoice(Choice c);
    /// The format's states checked, in the format's order.
    QStringList checkedExtras() const;
    /// Checks exactly the format's chips named in `names` (others ignored).
    void setCheckedExtras(const QStringList& names);
    QToolButton* button(Choice c) const { return m_buttons.value(c); }
    /// Chooses the n-th chip shown (0-based), as a click would; false if none.
    bool clickVisible(int n);

    /// Narrows `f` (states, stuckOnly, extraStates) to the chips checked.
    void applyTo(core::Filter& f) const;
    /// Narrows `f` (states, stuckOnly) to the canonical choice `c`.
    static void applyTo(Choice c, core::Filter& f);
    /// The chip of rows in state `s` (All for none).
    static Choice choiceOf(core::State s);

signals:
    void filterChanged(lq::ui::StatusFilterBar::Choice choice);

private:
    QString label(Choice c) const;
    void updateTexts();
    void updateUnknown();
    /// The chips' checked states from m_choice and m_checked.
    void syncChecks();
    bool anyExtraChecked() const;
    void onExtraClicked(std::size_t i);
    /// The chips shown, in order: the canonical ones, then the format's.
    QList<QToolButton*> visibleChips() const;

    QHash<int, QToolButton*> m_buttons;
    QHash<int, QString> m_captions; ///< the library's word for a chip's state
    QButtonGroup* m_group;
    core::Counts m_counts;
    bool m_countsPending = false;
    std::vector<core::State> m_states;
    bool hasState(core::State state) const; ///< in m_states
    std::vector<bool> m_offered;            ///< per extra state: has a chip (see setExtraStates)
    std::vector<core::QueueFormat::ExtraState> m_extras;
    QString m_stuckRule;
    QLabel* m_pausedNote = nullptr;
    std::vector<QToolButton*> m_extraButtons; ///< one per m_extras entry
    std::vector<bool> m_checked;              ///< one per m_extras entry
    QString m_formatId;
    Choice m_choice = All;
};

} // namespace lq::ui
