// SPDX-License-Identifier: MIT
#pragma once

// A private PostgreSQL 15 server for one test (issue 41): initdb into a
// temporary folder, pg_ctl start on a free TCP port of 127.0.0.1 with its
// socket in the same folder, one database created; stopped (immediate) and
// removed by the destructor. initdb refuses root, so as root the server runs
// as the `postgres` account Debian's postgresql-15 creates (runuser), in a
// folder given to that account. Trust authentication on loopback only.
//
//   PgServer pg;
//   if (!pg.ok())
//       QSKIP(qPrintable(pg.error()));
//   runLqctl(..., {"stats", pg.url()});

#include <QString>
#include <QStringList>
#include <QTemporaryDir>

#include <memory>

namespace lq::test {

/// Solid Queue's jobs as lqbench formats writes them on SQLite
/// (tests/bench/formatprofiles.cpp): 90 % finished, 5 % ready, 2 % failed, 2 %
/// scheduled (a year ahead), 1 % claimed by one live worker; one job every
/// 10 ms up to now, three named queues, four job classes; then ANALYZE.
/// For the schema solid-queue.sql makes, on the search path.
QString solidQueueGrowSql(int rows);

class PgServer {
public:
    /// Starts the server and creates database `db`. ok() says whether it
    /// runs; error() why not (binaries missing, initdb or start failed).
    /// `settings` are more `-c name=value` options (lqbench pg's buffers).
    explicit PgServer(const QString& db = QStringLiteral("lqtest"),
                      const QStringList& settings = {});
    ~PgServer();
    PgServer(const PgServer&) = delete;
    PgServer& operator=(const PgServer&) = delete;

    bool ok() const { return m_running && m_error.isEmpty(); }
    QString error() const { return m_error; }
    int port() const { return m_port; }
    /// postgresql://postgres@127.0.0.1:PORT/DB (`db` empty: the one created).
    QString url(const QString& db = {}) const;
    /// Creates another database.
    bool createDatabase(const QString& name);
    /// Runs `sql` (several statements allowed) as the superuser on `db`
    /// (empty: the one created) with search_path `schema` when given;
    /// "" when it worked, else the server's message.
    QString execScript(const QString& sql, const QString& schema = {}, const QString& db = {});

    /// The server's log file.
    QString logPath() const { return m_log; }
    /// Where the server binaries are looked for.
    static QString binDir();

private:
    bool run(const QString& program, const QStringList& args, int timeoutMs);

    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_data, m_socket, m_log, m_db;
    int m_port = 0;
    bool m_running = false;
    bool m_asPostgres = false;
    QString m_error;
};

} // namespace lq::test
