// SPDX-License-Identifier: MIT
// lqctl: the command-line twin of lqadmin (README.md#lqctl). See cli.cpp.
#include "cli.h"

#include <lqversion.h>

#include <QCoreApplication>
#include <QStringList>

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("lqctl"));
    QCoreApplication::setApplicationVersion(QStringLiteral(LQ_VERSION));
    return lq::ctl::run(QCoreApplication::arguments());
}
