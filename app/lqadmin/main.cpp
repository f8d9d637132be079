// SPDX-License-Identifier: MIT
// lqadmin: the LiteQueue Admin GUI. Thin: parses the command line and shows
// lq::ui::MainWindow.

#include "ui/mainwindow.h"
#include "ui/theme.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>

int main(int argc, char* argv[]) {
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("LiteQueue"));
    QApplication::setApplicationName(QStringLiteral("lqadmin"));
    QApplication::setApplicationDisplayName(QStringLiteral("LiteQueue Admin"));
    QApplication::setApplicationVersion(QStringLiteral("0.1.0"));
    QApplication::setDesktopFileName(QStringLiteral("lqadmin"));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QApplication::translate("main", "Inspect and operate SQLite job queue files."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(
        QStringLiteral("files"),
        QApplication::translate("main", "Queue files to open (all are listed in the sidebar, "
                                        "the first is shown)."),
        QStringLiteral("[FILE...]"));
    QCommandLineOption select(
        QStringLiteral("select"),
        QApplication::translate("main", "Select the message with this id once the file is open."),
        QStringLiteral("ID"));
    parser.addOption(select);
    QCommandLineOption watch(
        QStringLiteral("watch"),
        QApplication::translate("main", "Watch this folder: list every queue file in it in the "
                                        "sidebar and follow files that appear or disappear "
                                        "(repeatable)."),
        QStringLiteral("DIR"));
    parser.addOption(watch);
    QCommandLineOption dark(QStringLiteral("dark"),
                            QApplication::translate("main", "Use a dark theme (Fusion style)."));
    parser.addOption(dark);
    parser.process(app);
    if (parser.isSet(dark)) {
        lq::ui::theme::useDarkFusion();
    }

    lq::ui::MainWindow window;
    window.show();
    const QStringList files = parser.positionalArguments();
    if (parser.isSet(select)) {
        window.selectMessage(parser.value(select));
    }
    for (const QString& dir : parser.values(watch)) {
        window.watchFolder(dir);
    }
    if (!files.isEmpty()) {
        window.openFiles(files);
    }
    return app.exec();
}
