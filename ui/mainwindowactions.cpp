// SPDX-License-Identifier: MIT
// MainWindow's operator workflows: they present core::Operator (targets,
// confirmation, chunked apply with its audit record, report, undo) and run
// every lqcore call in a worker.
#include "ui/mainwindow.h"

#include "core/error.h"
#include "core/formats/queueformat.h"
#include "core/operator.h"
#include "core/queue.h"
#include "ui/runasync.h"
#include "ui/uitext.h"

#include <QAction>
#include <QApplication>
#include <QLocale>
#include <QMessageBox>
#include <QPointer>
#include <QProgressDialog>
#include <QStatusBar>
#include <QTableView>
#include <QTextEdit>

#include <atomic>

namespace lq::ui {

using core::Action;
using core::Target;

namespace {

constexpr std::size_t kProgressThreshold = 2000;
constexpr const char* kTool = "lqadmin";

QString actionTitle(Action a) {
    switch (a) {
    case Action::Retry:
        return MainWindow::tr("Retry");
    case Action::MarkFailed:
        return MainWindow::tr("Mark failed");
    case Action::Release:
        return MainWindow::tr("Release");
    case Action::Reschedule:
        return MainWindow::tr("Reschedule");
    case Action::Delete:
        return MainWindow::tr("Delete");
    case Action::Prune:
        return MainWindow::tr("Prune");
    case Action::RetryExpired:
        return MainWindow::tr("Retry expired");
    case Action::Enqueue:
        return MainWindow::tr("Enqueue");
    case Action::Vacuum:
        return MainWindow::tr("Vacuum");
    case Action::Upgrade:
        return MainWindow::tr("Upgrade");
    }
    return {};
}

QString errorText(const std::exception& e) {
    return QString::fromUtf8(e.what());
}

QString count(qint64 n) {
    return QLocale().toString(n);
}

QString skipKindText(core::SkipKind k) {
    switch (k) {
    case core::SkipKind::Changed:
        return MainWindow::tr("changed since shown");
    case core::SkipKind::Gone:
        return MainWindow::tr("gone");
    case core::SkipKind::Conflict:
        return MainWindow::tr("conflict");
    case core::SkipKind::NotApplicable:
        return MainWindow::tr("not applicable");
    }
    return {};
}

MainWindow::ActionReport reportFrom(const QString& title, const core::Report& r) {
    MainWindow::ActionReport rep;
    rep.title = title;
    rep.applied = qint64(r.applied());
    rep.skipped = qint64(r.skipped());
    rep.notAttempted = qint64(r.notAttempted());
    rep.cancelled = r.result.cancelled;
    rep.recordId = fromStd(r.recordId);
    rep.error = fromStd(r.result.error);
    QStringList kinds;
    for (const auto& [kind, n] : r.skippedByKind()) {
        kinds << skipKindText(kind) + QLatin1Char(' ') + count(qint64(n));
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

} // namespace

QString MainWindow::ActionReport::summary() const {
    if (!notice.isEmpty()) {
        return tr("%1: %2").arg(title, notice);
    }
    if (!error.isEmpty() && applied == 0 && skipped == 0) {
        return tr("%1 failed: %2").arg(title, error);
    }
    QString s = tr("%1: applied %2; skipped %3").arg(title, count(applied), count(skipped));
    if (!skippedByReason.isEmpty()) {
        s += QStringLiteral(" (") + skippedByReason + QLatin1Char(')');
    }
    s += tr("; not attempted %1").arg(count(notAttempted));
    if (!noteLines.isEmpty()) {
        s += tr("; %1 with a note").arg(count(noteLines.size()));
    }
    if (cancelled) {
        s += tr(" (cancelled)");
    }
    if (!error.isEmpty()) {
        s += tr(". Stopped: %1").arg(error);
    }
    return s;
}

bool MainWindow::checkWritable() {
    if (!m_queue) {
        showError(tr("Open a queue file first (File › Open)."));
        return false;
    }
    if (m_fileGone) {
        showError(tr("%1 was deleted, replaced or moved since it was opened: nothing was changed. "
                     "Reopen it (File › Reopen) to act on what the path names now.")
                      .arg(m_path));
        return false;
    }
    if (m_queueReadOnly) {
        showError(m_info.formatReadOnly()
                      ? tr("%1 is read-only: %2").arg(fileName(), fromStd(m_info.readOnlyReason))
                      : tr("%1 is open read-only. Turn off File › Read-only to change it.")
                            .arg(fileName()));
        return false;
    }
    if (m_busyJobs > 0) {
        showError(tr("Another action on %1 is still running.").arg(fileName()), false);
        return false;
    }
    return true;
}

bool MainWindow::confirm(const QString& text, qint64 n) {
    // Refresh pauses while the operator decides, so the count confirmed is
    // the count shown.
    const bool live = m_model->liveRefresh();
    m_model->setLiveRefresh(false);
    bool ok = false;
    if (m_confirm) {
        ok = m_confirm(text, n);
    } else {
        QMessageBox box(QMessageBox::Question, tr("Confirm"), text,
                        QMessageBox::Ok | QMessageBox::Cancel, this);
        box.setTextFormat(Qt::PlainText);
        box.setDefaultButton(QMessageBox::Cancel);
        ok = box.exec() == QMessageBox::Ok;
    }
    m_model->setLiveRefresh(live);
    return ok;
}

void MainWindow::preparePlan(Action action, const PlanReady& ready) {
    if (applyToAllMatching()) {
        core::Filter f = m_model->filter();
        f.now = core::systemNowNs(); // the filter is fixed at this moment
        ++m_busyJobs;
        runAsync(
            this,
            [q = m_queue, f, action]() -> std::pair<core::Plan, QString> {
                try {
                    return {core::Operator(*q, kTool).planFilter(action, f), {}};
                } catch (const std::exception& e) {
                    return {{}, errorText(e)};
                }
            },
            [this, ready](std::pair<core::Plan, QString> r) {
                --m_busyJobs;
                if (!r.second.isEmpty()) {
                    showError(r.second);
                    return;
                }
                ready(std::move(r.first));
            });
        return;
    }
    // The selection, with the tokens of the rows as they were shown.
    std::vector<Target> targets;
    std::vector<std::int64_t> unloaded;
    const QModelIndexList rows = m_view->selectionModel()->selectedRows();
    for (const QModelIndex& i : rows) {
        if (const MessageRow* r = m_model->rowAt(i.row())) {
            targets.push_back({r->msg.messageId, r->msg.token});
        } else if (m_model->rowIdAt(i.row()) >= 0) {
            unloaded.push_back(m_model->rowIdAt(i.row()));
        }
    }
    ++m_busyJobs;
    // Rows selected but never shown (a shift-click over pages): read their
    // current tokens.
    runAsync(
        this,
        [q = m_queue, targets = std::move(targets), unloaded,
         action]() mutable -> std::pair<core::Plan, QString> {
            try {
                if (!unloaded.empty()) {
                    for (const core::Message& m : q->fetchRowids(unloaded)) {
                        targets.push_back({m.messageId, m.token});
                    }
                }
                return {core::Operator(*q, kTool).planTargets(action, std::move(targets)), {}};
            } catch (const std::exception& e) {
                return {{}, errorText(e)};
            }
        },
        [this, ready](std::pair<core::Plan, QString> r) {
            --m_busyJobs;
            if (!r.second.isEmpty()) {
                showError(r.second);
                return;
            }
            ready(std::move(r.first));
        });
}

void MainWindow::runRowAction(Action a, double delaySeconds) {
    if (!checkWritable()) {
        return;
    }
    if (const std::string why = core::QueueFormat::of(m_info).whyNot(a, m_info); !why.empty()) {
        showError(tr("%1: %2").arg(fileName(), fromStd(why)), false);
        return;
    }
    if (!applyToAllMatching() && !m_view->selectionModel()->hasSelection()) {
        showError(tr("Select messages first, or choose Actions › Apply to all matching the "
                     "filter."),
                  false);
        return;
    }
    const bool all = applyToAllMatching();
    // Pause refresh from the moment the targets are taken.
    m_model->setLiveRefresh(false);
    preparePlan(a, [this, a, all, delaySeconds](core::Plan plan) {
        m_model->setLiveRefresh(action(QStringLiteral("live"))->isChecked());
        const QString title = actionTitle(a);
        if (plan.targets.empty()) {
            ActionReport rep;
            rep.title = title;
            rep.notice = tr("no message matches");
            finishReport(rep);
            return;
        }
        plan.delaySeconds = delaySeconds;
        const qint64 n = qint64(plan.count());
        const QString scope =
            all ? tr("every message matching the current filter") : tr("the selected messages");
        QString text = tr("%1 %2 message(s) (%3) in %4?").arg(title, count(n), scope, fileName());
        if (a == Action::Reschedule) {
            text = tr("Reschedule %1 job(s) (%2) in %3 to run in %4?")
                       .arg(count(n), scope, fileName(),
                            humanDuration(core::secondsToNs(delaySeconds)));
        } else if (a == Action::Delete) {
            text = tr("Delete %1 job(s) (%2) from %3? Undo can restore them.")
                       .arg(count(n), scope, fileName());
        }
        if (!confirm(text, n)) {
            return;
        }
        runPlan(std::move(plan), title);
    });
}

void MainWindow::retrySelected() {
    // What "retry" means is the format's: a lease queue releases (run now).
    runRowAction(core::QueueFormat::of(m_info).retryAction());
}

void MainWindow::releaseSelected() {
    runRowAction(Action::Release);
}

void MainWindow::rescheduleSelected(double delaySeconds) {
    runRowAction(Action::Reschedule, delaySeconds);
}

void MainWindow::deleteSelected() {
    runRowAction(Action::Delete);
}

void MainWindow::markFailedSelected() {
    runRowAction(Action::MarkFailed);
}

void MainWindow::runPlan(core::Plan plan, const QString& title,
                         std::optional<core::AuditEntry> undo) {
    auto cancel = std::make_shared<std::atomic_bool>(false);
    const std::size_t total = undo ? undo->applied.size() : plan.count();
    QPointer<QProgressDialog> progress;
    if (total >= kProgressThreshold) {
        progress = new QProgressDialog(tr("%1 in %2\u2026").arg(title, fileName()), tr("Cancel"), 0,
                                       int(total), this);
        progress->setWindowModality(Qt::WindowModal);
        progress->setMinimumDuration(300);
        progress->setAutoClose(false);
        progress->setAutoReset(false);
        connect(progress, &QProgressDialog::canceled, this, [cancel] { cancel->store(true); });
    }
    ++m_busyJobs;
    QPointer<MainWindow> self(this);
    auto work = [q = m_queue, plan = std::move(plan), undo = std::move(undo), cancel, progress,
                 self]() -> core::Report {
        const auto onProgress = [progress, self](std::size_t done, std::size_t) {
            if (!self) {
                return;
            }
            QMetaObject::invokeMethod(
                self.data(),
                [progress, done] {
                    if (progress) {
                        progress->setValue(int(done));
                    }
                },
                Qt::QueuedConnection);
        };
        // Operator::run and undo never throw once started: an error is in
        // the report, with what was applied before it.
        core::Operator op(*q, kTool);
        return undo ? op.undo(*undo, cancel.get(), onProgress)
                    : op.run(plan, cancel.get(), onProgress);
    };
    runAsync(this, std::move(work), [this, title, progress](const core::Report& r) {
        --m_busyJobs;
        if (progress) {
            progress->close();
            progress->deleteLater();
        }
        finishReport(reportFrom(title, r));
        m_model->refreshNow();
    });
}

void MainWindow::finishReport(const ActionReport& report) {
    m_lastReport = report;
    ++m_reportCount;
    statusBar()->showMessage(report.summary(), 15000);
    if (!report.error.isEmpty()) {
        m_lastError = report.summary();
    }
    if (m_report) {
        m_report(report);
        return;
    }
    auto* box =
        new QMessageBox(report.error.isEmpty() ? QMessageBox::Information : QMessageBox::Warning,
                        report.title, report.summary(), QMessageBox::Ok, this);
    box->setTextFormat(Qt::PlainText);
    QStringList details;
    if (!report.noteLines.isEmpty()) {
        details << tr("Applied with a note (%1):").arg(count(report.noteLines.size()));
        details << report.noteLines.mid(0, 1000);
    }
    if (!report.appliedIds.isEmpty()) {
        details << tr("Applied (%1):").arg(count(report.applied));
        details << report.appliedIds.mid(0, 1000);
    }
    if (!report.skippedLines.isEmpty()) {
        details << tr("Skipped (%1):").arg(count(report.skipped));
        details << report.skippedLines.mid(0, 1000);
    }
    if (!report.recordId.isEmpty()) {
        details << tr("Audit record: %1").arg(report.recordId);
    }
    if (!details.isEmpty()) {
        box->setDetailedText(details.join(u'\n'));
        // One id a line, never wrapped in the middle of an id.
        for (auto* text : box->findChildren<QTextEdit*>()) {
            text->setLineWrapMode(QTextEdit::NoWrap);
        }
    }
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setModal(false);
    box->show();
}

void MainWindow::retryExpired(double thresholdSeconds) {
    if (!checkWritable()) {
        return;
    }
    ++m_busyJobs;
    runAsync(
        this,
        [q = m_queue, thresholdSeconds]() -> std::pair<core::Plan, QString> {
            try {
                return {core::Operator(*q, kTool).planRetryExpired(thresholdSeconds), {}};
            } catch (const std::exception& e) {
                return {{}, errorText(e)};
            }
        },
        [this, thresholdSeconds](std::pair<core::Plan, QString> r) {
            --m_busyJobs;
            const QString title = actionTitle(Action::RetryExpired);
            if (!r.second.isEmpty()) {
                showError(r.second);
                return;
            }
            if (r.first.targets.empty()) {
                ActionReport rep;
                rep.title = title;
                rep.notice = tr("no LOCKED message is older than %1")
                                 .arg(humanDuration(core::secondsToNs(thresholdSeconds)));
                finishReport(rep);
                return;
            }
            const qint64 n = qint64(r.first.count());
            if (!confirm(tr("Retry %1 LOCKED message(s) whose lock is older than %2 in %3? Their "
                            "workers lose them.")
                             .arg(count(n), humanDuration(core::secondsToNs(thresholdSeconds)),
                                  fileName()),
                         n)) {
                return;
            }
            runPlan(std::move(r.first), title);
        });
}

void MainWindow::prune(std::optional<double> olderThanSeconds, bool includeFailed) {
    if (!checkWritable()) {
        return;
    }
    ++m_busyJobs;
    runAsync(
        this,
        [q = m_queue, olderThanSeconds, includeFailed]() -> std::pair<core::Plan, QString> {
            try {
                return {core::Operator(*q, kTool).planPrune(includeFailed, olderThanSeconds), {}};
            } catch (const std::exception& e) {
                return {{}, errorText(e)};
            }
        },
        [this, olderThanSeconds, includeFailed](std::pair<core::Plan, QString> r) {
            --m_busyJobs;
            const QString title = actionTitle(Action::Prune);
            if (!r.second.isEmpty()) {
                showError(r.second);
                return;
            }
            if (r.first.targets.empty()) {
                ActionReport rep;
                rep.title = title;
                rep.notice = tr("nothing to prune");
                finishReport(rep);
                return;
            }
            const qint64 n = qint64(r.first.count());
            const QString what = includeFailed ? tr("DONE and FAILED") : tr("DONE");
            const QString when = r.first.cutoff
                                     ? tr(" finished before %1 (more than %2 ago)")
                                           .arg(formatInstant(*r.first.cutoff, m_model->utc()),
                                                humanDuration(core::secondsToNs(*olderThanSeconds)))
                                     : QString();
            if (!confirm(tr("Delete %1 %2 message(s)%3 from %4? The current search does not "
                            "apply. Undo can restore them.")
                             .arg(count(n), what, when, fileName()),
                         n)) {
                return;
            }
            runPlan(std::move(r.first), title);
        });
}

void MainWindow::vacuum() {
    if (!checkWritable()) {
        return;
    }
    if (!confirm(tr("Vacuum %1? SQLite rewrites the whole file; writers wait until it is done.")
                     .arg(fileName()),
                 -1)) {
        return;
    }
    ++m_busyJobs;
    QApplication::setOverrideCursor(Qt::BusyCursor);
    using Sizes = std::pair<std::int64_t, std::int64_t>;
    runAsync(
        this,
        [q = m_queue]() -> std::pair<Sizes, QString> {
            try {
                Sizes sizes;
                const core::Report r = core::Operator(*q, kTool).vacuum(&sizes);
                return {sizes, fromStd(r.auditError)};
            } catch (const std::exception& e) {
                return {{0, 0}, errorText(e)};
            }
        },
        [this](const std::pair<Sizes, QString>& r) {
            --m_busyJobs;
            QApplication::restoreOverrideCursor();
            ActionReport rep;
            rep.title = tr("Vacuum");
            rep.error = r.second;
            if (r.second.isEmpty()) {
                rep.notice = tr("%1 before, %2 after")
                                 .arg(humanBytes(r.first.first), humanBytes(r.first.second));
            }
            finishReport(rep);
            // VACUUM may renumber rowids: start over, the current message is kept by id.
            rememberCurrent();
            m_model->setFilter(m_model->filter());
        });
}

void MainWindow::enqueue(const QString& payload, const QString& idempotencyKey) {
    if (!checkWritable()) {
        return;
    }
    ++m_busyJobs;
    std::optional<std::string> key;
    if (!idempotencyKey.isEmpty()) {
        key = toStd(idempotencyKey);
    }
    runAsync(
        this,
        [q = m_queue, d = toStd(payload), key]() -> std::pair<core::Report, QString> {
            try {
                // The record is written inside the insert's transaction;
                // undo deletes the message while no worker has claimed it.
                return {core::Operator(*q, kTool).enqueue(d, key), {}};
            } catch (const std::exception& e) {
                return {{}, errorText(e)};
            }
        },
        [this](const std::pair<core::Report, QString>& r) {
            --m_busyJobs;
            ActionReport rep = reportFrom(tr("Enqueue"), r.first);
            if (!r.second.isEmpty()) {
                rep.error = r.second;
            } else if (r.first.applied() == 0) {
                rep.notice = tr("the idempotency key is stored with the same data: nothing added");
            }
            finishReport(rep);
            m_model->refreshNow();
        });
}

void MainWindow::upgradeFile() {
    if (!checkWritable()) {
        return;
    }
    const core::QueueFormat& format = core::QueueFormat::of(m_info);
    if (const std::string why = format.whyNot(Action::Upgrade, m_info); !why.empty()) {
        showError(tr("%1: %2").arg(fileName(), fromStd(why)), false);
        return;
    }
    const QString text =
        tr("Upgrade %1 (%2) to the current format?\n\n%3\n\nStop every worker that uses this "
           "file first: old versions cannot use the upgraded file, and LOCKED messages become "
           "READY (their workers hold no claim id).")
            .arg(fileName(), QString::fromLatin1(format.id()), fromStd(format.notice(m_info)));
    if (!confirm(text, -1)) {
        return;
    }
    ++m_busyJobs;
    runAsync(
        this,
        [q = m_queue]() -> QString {
            try {
                return fromStd(core::Operator(*q, kTool).upgrade().auditError);
            } catch (const std::exception& e) {
                return errorText(e);
            }
        },
        [this](const QString& error) {
            --m_busyJobs;
            ActionReport rep;
            rep.title = tr("Upgrade");
            rep.error = error;
            if (error.isEmpty()) {
                rep.notice = tr("%1 is upgraded to the current format").arg(fileName());
            }
            finishReport(rep);
            reopen(); // the format changed
        });
}

void MainWindow::undoLastAction() {
    if (!checkWritable()) {
        return;
    }
    ++m_busyJobs;
    runAsync(
        this,
        [q = m_queue]() -> std::pair<std::optional<core::AuditEntry>, QString> {
            try {
                return {core::Operator(*q, kTool).lastUndoable(), {}};
            } catch (const std::exception& e) {
                return {std::nullopt, errorText(e)};
            }
        },
        [this](std::pair<std::optional<core::AuditEntry>, QString> r) {
            --m_busyJobs;
            const QString title = tr("Undo");
            if (!r.second.isEmpty()) {
                ActionReport rep;
                rep.title = title;
                rep.error = r.second;
                finishReport(rep);
                return;
            }
            if (!r.first) {
                ActionReport rep;
                rep.title = title;
                rep.notice = tr("nothing to undo in %1").arg(fileName());
                finishReport(rep);
                return;
            }
            core::AuditEntry entry = std::move(*r.first);
            const qint64 n = qint64(entry.applied.size());
            const QString when = formatInstant(entry.when, m_model->utc());
            if (!confirm(tr("Undo %1 of %2 message(s) made at %3 in %4? Rows that changed since "
                            "are left alone and listed.")
                             .arg(actionTitle(entry.action), count(n), when, fileName()),
                         n)) {
                return;
            }
            runPlan({}, title, std::move(entry));
        });
}

} // namespace lq::ui
