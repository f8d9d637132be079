// SPDX-License-Identifier: MIT
#include "ui/statusfilterbar.h"

#include "ui/flowlayout.h"

#include <QButtonGroup>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
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
        if (Choice(id) != m_choice) {
            m_choice = Choice(id);
            emit filterChanged(m_choice);
        }
    });
    setStates({core::State::Ready, core::State::Locked, core::State::Done, core::State::Failed,
               core::State::Unknown});
}

bool StatusFilterBar::clickVisible(int n) {
    for (int c = All; c <= Expired; ++c) {
        QToolButton* b = m_buttons.value(c);
        if (b && b->isVisibleTo(this) && n-- == 0) {
            b->click();
            return true;
        }
    }
    return false;
}

void StatusFilterBar::setChoice(Choice c) {
    if (auto* b = m_buttons.value(c)) {
        b->setChecked(true);
    }
    if (c != m_choice) {
        m_choice = c;
        emit filterChanged(c);
    }
}

void StatusFilterBar::setStates(const std::vector<core::State>& states) {
    m_states = states;
    const auto has = [&](core::State st) {
        return std::find(states.begin(), states.end(), st) != states.end();
    };
    m_buttons.value(Ready)->setVisible(has(core::State::Ready));
    m_buttons.value(Locked)->setVisible(has(core::State::Locked));
    m_buttons.value(Stuck)->setVisible(has(core::State::Locked));
    m_buttons.value(Done)->setVisible(has(core::State::Done));
    m_buttons.value(Failed)->setVisible(has(core::State::Failed));
    m_buttons.value(Scheduled)->setVisible(has(core::State::Scheduled));
    m_buttons.value(Leased)->setVisible(has(core::State::Leased));
    m_buttons.value(Expired)->setVisible(has(core::State::Expired));
    updateUnknown();
    updateTexts();
}

void StatusFilterBar::setExtraStates(const std::vector<core::QueueFormat::ExtraState>& extras) {
    for (QLabel* l : m_extraLabels) {
        delete l;
    }
    m_extraLabels.clear();
    m_extras = extras;
    for (const auto& e : m_extras) {
        auto* l = new QLabel(this);
        l->setObjectName(QStringLiteral("extra_") + QString::fromStdString(e.name));
        l->setTextFormat(Qt::PlainText);
        l->setFrameShape(QFrame::StyledPanel);
        l->setContentsMargins(6, 1, 6, 1);
        l->setToolTip(QString::fromStdString(e.name) + QStringLiteral(": ") +
                      QString::fromStdString(e.description));
        layout()->addWidget(l);
        m_extraLabels.push_back(l);
    }
    updateTexts();
}

QLabel* StatusFilterBar::extraLabel(const QString& name) const {
    for (std::size_t i = 0; i < m_extras.size(); ++i) {
        if (QString::fromStdString(m_extras[i].name) == name) {
            return m_extraLabels[i];
        }
    }
    return nullptr;
}

void StatusFilterBar::updateUnknown() {
    // Unknown statuses are shown only when a file has some.
    const bool possible =
        std::find(m_states.begin(), m_states.end(), core::State::Unknown) != m_states.end();
    m_buttons.value(Unknown)->setVisible(possible && (m_counts.unknown > 0 || m_choice == Unknown));
}

void StatusFilterBar::setCounts(const core::Counts& counts) {
    m_counts = counts;
    updateUnknown();
    updateTexts();
}

QString StatusFilterBar::label(Choice c) const {
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
    const QLocale locale;
    int shown = 0;
    for (int c = All; c <= Expired; ++c) {
        QToolButton* b = m_buttons.value(c);
        const QString text = label(Choice(c)) + u' ' + locale.toString(count(c));
        b->setText(text);
        // Named for screen readers, and the shortcut the main window gives
        // the n-th chip shown (Ctrl+1 … Ctrl+9).
        b->setAccessibleName(tr("%1 filter").arg(label(Choice(c))));
        QString what = c == All ? tr("Show every message (%1)").arg(locale.toString(count(c)))
                                : tr("Show only %1 messages (%2)")
                                      .arg(label(Choice(c)).toUpper(), locale.toString(count(c)));
        if (b->isVisibleTo(this) && ++shown <= 9) {
            what += tr(" — Ctrl+%1").arg(shown);
        }
        b->setAccessibleDescription(what);
        b->setToolTip(what);
    }
    for (std::size_t i = 0; i < m_extras.size(); ++i) {
        const auto& e = m_extras[i];
        const auto it = m_counts.extra.find(e.name);
        const qint64 n = it == m_counts.extra.end() ? 0 : it->second;
        QString text = QString::fromStdString(e.name) + u' ' + locale.toString(n);
        if (!e.within.empty()) {
            QStringList in;
            for (core::State s : e.within) {
                in << QString::fromLatin1(core::stateName(s));
            }
            text += QStringLiteral(" (") + tr("in %1").arg(in.join(QStringLiteral(", "))) + u')';
        }
        m_extraLabels[i]->setText(text);
        m_extraLabels[i]->setAccessibleName(text);
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
