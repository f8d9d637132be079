// SPDX-License-Identifier: MIT
#include "ui/statusfilterbar.h"

#include "ui/flowlayout.h"
#include "ui/uitext.h"

#include <QButtonGroup>
#include <QLabel>
#include <QToolButton>

#include <algorithm>

namespace lq::ui {

StatusFilterBar::StatusFilterBar(QWidget* parent)
    : QWidget(parent)
    , m_group(new QButtonGroup(this)) {
    // Chips wrap to a second line rather than squash their labels.
    auto* layout = new FlowLayout(this, 2);
    m_group->setExclusive(true);
    static const char* const names[] = {
        "filterAll",    "filterReady",   "filterLocked",    "filterStuck",  "filterDone",
        "filterFailed", "filterUnknown", "filterScheduled", "filterLeased", "filterExpired"};
    for (int c = All; c <= Expired; ++c) {
        auto* b = new QToolButton(this);
        b->setCheckable(true);
        b->setAutoRaise(false);
        b->setToolButtonStyle(Qt::ToolButtonTextOnly);
        b->setObjectName(QString::fromLatin1(names[c]));
        b->setMinimumWidth(48);
        if (c == Stuck) {
            b->setIcon(QIcon(QStringLiteral(":/icons/stuck.svg")));
            b->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
        }
        m_group->addButton(b, c);
        layout->addWidget(b);
        m_buttons.insert(c, b);
    }
    m_buttons.value(All)->setChecked(true);
    connect(m_group, &QButtonGroup::idClicked, this, [this](int id) {
        // All clears the format's chips; Stuck (LOCKED for too long) narrows
        // every state, so it takes none of them either. Another canonical
        // chip adds its state to the format's states checked.
        const bool clears = id == All || id == Stuck;
        const bool hadExtras = anyExtraChecked();
        if (clears) {
            std::fill(m_checked.begin(), m_checked.end(), false);
        }
        const bool changed = Choice(id) != m_choice || (clears && hadExtras);
        m_choice = Choice(id);
        syncChecks();
        if (changed) {
            emit filterChanged(m_choice);
        }
    });
    setStates({core::State::Ready, core::State::Locked, core::State::Done, core::State::Failed,
               core::State::Unknown});
}

bool StatusFilterBar::anyExtraChecked() const {
    return std::find(m_checked.begin(), m_checked.end(), true) != m_checked.end();
}

QList<QToolButton*> StatusFilterBar::visibleChips() const {
    QList<QToolButton*> shown;
    for (int c = All; c <= Expired; ++c) {
        QToolButton* b = m_buttons.value(c);
        if (b && b->isVisibleTo(this)) {
            shown << b;
        }
    }
    for (QToolButton* b : m_extraButtons) {
        if (b->isVisibleTo(this)) {
            shown << b;
        }
    }
    return shown;
}

bool StatusFilterBar::clickVisible(int n) {
    const QList<QToolButton*> shown = visibleChips();
    if (n < 0 || n >= shown.size()) {
        return false;
    }
    shown[n]->click();
    return true;
}

void StatusFilterBar::setChoice(Choice c) {
    const bool hadExtras = anyExtraChecked();
    std::fill(m_checked.begin(), m_checked.end(), false);
    const bool changed = c != m_choice || hadExtras;
    m_choice = c;
    syncChecks();
    if (changed) {
        emit filterChanged(c);
    }
}

QStringList StatusFilterBar::checkedExtras() const {
    QStringList names;
    for (std::size_t i = 0; i < m_extras.size(); ++i) {
        if (m_checked[i]) {
            names << QString::fromStdString(m_extras[i].name);
        }
    }
    return names;
}

void StatusFilterBar::setCheckedExtras(const QStringList& names) {
    bool changed = false;
    for (std::size_t i = 0; i < m_extras.size(); ++i) {
        const bool on = m_offered[i] && names.contains(QString::fromStdString(m_extras[i].name));
        changed = changed || on != m_checked[i];
        m_checked[i] = on;
    }
    if (changed && m_choice == Stuck && anyExtraChecked()) {
        m_choice = All;
    }
    syncChecks();
    if (changed) {
        emit filterChanged(m_choice);
    }
}

void StatusFilterBar::onExtraClicked(std::size_t i) {
    m_checked[i] = !m_checked[i];
    if (m_checked[i] && m_choice == Stuck) {
        m_choice = All; // stuck narrows every state: it does not combine
    }
    syncChecks();
    emit filterChanged(m_choice);
}

void StatusFilterBar::syncChecks() {
    const bool anyExtra = anyExtraChecked();
    // "All" is lit only when nothing narrows; an exclusive group keeps one
    // button checked, so it is let go of while the format's chips choose.
    m_group->setExclusive(false);
    for (int c = All; c <= Expired; ++c) {
        const bool on = c == m_choice && !(c == All && anyExtra);
        m_buttons.value(c)->setChecked(on);
    }
    m_group->setExclusive(true);
    for (std::size_t i = 0; i < m_extraButtons.size(); ++i) {
        m_extraButtons[i]->setChecked(m_checked[i]);
    }
}

bool StatusFilterBar::hasState(core::State state) const {
    return std::find(m_states.begin(), m_states.end(), state) != m_states.end();
}

void StatusFilterBar::setStates(const std::vector<core::State>& states) {
    m_states = states;
    m_buttons.value(Ready)->setVisible(hasState(core::State::Ready));
    m_buttons.value(Locked)->setVisible(hasState(core::State::Locked));
    m_buttons.value(Stuck)->setVisible(hasState(core::State::Locked));
    m_buttons.value(Done)->setVisible(hasState(core::State::Done));
    m_buttons.value(Failed)->setVisible(hasState(core::State::Failed));
    m_buttons.value(Scheduled)->setVisible(hasState(core::State::Scheduled));
    m_buttons.value(Leased)->setVisible(hasState(core::State::Leased));
    m_buttons.value(Expired)->setVisible(hasState(core::State::Expired));
    updateUnknown();
    updateTexts();
}

void StatusFilterBar::setExtraStates(const std::vector<core::QueueFormat::ExtraState>& extras,
                                     const QString& formatId) {
    const QStringList wasChecked = checkedExtras();
    for (QToolButton* b : m_extraButtons) {
        delete b;
    }
    m_extraButtons.clear();
    m_extras = extras;
    m_formatId = formatId;
    m_checked.assign(m_extras.size(), false);
    // Where the Stuck chip is shown, the extra state that is the library's
    // stuck rule would be a second chip for the same jobs: not offered.
    const bool stuckChip = hasState(core::State::Locked); // as setStates() shows it
    m_offered.assign(m_extras.size(), true);
    for (std::size_t i = 0; i < m_extras.size(); ++i) {
        m_offered[i] = !(stuckChip && m_extras[i].name == core::QueueFormat::kStuckState);
        const QString name = QString::fromStdString(m_extras[i].name);
        auto* b = new QToolButton(this);
        b->setCheckable(true);
        b->setAutoRaise(false);
        b->setToolButtonStyle(Qt::ToolButtonTextOnly);
        b->setObjectName(QStringLiteral("extra_") + name);
        b->setProperty("lqState", name);
        b->setMinimumWidth(48);
        m_checked[i] = m_offered[i] && wasChecked.contains(name);
        connect(b, &QToolButton::clicked, this, [this, i] { onExtraClicked(i); });
        layout()->addWidget(b);
        if (!m_offered[i]) {
            b->setVisible(false);
        }
        m_extraButtons.push_back(b);
    }
    syncChecks();
    updateTexts();
}

QToolButton* StatusFilterBar::extraButton(const QString& name) const {
    for (std::size_t i = 0; i < m_extras.size(); ++i) {
        if (QString::fromStdString(m_extras[i].name) == name) {
            return m_extraButtons[i];
        }
    }
    return nullptr;
}

void StatusFilterBar::updateUnknown() {
    // Unknown statuses are shown only when a file has some.
    const bool possible = hasState(core::State::Unknown);
    m_buttons.value(Unknown)->setVisible(possible && (m_counts.unknown > 0 || m_choice == Unknown));
}

void StatusFilterBar::setStuckRule(const QString& rule) {
    m_stuckRule = rule;
    updateTexts();
}

void StatusFilterBar::setPausedNote(const QString& text) {
    if (!m_pausedNote) {
        m_pausedNote = new QLabel(this);
        m_pausedNote->setObjectName(QStringLiteral("pausedNote"));
        m_pausedNote->setTextFormat(Qt::PlainText);
        m_pausedNote->setContentsMargins(6, 0, 6, 0);
        QFont bold = m_pausedNote->font();
        bold.setBold(true);
        m_pausedNote->setFont(bold);
    }
    // Last in the flow, after the format's chips too.
    layout()->removeWidget(m_pausedNote);
    layout()->addWidget(m_pausedNote);
    // Words, not a pause glyph: common UI fonts (DejaVu Sans) lack U+23F8.
    m_pausedNote->setText(text);
    m_pausedNote->setVisible(!text.isEmpty());
}

void StatusFilterBar::setCountsPending() {
    m_countsPending = true;
    updateTexts();
}

void StatusFilterBar::setCounts(const core::Counts& counts) {
    m_countsPending = false;
    m_counts = counts;
    updateUnknown();
    updateTexts();
}

StatusFilterBar::Choice StatusFilterBar::choiceOf(core::State s) {
    switch (s) {
    case core::State::Ready:
        return Ready;
    case core::State::Locked:
        return Locked;
    case core::State::Done:
        return Done;
    case core::State::Failed:
        return Failed;
    case core::State::Unknown:
        return Unknown;
    case core::State::Scheduled:
        return Scheduled;
    case core::State::Leased:
        return Leased;
    case core::State::Expired:
        return Expired;
    }
    return All;
}

void StatusFilterBar::setStateName(Choice c, const QString& name, const QString& caption) {
    if (QToolButton* b = m_buttons.value(c)) {
        b->setProperty("lqState", name);
    }
    if (caption.isEmpty()) {
        m_captions.remove(c);
    } else {
        m_captions.insert(c, caption);
    }
    updateTexts();
}

QString StatusFilterBar::label(Choice c) const {
    if (m_captions.contains(c)) {
        return m_captions.value(c);
    }
    switch (c) {
    case All:
        return tr("All");
    case Ready:
        return tr("Ready");
    case Locked:
        return tr("Locked");
    case Stuck:
        return tr("Stuck");
    case Done:
        return tr("Done");
    case Failed:
        return tr("Failed");
    case Unknown:
        return tr("Unknown");
    case Scheduled:
        return tr("Scheduled");
    case Leased:
        return tr("Leased");
    case Expired:
        return tr("Expired");
    }
    return {};
}

void StatusFilterBar::updateTexts() {
    auto count = [&](int c) -> qint64 {
        switch (Choice(c)) {
        case All:
            return m_counts.stored;
        case Ready:
            return m_counts.ready;
        case Locked:
            return m_counts.locked;
        case Stuck:
            return m_counts.stuck;
        case Done:
            return m_counts.done;
        case Failed:
            return m_counts.failed;
        case Unknown:
            return m_counts.unknown;
        case Scheduled:
            return m_counts.scheduled;
        case Leased:
            return m_counts.leased;
        case Expired:
            return m_counts.expired;
        }
        return 0;
    };
    // An estimate (a huge table on a server, while the exact counts are
    // read) shows as one; the stuck sub-count, an age the statistics do not
    // hold, shows as pending.
    const auto number = [&](qint64 n, bool estimable = true) {
        if (m_countsPending || (m_counts.estimated && !estimable)) {
            return QString(QChar(0x2026));
        }
        return countText(n, m_counts.estimated);
    };
    const QString estimateNote =
        m_counts.estimated
            ? tr(" — an estimate from the server's statistics while the exact count is read")
            : QString();
    // The shortcut the main window gives the n-th chip shown (Ctrl+1 … Ctrl+9).
    const QList<QToolButton*> shown = visibleChips();
    const auto shortcut = [&](QToolButton* b) {
        const auto n = shown.indexOf(b);
        return n >= 0 && n < 9 ? tr(" — Ctrl+%1").arg(n + 1) : QString();
    };
    for (int c = All; c <= Expired; ++c) {
        QToolButton* b = m_buttons.value(c);
        const QString figure = number(count(c), c != Stuck && c != Expired);
        const QString text = label(Choice(c)) + u' ' + figure;
        b->setText(text);
        // Named for screen readers.
        b->setAccessibleName(tr("%1 filter").arg(label(Choice(c))));
        QString what =
            c == All ? tr("Show every message (%1)").arg(figure)
                     : tr("Show only %1 messages (%2)").arg(label(Choice(c)).toUpper(), figure);
        if (c == Stuck) {
            what += m_stuckRule.isEmpty() ? tr(": locked longer than the threshold")
                                          : tr(": %1, the library's own rule").arg(m_stuckRule);
        }
        what += estimateNote;
        b->setAccessibleDescription(what + shortcut(b));
        b->setToolTip(what + shortcut(b));
    }
    for (std::size_t i = 0; i < m_extras.size(); ++i) {
        const auto& e = m_extras[i];
        const auto it = m_counts.extra.find(e.name);
        const qint64 n = it == m_counts.extra.end() ? 0 : it->second;
        const QString name = QString::fromStdString(e.name);
        QToolButton* b = m_extraButtons[i];
        b->setText(name + u' ' + number(n, e.name != "locked_expired"));
        b->setAccessibleName(tr("%1 filter").arg(name));
        // The library's own state, what it is, and how the chip combines.
        QString what =
            m_formatId.isEmpty()
                ? tr("The format's own state “%1” (%2): %3.")
                      .arg(name, number(n), QString::fromStdString(e.description))
                : tr("%1's own state “%2” (%3): %4.")
                      .arg(m_formatId, name, number(n), QString::fromStdString(e.description));
        if (!e.within.empty()) {
            QStringList in;
            for (core::State s : e.within) {
                in << QString::fromLatin1(core::stateName(s));
            }
            what += tr(" A part of %1.").arg(in.join(tr(" or ")));
        }
        what += tr(" Check to show these messages too; with a status chip chosen, its messages "
                   "and these.");
        b->setAccessibleDescription(what + shortcut(b));
        b->setToolTip(what + shortcut(b));
    }
}

void StatusFilterBar::applyTo(core::Filter& f) const {
    applyTo(m_choice, f);
    f.extraStates.clear();
    for (std::size_t i = 0; i < m_extras.size(); ++i) {
        if (m_checked[i]) {
            f.extraStates.push_back(m_extras[i].name);
        }
    }
}

void StatusFilterBar::applyTo(Choice c, core::Filter& f) {
    f.states.clear();
    f.stuckOnly = false;
    switch (c) {
    case All:
        break;
    case Ready:
        f.states = {core::State::Ready};
        break;
    case Locked:
        f.states = {core::State::Locked};
        break;
    case Stuck:
        f.states = {core::State::Locked};
        f.stuckOnly = true;
        break;
    case Done:
        f.states = {core::State::Done};
        break;
    case Failed:
        f.states = {core::State::Failed};
        break;
    case Unknown:
        f.states = {core::State::Unknown};
        break;
    case Scheduled:
        f.states = {core::State::Scheduled};
        break;
    case Leased:
        f.states = {core::State::Leased};
        break;
    case Expired:
        f.states = {core::State::Expired};
        break;
    }
}

} // namespace lq::ui
