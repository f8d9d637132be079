// SPDX-License-Identifier: MIT
#include "ui/actionreport.h"

#include "ui/uitext.h"

#include <QLocale>
#include <QMessageBox>
#include <QTextEdit>

namespace lq::ui {

using core::Action;

namespace {

QString skipKindText(core::SkipKind k) {
    switch (k) {
    case core::SkipKind::Changed:
        return QObject::tr("changed since shown");
    case core::SkipKind::Gone:
        return QObject::tr("gone");
    case core::SkipKind::Conflict:
        return QObject::tr("conflict");
    case core::SkipKind::NotApplicable:
        return QObject::tr("not applicable");
    }
    return {};
}

} // namespace

QString localeCount(qint64 n) {
    return QLocale().toString(n);
}

QString actionTitle(Action a) {
    switch (a) {
    case Action::Retry:
        return QObject::tr("Retry");
    case Action::MarkFailed:
        return QObject::tr("Mark failed");
    case Action::Release:
        return QObject::tr("Release");
    case Action::Reschedule:
        return QObject::tr("Reschedule");
    case Action::Delete:
        return QObject::tr("Delete");
    case Action::Prune:
        return QObject::tr("Prune");
    case Action::RetryExpired:
        return QObject::tr("Retry expired");
    case Action::Enqueue:
        return QObject::tr("Enqueue");
    case Action::Vacuum:
        return QObject::tr("Vacuum");
    case Action::Upgrade:
        return QObject::tr("Upgrade");
    case Action::Pause:
        return QObject::tr("Pause queue");
    case Action::Resume:
        return QObject::tr("Resume queue");
    case Action::RunRecurring:
        return QObject::tr("Run recurring task now");
    }
    return {};
}

ActionReport reportFrom(const QString& title, const core::Report& r) {
    ActionReport rep;
    rep.title = title;
    rep.applied = qint64(r.applied());
    rep.skipped = qint64(r.skipped());
    rep.notAttempted = qint64(r.notAttempted());
    rep.cancelled = r.result.cancelled;
    rep.recordId = fromStd(r.recordId);
    rep.error = fromStd(r.result.error);
    QStringList kinds;
    for (const auto& [kind, n] : r.skippedByKind()) {
        kinds << skipKindText(kind) + QLatin1Char(' ') + localeCount(qint64(n));
    }
    rep.skippedByReason = kinds.join(QStringLiteral(", "));
    for (const auto& a : r.result.applied) {
        const std::string& id = a.after.messageId.empty() ? a.before.messageId : a.after.messageId;
        rep.appliedIds << fromStd(id);
        if (!a.note.empty()) {
            rep.noteLines << fromStd(id) + QStringLiteral(": ") + fromStd(a.note);
        }
    }
    for (const auto& s : r.result.skipped) {
        rep.skippedLines << fromStd(s.messageId) + QStringLiteral(": ") + fromStd(s.reason);
    }
    if (!r.auditError.empty() && rep.error.isEmpty()) {
        rep.error = fromStd(r.auditError);
    }
    return rep;
}

QString ActionReport::summary() const {
    if (!notice.isEmpty()) {
        return QObject::tr("%1: %2").arg(title, notice);
    }
    if (!error.isEmpty() && applied == 0 && skipped == 0) {
        return QObject::tr("%1 failed: %2").arg(title, error);
    }
    QString s = QObject::tr("%1: applied %2; skipped %3")
                    .arg(title, localeCount(applied), localeCount(skipped));
    if (!skippedByReason.isEmpty()) {
        s += QStringLiteral(" (") + skippedByReason + QLatin1Char(')');
    }
    s += QObject::tr("; not attempted %1").arg(localeCount(notAttempted));
    if (!noteLines.isEmpty()) {
        s += QObject::tr("; %1 with a note").arg(localeCount(noteLines.size()));
    }
    if (cancelled) {
        s += QObject::tr(" (cancelled)");
    }
    if (!error.isEmpty()) {
        s += QObject::tr(". Stopped: %1").arg(error);
    }
    return s;
}

void showReportDialog(const ActionReport& report, QWidget* parent) {
    auto* box =
        new QMessageBox(report.error.isEmpty() ? QMessageBox::Information : QMessageBox::Warning,
                        report.title, report.summary(), QMessageBox::Ok, parent);
    box->setTextFormat(Qt::PlainText);
    box->setObjectName(QStringLiteral("actionReport"));
    // Why rows were skipped, in the report itself (the first few; all of
    // them under Show Details).
    constexpr int kSaid = 3;
    if (!report.skippedLines.isEmpty()) {
        QStringList why = report.skippedLines.mid(0, kSaid);
        if (report.skippedLines.size() > kSaid) {
            why << QObject::tr("and %1 more (Show Details)")
                       .arg(localeCount(report.skippedLines.size() - kSaid));
        }
        box->setInformativeText(why.join(u'\n'));
    }
    QStringList details;
    if (!report.noteLines.isEmpty()) {
        details
            << QObject::tr("Applied with a note (%1):").arg(localeCount(report.noteLines.size()));
        details << report.noteLines.mid(0, 1000);
    }
    if (!report.appliedIds.isEmpty()) {
        details << QObject::tr("Applied (%1):").arg(localeCount(report.applied));
        details << report.appliedIds.mid(0, 1000);
    }
    if (!report.skippedLines.isEmpty()) {
        details << QObject::tr("Skipped (%1):").arg(localeCount(report.skipped));
        details << report.skippedLines.mid(0, 1000);
    }
    if (!report.recordId.isEmpty()) {
        details << QObject::tr("Audit record: %1").arg(report.recordId);
    }
    if (!details.isEmpty()) {
        box->setDetailedText(details.join(u'\n'));
        // One id a line, never wrapped in the middle of an id.
        for (auto* text : box->findChildren<QTextEdit*>()) {
            text->setLineWrapMode(QTextEdit::NoWrap);
        }
    }
    // Modal to the window: it cannot be clicked through, nor left behind to
    // come back stale after the next action.
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setWindowModality(Qt::WindowModal);
    box->open();
}

} // namespace lq::ui
