// SPDX-License-Identifier: MIT
// Help > About: the dialog shows the version and git commit the build was
// configured with, and the SQLite and Qt versions loaded at run time; Copy
// puts the same facts on the clipboard.

#include "ui/aboutdialog.h"

#include <lqversion.h>
#include <sqlite3.h>

#include <QApplication>
#include <QClipboard>
#include <QDialogButtonBox>
#include <QLabel>
#include <QPushButton>
#include <QTest>

class TstAboutDialog : public QObject {
    Q_OBJECT
private slots:
    void showsVersionCommitSqliteAndQt() {
        lq::ui::AboutDialog dialog;
        QStringList shown;
        const QList<QLabel*> labels = dialog.findChildren<QLabel*>();
        for (const QLabel* l : labels) {
            shown << l->text();
        }
        for (const QString& want :
             {QStringLiteral(LQ_VERSION), QStringLiteral(LQ_GIT_COMMIT),
              QString::fromLatin1(sqlite3_libversion()), QString::fromLatin1(qVersion())}) {
            QVERIFY2(shown.contains(want), qPrintable(want + QStringLiteral(" not shown")));
        }
        QVERIFY(!QStringLiteral(LQ_GIT_COMMIT).isEmpty());
    }

    void copyPutsTheReportOnTheClipboard() {
        lq::ui::AboutDialog dialog;
        QPushButton* copy = nullptr;
        const QList<QPushButton*> buttons = dialog.findChildren<QPushButton*>();
        for (QPushButton* b : buttons) {
            if (b->text() == QStringLiteral("&Copy")) {
                copy = b;
            }
        }
        QVERIFY(copy);
        copy->click();
        const QString text = QApplication::clipboard()->text();
        QCOMPARE(text, lq::ui::AboutDialog::versionReport());
        QVERIFY(text.startsWith(QStringLiteral("LiteQueue Admin " LQ_VERSION "\n")));
        QVERIFY(
            text.contains(QStringLiteral("SQLite: ") + QString::fromLatin1(sqlite3_libversion())));
        QVERIFY(text.contains(QStringLiteral("Commit: " LQ_GIT_COMMIT)));
    }
};

QTEST_MAIN(TstAboutDialog)
#include "tst_aboutdialog.moc"
