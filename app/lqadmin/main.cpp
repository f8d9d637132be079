// SPDX-License-Identifier: MIT
// lqadmin: the LiteQueue Admin GUI. Thin: parses the command line and shows
// lq::ui::MainWindow.

#include "ui/appstyle.h"
#include "ui/mainwindow.h"
#include "ui/theme.h"

#include <lqversion.h>

#include <QAction>
#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>

#include <cstdio>
#include <cstring>

namespace {

struct CommandLine {
    QCommandLineParser parser;
    QCommandLineOption help;
    QCommandLineOption version;
    QCommandLineOption select{QStringLiteral("select"),
                              QCoreApplication::translate(
                                  "main", "Select the message with this id once the file is open."),
                              QStringLiteral("ID")};
    QCommandLineOption watch{
        QStringLiteral("watch"),
        QCoreApplication::translate("main", "Watch this folder: list every queue file in it in the "
                                            "sidebar and follow files that appear or disappear "
                                            "(repeatable)."),
        QStringLiteral("DIR")};
    QCommandLineOption dashboard{
        QStringLiteral("dashboard"),
        QCoreApplication::translate("main", "Show the Dashboard tab of the open queue instead of "
                                            "its messages.")};
    QCommandLineOption dark{QStringLiteral("dark"),
                            QCoreApplication::translate(
                                "main", "Use a dark theme (Fusion style with a dark palette).")};

    CommandLine()
        : help(parser.addHelpOption())
        , version(parser.addVersionOption()) {
        parser.setApplicationDescription(
            QCoreApplication::translate("main", "Inspect and operate SQLite job queue files."));
        parser.addPositionalArgument(
            QStringLiteral("files"),
            QCoreApplication::translate("main", "Queue files to open (all are listed in the "
                                                "sidebar, the first is shown)."),
            QStringLiteral("[FILE...]"));
        parser.addOption(select);
        parser.addOption(watch);
        parser.addOption(dashboard);
        parser.addOption(dark);
    }
};

void printVersion() {
    std::printf("lqadmin %s (commit %s)\n", LQ_VERSION, LQ_GIT_COMMIT);
}

/// --help and --version need no display, but QApplication aborts without
/// one; so when either is on the command line, answer it from a
/// QCoreApplication before any GUI exists.
bool asksForHelpOrVersion(int argc, char* argv[]) {
    for (int i = 1; i < argc; ++i) {
        const char* a = argv[i];
        if (std::strcmp(a, "--") == 0) {
            return false;
        }
        for (const char* flag : {"-h", "--help", "-?", "--help-all", "-v", "--version"}) {
            if (std::strcmp(a, flag) == 0) {
                return true;
            }
        }
    }
    return false;
}

} // namespace

int main(int argc, char* argv[]) {
    QCoreApplication::setOrganizationName(QStringLiteral("LiteQueue"));
    QCoreApplication::setApplicationName(QStringLiteral("lqadmin"));
    QCoreApplication::setApplicationVersion(QStringLiteral(LQ_VERSION));

    if (asksForHelpOrVersion(argc, argv)) {
        QCoreApplication app(argc, argv);
        CommandLine cli;
        // Errors (say a Qt option such as -platform) are for the GUI run below.
        cli.parser.parse(QCoreApplication::arguments());
        if (cli.parser.isSet(cli.version)) {
            printVersion();
            return 0;
        }
        if (cli.parser.isSet(cli.help)) {
            cli.parser.showHelp(0);
        }
        if (cli.parser.optionNames().contains(QStringLiteral("help-all"))) {
            cli.parser.process(app); // prints the help with Qt's options and exits
        }
    }

    QApplication app(argc, argv);
    QApplication::setApplicationDisplayName(QStringLiteral("LiteQueue Admin"));
    QApplication::setDesktopFileName(QStringLiteral("lqadmin"));

    CommandLine cli;
    cli.parser.process(app);
    if (cli.parser.isSet(cli.dark)) {
        lq::ui::theme::useDarkFusion();
    }
    lq::ui::useAppStyle();

    lq::ui::MainWindow window;
    window.show();
    if (cli.parser.isSet(cli.dashboard)) {
        // As Go to Dashboard (Ctrl+Shift+D) does.
        if (QAction* show = window.action(QStringLiteral("showDashboard"))) {
            show->trigger();
        }
    }
    const QStringList files = cli.parser.positionalArguments();
    if (cli.parser.isSet(cli.select)) {
        window.selectMessage(cli.parser.value(cli.select));
    }
    for (const QString& dir : cli.parser.values(cli.watch)) {
        window.watchFolder(dir);
    }
    if (!files.isEmpty()) {
        window.openFiles(files);
    }
    return app.exec();
}
