// SPDX-License-Identifier: MIT
#include "ui/gettingstarted.h"

#include "core/formats/queueformat.h"
#include "core/statemodel.h"
#include "ui/uitext.h"

#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QTabWidget>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace lq::ui {

namespace {

QTextBrowser* page(QWidget* parent, const QString& html) {
    // Our own text, never anything from a queue file.
    auto* b = new QTextBrowser(parent);
    b->setOpenExternalLinks(true);
    b->setHtml(html);
    return b;
}

/// The states page: the canonical states, then each format's own states
/// and sub-counts as core's state model names them (core/statemodel.h), so
/// a format added behind the seam appears here with its words.
QString statesPage() {
    QString html = QCoreApplication::translate(
        "lq::ui::GettingStartedDialog",
        "<h3>States</h3>"
        "<p>Every job of a queue is in exactly one state:</p>"
        "<ul><li><b>ready</b> — due; waiting for a worker.</li>"
        "<li><b>scheduled</b> — due later (a delay, a retry's back-off).</li>"
        "<li><b>locked</b> — a worker claimed it (a lease queue's live lease).</li>"
        "<li><b>done</b> — finished; kept until pruned (where the library keeps it).</li>"
        "<li><b>failed</b> — the worker gave up; kept until retried or pruned.</li></ul>"
        "<p>Some libraries have states of their own, counted as their own (a job in "
        "one is in no other), and counts that are part of a state:</p><ul>");
    for (const core::QueueFormat* f : core::QueueFormat::recognisers()) {
        QStringList own;
        for (const core::PartitionState& p : core::partitionStates(*f)) {
            if (p.canonical) {
                continue;
            }
            std::string what = p.state ? f->stateDescription(*p.state) : std::string();
            for (const auto& x : f->extraStates()) {
                if (x.name == p.name) {
                    what = x.description;
                }
            }
            own << QStringLiteral("<b>%1</b> (%2)")
                       .arg(fromStd(p.name).toHtmlEscaped(), fromStd(what).toHtmlEscaped());
        }
        for (const core::SubState& sub : core::subStates(*f)) {
            if (sub.name == "stuck") {
                continue;
            }
            own << QCoreApplication::translate("lq::ui::GettingStartedDialog",
                                               "<b>%1</b>, part of %2 (%3)")
                       .arg(fromStd(sub.name).toHtmlEscaped(),
                            fromStd(sub.within.empty() ? std::string() : sub.within.front())
                                .toHtmlEscaped(),
                            fromStd(sub.description).toHtmlEscaped());
        }
        if (!own.isEmpty()) {
            html += QStringLiteral("<li><i>%1</i>: %2</li>")
                        .arg(fromStd(f->id()).toHtmlEscaped(), own.join(QStringLiteral("; ")));
        }
    }
    html += QCoreApplication::translate(
        "lq::ui::GettingStartedDialog",
        "</ul><p><b>stuck</b> is part of locked: claimed longer than <b>Stuck after</b>, or "
        "abandoned by the library's own rule where it has one. The chips above the table "
        "filter by state (Ctrl+1 … Ctrl+9, Tab to the others); the counts are exact and "
        "live, and lqctl, Prometheus and the sidebar show the same ones by the same "
        "names.</p>");
    return html;
}

} // namespace

GettingStartedDialog::GettingStartedDialog(QWidget* parent)
    : QDialog(parent)
    , m_pages(new QTabWidget(this)) {
    setWindowTitle(tr("Getting started"));
    setObjectName(QStringLiteral("gettingStarted"));
    resize(640, 460);
    auto* layout = new QVBoxLayout(this);
    m_pages->setAccessibleName(tr("Getting started pages"));
    m_pages->addTab(page(m_pages, statesPage()), tr("States"));
    m_pages->addTab(
        page(m_pages,
             tr("<h3>Claims and stuck messages</h3>"
                "<p>When a worker claims a message, its <b>claim token</b> changes (claim_id in "
                "litequeue 0.13 and later, lock_time in older files, attempts in lease "
                "queues). Every action here carries the token you saw and changes a message "
                "only if it still holds it: if a worker finished or reclaimed it meanwhile, "
                "the action skips it and says why (\"changed since shown\").</p>"
                "<p>A LOCKED message whose lock is older than <b>Stuck after</b> is shown as "
                "<b>stuck</b>: its worker probably died. Retry gives it back to the queue; "
                "Retry expired… does that for every stuck message at once.</p>")),
        tr("Claims and stuck"));
    m_pages->addTab(
        page(m_pages,
             tr("<h3>What each action does — and cannot do</h3>"
                "<ul><li><b>Retry</b> (LOCKED, FAILED → READY). It cannot stop a worker that "
                "is still running the message; that worker's finish is then refused.</li>"
                "<li><b>Mark failed</b> (LOCKED, READY → FAILED).</li>"
                "<li><b>Retry expired…</b>: every LOCKED message locked longer than a threshold, "
                "in one transaction.</li>"
                "<li><b>Prune…</b>: deletes DONE (and FAILED) messages finished before a "
                "cutoff fixed when you confirm. The search does not apply.</li>"
                "<li><b>Vacuum</b>: rewrites the file to give free pages back; writers wait "
                "meanwhile. It cannot be undone.</li>"
                "<li><b>Run now / Reschedule… / Delete</b> where the library has them.</li>"
                "<li>A row action acts on the selected jobs, or on every job matching the "
                "filter when you choose that in its confirmation; nothing is remembered "
                "from one action to the next.</li>"
                "<li><b>Undo last action</b> (Ctrl+Z) reverts the rows that still hold what "
                "the action wrote, and lists the others. A pruned message whose idempotency key "
                "was reused is restored without its key.</li></ul>"
                "<p>Every write is recorded in an audit log outside the queue file. A file "
                "that was deleted or replaced while shown is read-only until you reopen it.</p>")),
        tr("Actions"));
    m_pages->addTab(
        page(m_pages,
             tr("<h3>More</h3>"
                "<p>The command-line twin, <b>lqctl</b>, does everything the window does, for "
                "servers and scripts: <code>lqctl stats FILE</code>, <code>lqctl list FILE "
                "--status stuck</code>, <code>lqctl retry FILE ID --claim N</code>, <code>lqctl "
                "audit FILE</code>, <code>lqctl undo FILE</code>. Read <code>man lqctl</code> "
                "and <code>man lqadmin</code>.</p>"
                "<p>The project's README.md and docs/FORMATS.md (in its source tree) explain "
                "the formats, their states and actions, and the safety rules; "
                "docs/BENCHMARKS.md the measurements.</p>"
                "<p>Help › Keyboard shortcuts lists every shortcut.</p>")),
        tr("More"));
    layout->addWidget(m_pages);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
}

} // namespace lq::ui
