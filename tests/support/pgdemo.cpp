// SPDX-License-Identifier: MIT
// lqpgdemo: a private PostgreSQL 15 server holding the Solid Queue, Oban and
// River fixtures (the tests' copies: tests/support/pgcopy.h) and Graphile
// Worker's, GoodJob's and pg-boss's rows (tests/data/pg/*-rows.sql), for trying
// lqadmin and lqctl on PostgreSQL by hand. Prints
// one URL per schema, then serves until it gets SIGINT or SIGTERM (the
// server and its folder go with it). Not installed.
//
//   build/dev/bin/lqpgdemo
//   lqadmin 'postgresql://postgres@127.0.0.1:PORT/lqtest?schema=oban'
#include "support/pgcopy.h"
#include "support/pgserver.h"

#include <QCoreApplication>
#include <QFile>
#include <QSocketNotifier>
#include <QTemporaryDir>

#include <csignal>
#include <cstdio>
#include <unistd.h>

namespace {

int g_pipe[2] = {-1, -1};

void onSignal(int) {
    const char c = 1;
    (void)!::write(g_pipe[1], &c, 1);
}

} // namespace

int main(int argc, char* argv[]) {
    QCoreApplication app(argc, argv);
    lq::test::PgServer pg;
    if (!pg.ok()) {
        std::fprintf(stderr, "lqpgdemo: %s\n", qPrintable(pg.error()));
        return 1;
    }
    QTemporaryDir tmp;
    for (const auto& fc : lq::test::pgFormatCases()) {
        const QString err = lq::test::loadPgFormat(pg, fc, tmp);
        if (!err.isEmpty()) {
            std::fprintf(stderr, "lqpgdemo: %s: %s\n", fc.library, qPrintable(err));
            return 1;
        }
        std::printf("%s\t%s?schema=%s\n", fc.library, qPrintable(pg.url()), fc.schema);
    }
    // The PostgreSQL-only libraries: their tables and one job in each state.
    struct Extra {
        const char* library;
        const char* schema; ///< where the unqualified DDL goes ("": it names its own)
        const char* urlSchema;
        std::initializer_list<const char*> scripts;
    };
    for (const Extra& x : {Extra{"graphile-worker",
                                 "",
                                 "graphile_worker",
                                 {"graphile-worker.sql", "graphile-worker-rows.sql"}},
                           Extra{"good-job", "gj", "gj", {"good-job.sql", "good-job-rows.sql"}},
                           Extra{"pg-boss", "", "pgboss", {"pg-boss.sql", "pg-boss-rows.sql"}}}) {
        for (const char* script : x.scripts) {
            QFile f(lq::test::dataDir() + QStringLiteral("/pg/") + QLatin1String(script));
            const QString err =
                f.open(QIODevice::ReadOnly)
                    ? pg.execScript(QString::fromUtf8(f.readAll()), QLatin1String(x.schema))
                    : QStringLiteral("cannot read ") + f.fileName();
            if (!err.isEmpty()) {
                std::fprintf(stderr, "lqpgdemo: %s: %s\n", script, qPrintable(err));
                return 1;
            }
        }
        std::printf("%s\t%s?schema=%s\n", x.library, qPrintable(pg.url()), x.urlSchema);
    }
    std::fflush(stdout);
    if (::pipe(g_pipe) != 0)
        return 1;
    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);
    QSocketNotifier quit(g_pipe[0], QSocketNotifier::Read);
    QObject::connect(&quit, &QSocketNotifier::activated, &app, &QCoreApplication::quit);
    return QCoreApplication::exec();
}
