// SPDX-License-Identifier: MIT
#include "ui/gettingstarted.h"

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

} // namespace

GettingStartedDialog::GettingStartedDialog(QWidget* parent)
    : QDialog(parent)
    , m_pages(new QTabWidget(this)) {
    setWindowTitle(tr("Getting started"));
    setObjectName(QStringLiteral("gettingStarted"));
    resize(640, 460);
    auto* layout = new QVBoxLayout(this);
    m_pages->setAccessibleName(tr("Getting started pages"));
    m_pages->addTab(
        page(m_pages,
             tr("<h3>Statuses</h3>"
                "<p>A queue file holds messages (jobs). Each is in one state:</p>"
                "<ul><li><b>READY</b> — waiting for a worker.</li>"
                "<li><b>LOCKED</b> — a worker claimed it and is processing it.</li>"
                "<li><b>DONE</b> — finished; kept until pruned.</li>"
                "<li><b>FAILED</b> — the worker gave up; kept until retried or pruned.</li></ul>"
                "<p>Lease queues (a <i>jobs</i> table with leases) show <b>SCHEDULED</b> (due "
                "later), <b>LEASED</b> (claimed, lease running) and <b>EXPIRED</b> (the lease "
                "lapsed: any worker may claim it again). Finishing such a job deletes it, so "
                "they keep no history.</p>"
                "<p>The chips above the table filter by state (Ctrl+1 … Ctrl+9); the counts "
                "are exact and live.</p>")),
        tr("Statuses"));
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
                "<li><b>Release / Reschedule… / Delete</b> on lease queues.</li>"
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
                "<p>The project's README.md (in its source tree) explains the formats, the "
                "safety rules and the benchmarks.</p>"
                "<p>Help › Keyboard shortcuts lists every shortcut.</p>")),
        tr("More"));
    layout->addWidget(m_pages);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
}

} // namespace lq::ui
