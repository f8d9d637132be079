// SPDX-License-Identifier: MIT
#include "ui/aboutdialog.h"

#include "ui/uiresources.h"

#include <lqversion.h>
#include <sqlite3.h>

#include <QApplication>
#include <QClipboard>
#include <QDialogButtonBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QIcon>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace lq::ui {

namespace {

struct Fact {
    QString name;
    QString value;
};

QList<Fact> facts() {
    return {
        {AboutDialog::tr("Version"), QStringLiteral(LQ_VERSION)},
        {AboutDialog::tr("Commit"), QStringLiteral(LQ_GIT_COMMIT)},
        {AboutDialog::tr("SQLite"), QString::fromLatin1(sqlite3_libversion())},
        {AboutDialog::tr("Qt"), QString::fromLatin1(qVersion())},
    };
}

} // namespace

QString AboutDialog::versionReport() {
    QString text = tr("LiteQueue Admin %1").arg(QStringLiteral(LQ_VERSION)) + u'\n';
    const QList<Fact> all = facts();
    for (qsizetype i = 1; i < all.size(); ++i) {
        text += all[i].name + QStringLiteral(": ") + all[i].value + u'\n';
    }
    return text;
}

AboutDialog::AboutDialog(QWidget* parent)
    : QDialog(parent) {
    initResources();
    setWindowTitle(tr("About LiteQueue Admin"));

    auto* icon = new QLabel(this);
    icon->setPixmap(QIcon(QStringLiteral(":/icons/lqadmin.svg")).pixmap(64, 64));
    icon->setAlignment(Qt::AlignTop);

    auto* title = new QLabel(tr("<h3>LiteQueue Admin</h3>"), this);
    title->setTextFormat(Qt::RichText);
    auto* blurb = new QLabel(tr("Inspect and operate SQLite job queues: litequeue 0.14, 0.13 and "
                                "legacy files, and jobs-with-leases queues.\n\n"
                                "Every change is a compare-and-swap on the claim token you saw, "
                                "and is recorded in an audit log outside the queue file."),
                             this);
    blurb->setTextFormat(Qt::PlainText);
    blurb->setWordWrap(true);

    auto* grid = new QGridLayout;
    int row = 0;
    for (const Fact& f : facts()) {
        auto* value = new QLabel(f.value, this);
        value->setTextFormat(Qt::PlainText);
        value->setTextInteractionFlags(Qt::TextSelectableByMouse);
        grid->addWidget(new QLabel(f.name + u':', this), row, 0);
        grid->addWidget(value, row, 1);
        ++row;
    }
    grid->setColumnStretch(1, 1);

    auto* text = new QVBoxLayout;
    text->addWidget(title);
    text->addWidget(blurb);
    text->addLayout(grid);
    auto* top = new QHBoxLayout;
    top->addWidget(icon);
    top->addLayout(text, 1);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    QPushButton* copy = buttons->addButton(tr("&Copy"), QDialogButtonBox::ActionRole);
    copy->setToolTip(tr("Copy the version, commit, SQLite and Qt versions for a bug report"));
    connect(copy, &QPushButton::clicked, this,
            [] { QApplication::clipboard()->setText(versionReport()); });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(buttons);
    resize(460, sizeHint().height());
}

} // namespace lq::ui
