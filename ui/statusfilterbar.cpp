// SPDX-License-Identifier: MIT
#include "ui/statusfilterbar.h"

#include <QButtonGroup>
#include <QHBoxLayout>
#include <QLocale>
#include <QToolButton>

namespace lq::ui {

StatusFilterBar::StatusFilterBar(QWidget* parent)
    : QWidget(parent)
    , m_group(new QButtonGroup(this)) {
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
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
        b->setMinimumWidth(64);
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
    setFormat(core::Format::Litequeue014);
    updateTexts();
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

void StatusFilterBar::setFormat(core::Format format) {
    m_format = format;
    const bool jobs = format == core::Format::JobsLease;
    m_buttons.value(Locked)->setVisible(!jobs);
    m_buttons.value(Stuck)->setVisible(!jobs);
    m_buttons.value(Done)->setVisible(!jobs);
    m_buttons.value(Failed)->setVisible(!jobs);
    m_buttons.value(Scheduled)->setVisible(jobs);
    m_buttons.value(Leased)->setVisible(jobs);
    m_buttons.value(Expired)->setVisible(jobs);
    m_buttons.value(Unknown)->setVisible(!jobs && m_counts.unknown > 0);
    updateTexts();
}

void StatusFilterBar::setCounts(const core::Counts& counts) {
    m_counts = counts;
    m_buttons.value(Unknown)->setVisible(m_format != core::Format::JobsLease &&
                                         (counts.unknown > 0 || m_choice == Unknown));
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
    const bool jobs = m_format == core::Format::JobsLease;
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
            return jobs ? m_counts.leased : m_counts.locked;
        case Expired:
            return m_counts.expired;
        }
        return 0;
    };
    const QLocale locale;
    for (auto it = m_buttons.cbegin(); it != m_buttons.cend(); ++it) {
        it.value()->setText(label(Choice(it.key())) + u' ' + locale.toString(count(it.key())));
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
