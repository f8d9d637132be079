// SPDX-License-Identifier: MIT
// What a sidebar row shows: its health marks, name, summary, tool tip and
// roles (FleetModel's presentation; the scans are in fleetmodel.cpp).
#include "ui/fleetmodel.h"

#include "core/backend.h"
#include "core/formats/queueformat.h"
#include "core/statemodel.h"
#include "ui/theme.h"
#include "ui/uitext.h"

#include <QBrush>
#include <QLocale>

namespace lq::ui {

void FleetModel::computeHealth(Row& row, const Row* previous, core::TimeNs now) const {
    // Painted on every repaint of the sidebar: made here, not in data().
    row.summaryText = summary(row);
    row.health = Healthy;
    row.healthReasons.clear();
    const core::FleetEntry& e = row.entry;
    if (e.skipped) {
        return;
    }
    if (e.counts.stuck > 0) {
        row.health |= StuckMessages;
        row.healthReasons << tr("stuck: %1 locked for more than %2")
                                 .arg(QLocale().toString(e.counts.stuck),
                                      humanDuration(core::TimeNs(m_stuckSeconds) *
                                                    core::kNsPerSecond));
    }
    // Failed jobs and dead letters kept in the file need an operator, rising
    // or not.
    const auto failedOf = [](const core::FleetEntry& x) -> qint64 {
        if (!x.kind || x.skipped) {
            return 0;
        }
        qint64 n = 0;
        for (const auto& st : core::stateModel(*x.kind, x.counts).partition) {
            if (st.state.name == "failed" || st.state.attention) {
                n += st.count;
            }
        }
        return n;
    };
    const qint64 failed = failedOf(e);
    {
        if (failed > 0) {
            row.health |= Failures;
            row.healthReasons << tr("failures: %1 failed or dead-lettered job(s) kept")
                                     .arg(QLocale().toString(failed));
        }
    }
    row.failuresRoseAt = previous ? previous->failuresRoseAt : 0;
    if (previous && !previous->entry.skipped && failed > failedOf(previous->entry)) {
        row.failuresRoseAt = now;
    }
    if (row.failuresRoseAt != 0 &&
        now - row.failuresRoseAt <= core::TimeNs(m_failuresHoldSeconds) * core::kNsPerSecond) {
        row.health |= FailuresRising;
        row.healthReasons << tr("failures rising: %1 failed now").arg(failed);
    }
    if (auto age = e.backlogAgeNs(now);
        age && *age > core::TimeNs(m_backlogSeconds) * core::kNsPerSecond) {
        row.health |= BacklogOld;
        row.healthReasons << tr("backlog: the oldest READY message waits for %1 (threshold %2)")
                                 .arg(humanDuration(*age),
                                      humanDuration(core::TimeNs(m_backlogSeconds) *
                                                    core::kNsPerSecond));
    }
}

QString FleetModel::displayName(const Row& r) const {
    if (!r.entry.queueName.empty()) {
        // A named queue inside the file, under the file's total row.
        return QStringLiteral("\u2003\u21b3 ") + fromStd(r.entry.queueName);
    }
    QString name = fromStd(core::shortName(r.entry.path));
    if (r.entry.kind && r.entry.kind->multiTable()) {
        name += QStringLiteral(" \u203a ") + fromStd(r.entry.table);
    }
    return name;
}

QString FleetModel::summary(const Row& r) const {
    const core::FleetEntry& e = r.entry;
    if (e.skipped) {
        return fromStd(e.reason);
    }
    QString s;
    if (e.kind) {
        // The state model's partition: ready always, every other state that
        // holds jobs, stuck after locked.
        const QLocale l;
        const core::StateModel m = core::stateModel(*e.kind, e.counts);
        QStringList parts;
        for (const auto& st : m.partition) {
            if (st.count == 0 && st.state.name != "ready") {
                continue;
            }
            parts << l.toString(st.count) + u' ' + fromStd(st.state.name);
            if (st.state.name == "locked" && m.subCount("stuck") > 0) {
                parts << tr("%1 stuck").arg(l.toString(m.subCount("stuck")));
            }
        }
        s = parts.join(QStringLiteral(" \u00b7 "));
    }
    if (!e.readOnlyReason.empty()) {
        s += tr(" \u00b7 read-only");
    }
    if (!e.queueName.empty() && !e.paused.empty()) {
        s = pausedText(e.paused.front().since) + QStringLiteral(" \u00b7 ") + s;
    }
    return s;
}

QString FleetModel::toolTip(const Row& r) const {
    const core::FleetEntry& e = r.entry;
    QStringList lines;
    lines << fromStd(e.path);
    if (e.skipped) {
        lines << tr("Skipped: %1").arg(fromStd(e.reason));
        return plainToolTip(lines.join(u'\n'));
    }
    if (e.kind && e.kind->multiTable()) {
        lines << tr("Queue table: %1").arg(fromStd(e.table));
    }
    if (!e.queueName.empty()) {
        lines << tr("Named queue: %1 (its counts; the row above is the whole file)")
                     .arg(fromStd(e.queueName));
    }
    lines << tr("Format: %1").arg(fromStd(e.format));
    if (e.kind) {
        const core::StateModel m = core::stateModel(*e.kind, e.counts);
        QStringList parts;
        for (const auto& st : m.partition) {
            parts << tr("%1 %2").arg(st.count).arg(fromStd(st.state.name));
        }
        lines << parts.join(QStringLiteral(", ")) + tr("; %1 stored").arg(e.counts.stored);
        for (const auto& sub : m.subCounts) {
            if (sub.count > 0) {
                lines << tr("%1 %2 (part of %3)")
                             .arg(sub.count)
                             .arg(fromStd(sub.state.name),
                                  fromStd(sub.state.within.empty() ? std::string()
                                                                   : sub.state.within.front()));
            }
        }
    }
    if (auto age = e.backlogAgeNs(now())) {
        lines << tr("Backlog age: %1").arg(humanDuration(*age));
    }
    lines << tr("File %1, WAL %2").arg(humanBytes(e.fileBytes), humanBytes(e.walBytes));
    if (!e.readOnlyReason.empty()) {
        lines << tr("Read-only: %1").arg(fromStd(e.readOnlyReason));
    }
    if (r.health == Healthy) {
        lines << tr("Healthy");
    } else {
        lines << r.healthReasons;
    }
    return plainToolTip(lines.join(u'\n'));
}

QVariant FleetModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
        return {};
    }
    const Row& r = m_rows[std::size_t(index.row())];
    const core::FleetEntry& e = r.entry;
    switch (role) {
    case Qt::DisplayRole:
        return displayName(r);
    case Qt::ToolTipRole:
        return toolTip(r);
    case Qt::DecorationRole:
        if (e.skipped) {
            return m_skippedIcon;
        }
        if (r.health & StuckMessages) {
            return m_stuckIcon;
        }
        return r.health == Healthy ? m_okIcon : m_warnIcon;
    case Qt::ForegroundRole:
        if (e.skipped) {
            return QBrush(theme::healthColor(theme::Health::Skipped));
        }
        if (r.health & StuckMessages) {
            return QBrush(theme::healthColor(theme::Health::Stuck));
        }
        if (r.health != Healthy) {
            return QBrush(theme::healthColor(theme::Health::Warning));
        }
        return {};
    case PathRole:
        return fromStd(e.path);
    case TableRole:
        return fromStd(e.table);
    case FormatRole:
        return fromStd(e.format);
    case SkippedRole:
        return e.skipped;
    case ReasonRole:
        return fromStd(e.reason);
    case ReadOnlyReasonRole:
        return fromStd(e.readOnlyReason);
    case ReadyRole:
        return qint64(e.counts.ready);
    case LockedRole:
        return qint64(e.counts.locked);
    case StuckRole:
        return qint64(e.counts.stuck);
    case FailedRole:
        return qint64(e.counts.failed);
    case DoneRole:
        return qint64(e.counts.done);
    case HealthRole:
        return int(r.health);
    case HealthTextRole:
        return r.healthReasons.join(u'\n');
    case SummaryRole:
        return r.summaryText;
    case BacklogAgeRole:
        if (auto age = e.backlogAgeNs(now())) {
            return qint64(*age);
        }
        return {};
    case QueueNameRole:
        return fromStd(e.queueName);
    case PausedRole:
        return !e.queueName.empty() && !e.paused.empty();
    default:
        return {};
    }
}

} // namespace lq::ui
