// SPDX-License-Identifier: MIT
#pragma once

#include "core/actions.h"
#include "core/operator.h"

#include <QString>
#include <QStringList>

class QWidget;

namespace lq::ui {

/// What an action did, as shown in the result report.
struct ActionReport {
    QString title;
    qint64 applied = 0;
    qint64 skipped = 0;
    qint64 notAttempted = 0;
    bool cancelled = false;
    QString error;            ///< what stopped it (nothing applied, or part of it)
    QString notice;           ///< nothing to do: information, not a failure
    QString skippedByReason;  ///< "changed since shown 10, gone 2"
    QStringList appliedIds;   ///< message ids changed
    QStringList skippedLines; ///< "id: reason"
    QStringList noteLines;    ///< "id: restored without its idempotency key ..."
    QString recordId;         ///< the audit record written
    QString summary() const;
};

/// The report of a core::Operator run, for the screen.
ActionReport reportFrom(const QString& title, const core::Report& r);
/// The action's name as the GUI shows it ("Retry", "Mark failed", ...).
QString actionTitle(core::Action a);
/// A number as the locale writes it.
QString localeCount(qint64 n);
/// The report as a non-modal box, with every id in its details.
void showReportDialog(const ActionReport& report, QWidget* parent);

} // namespace lq::ui
