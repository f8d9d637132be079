// SPDX-License-Identifier: MIT
// A private PostgreSQL server for one test (tests/support/pgserver.h).
#include "support/pgserver.h"

#include "support/net.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>

#include <libpq-fe.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

namespace lq::test {

namespace {

QString connInfo(int port, const QString& db) {
    return QStringLiteral("host=127.0.0.1 port=%1 user=postgres dbname=%2 connect_timeout=5")
        .arg(port)
        .arg(db);
}

} // namespace

QString PgServer::binDir() {
    const QByteArray env = qgetenv("LQ_PG_BINDIR");
    return env.isEmpty() ? QStringLiteral("/usr/lib/postgresql/15/bin")
                         : QString::fromLocal8Bit(env);
}

PgServer::PgServer(const QString& db, const QStringList& settings)
    : m_db(db) {
    const QString bin = binDir();
    for (const char* tool : {"initdb", "pg_ctl", "postgres"}) {
        if (!QFileInfo(bin + QLatin1Char('/') + QLatin1String(tool)).isExecutable()) {
            m_error = QStringLiteral("PostgreSQL 15 server not installed (no %1/%2): apt-get "
                                     "install postgresql-15")
                          .arg(bin, QLatin1String(tool));
            return;
        }
    }
    m_dir = std::make_unique<QTemporaryDir>(QDir::tempPath() + QStringLiteral("/lqpg-XXXXXX"));
    if (!m_dir->isValid()) {
        m_error = QStringLiteral("no temporary folder for the server");
        return;
    }
    m_data = m_dir->filePath(QStringLiteral("data"));
    m_socket = m_dir->path();
    m_log = m_dir->filePath(QStringLiteral("server.log"));
    if (::geteuid() == 0) {
        // initdb refuses root: the server runs as Debian's postgres account.
        const passwd* pw = ::getpwnam("postgres");
        if (!pw) {
            m_error = QStringLiteral("running as root and no `postgres` account to run the "
                                     "server as (postgresql-15 creates it)");
            return;
        }
        if (::chown(QFile::encodeName(m_dir->path()).constData(), pw->pw_uid, pw->pw_gid) != 0) {
            m_error = QStringLiteral("cannot give %1 to the postgres account").arg(m_dir->path());
            return;
        }
        m_asPostgres = true;
    }
    if (!run(bin + QStringLiteral("/initdb"),
             {QStringLiteral("-D"), m_data, QStringLiteral("-U"), QStringLiteral("postgres"),
              QStringLiteral("-A"), QStringLiteral("trust"), QStringLiteral("-E"),
              QStringLiteral("UTF8"), QStringLiteral("--locale=C"), QStringLiteral("--no-sync"),
              QStringLiteral("--no-instructions")},
             60000))
        return;
    // A free port can be taken between the probe and the start: try again.
    for (int attempt = 0; attempt < 3 && !m_running; ++attempt) {
        m_port = freePort();
        const QString opts =
            QStringLiteral("-p %1 -k %2 -c listen_addresses=127.0.0.1 -c fsync=off -c "
                           "full_page_writes=off -c synchronous_commit=off -c max_connections=30 "
                           "-c shared_buffers=16MB")
                .arg(m_port)
                .arg(m_socket) +
            (settings.isEmpty() ? QString()
                                : QStringLiteral(" -c ") + settings.join(QStringLiteral(" -c ")));
        m_error.clear();
        m_running = run(bin + QStringLiteral("/pg_ctl"),
                        {QStringLiteral("-D"), m_data, QStringLiteral("-l"), m_log,
                         QStringLiteral("-w"), QStringLiteral("-t"), QStringLiteral("30"),
                         QStringLiteral("-o"), opts, QStringLiteral("start")},
                        40000);
    }
    if (!m_running)
        return;
    if (!m_db.isEmpty()) {
        QString quoted = m_db;
        quoted.replace(QLatin1Char('"'), QStringLiteral("\"\""));
        const QString why = execScript(QStringLiteral("CREATE DATABASE \"%1\"").arg(quoted), {},
                                       QStringLiteral("postgres"));
        if (!why.isEmpty())
            m_error = QStringLiteral("CREATE DATABASE %1 failed: %2").arg(m_db, why);
    }
}

PgServer::~PgServer() {
    if (m_running)
        run(binDir() + QStringLiteral("/pg_ctl"),
            {QStringLiteral("-D"), m_data, QStringLiteral("-m"), QStringLiteral("immediate"),
             QStringLiteral("-w"), QStringLiteral("stop")},
            30000);
}

bool PgServer::run(const QString& program, const QStringList& args, int timeoutMs) {
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.setWorkingDirectory(m_dir ? m_dir->path() : QDir::tempPath());
    if (m_asPostgres)
        p.start(QStringLiteral("runuser"),
                QStringList{QStringLiteral("-u"), QStringLiteral("postgres"), QStringLiteral("--"),
                            program} +
                    args);
    else
        p.start(program, args);
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        m_error = QStringLiteral("%1 did not finish in %2 ms").arg(program).arg(timeoutMs);
        return false;
    }
    if (p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        QFile log(m_log);
        const QString tail = log.open(QIODevice::ReadOnly)
                                 ? QString::fromLocal8Bit(log.readAll().right(600))
                                 : QString();
        m_error = QStringLiteral("%1 failed: %2 %3")
                      .arg(program, QString::fromLocal8Bit(p.readAll()).trimmed(), tail);
        return false;
    }
    return true;
}

QString PgServer::url(const QString& db) const {
    return QStringLiteral("postgresql://postgres@127.0.0.1:%1/%2")
        .arg(m_port)
        .arg(db.isEmpty() ? m_db : db);
}

bool PgServer::createDatabase(const QString& name) {
    QString quoted = name;
    quoted.replace(QLatin1Char('"'), QStringLiteral("\"\""));
    return execScript(QStringLiteral("CREATE DATABASE \"%1\"").arg(quoted), {},
                      QStringLiteral("postgres"))
        .isEmpty();
}

QString solidQueueGrowSql(int rows) {
    return QStringLiteral(
               "INSERT INTO solid_queue_processes (kind, last_heartbeat_at, pid, hostname, name, "
               "metadata, created_at) VALUES ('Worker', now() AT TIME ZONE 'UTC' + interval '1 "
               "day', 4242, 'bench', 'worker-bench', '{}', now() AT TIME ZONE 'UTC');"
               "INSERT INTO solid_queue_jobs (queue_name, class_name, arguments, priority, "
               "active_job_id, scheduled_at, finished_at, created_at, updated_at) SELECT CASE i "
               "% 3 WHEN 0 THEN 'default' WHEN 1 THEN 'mailers' ELSE 'reports' END, CASE i % 4 "
               "WHEN 0 THEN 'WelcomeMailJob' WHEN 1 THEN 'ResizeImageJob' WHEN 2 THEN "
               "'ChargeCardJob' ELSE 'SyncInventoryJob' END, json_build_object('job_class', "
               "'BenchJob', 'job_id', 'bench-' || i, 'arguments', json_build_array(i), "
               "'executions', 0, 'exception_executions', '{}'::json)::text, i % 3, 'bench-' || "
               "i, t, CASE WHEN i % 100 < 90 THEN t + interval '0.5 second' END, t, t FROM "
               "(SELECT i, now() AT TIME ZONE 'UTC' - (%1 - i) * interval '10 milliseconds' AS t "
               "FROM generate_series(1, %1) i) g;"
               "INSERT INTO solid_queue_ready_executions (job_id, queue_name, priority, "
               "created_at) SELECT id, queue_name, priority, created_at FROM solid_queue_jobs "
               "WHERE id % 100 BETWEEN 90 AND 94;"
               "INSERT INTO solid_queue_failed_executions (job_id, error, created_at) SELECT id, "
               "json_build_object('exception_class', 'RuntimeError', 'message', 'boom', "
               "'backtrace', json_build_array('app/jobs/bench_job.rb:3:in `perform''')), "
               "created_at FROM solid_queue_jobs WHERE id % 100 BETWEEN 95 AND 96;"
               "INSERT INTO solid_queue_scheduled_executions (job_id, queue_name, priority, "
               "scheduled_at, created_at) SELECT id, queue_name, priority, now() AT TIME ZONE "
               "'UTC' + interval '365 days', created_at FROM solid_queue_jobs WHERE id % 100 "
               "BETWEEN 97 AND 98;"
               "INSERT INTO solid_queue_claimed_executions (job_id, process_id, created_at) "
               "SELECT id, (SELECT max(id) FROM solid_queue_processes), created_at FROM "
               "solid_queue_jobs WHERE id % 100 = 99;"
               "ANALYZE;")
        .arg(rows);
}

QString PgServer::execScript(const QString& sql, const QString& schema, const QString& db) {
    PGconn* c = PQconnectdb(connInfo(m_port, db.isEmpty() ? m_db : db).toUtf8().constData());
    if (PQstatus(c) != CONNECTION_OK) {
        const QString why = QString::fromUtf8(PQerrorMessage(c));
        PQfinish(c);
        return why.isEmpty() ? QStringLiteral("cannot connect") : why;
    }
    // The session's settings on their own: several statements in one
    // PQexec are one transaction, which CREATE DATABASE refuses.
    QString setup = QStringLiteral("SET client_min_messages = warning; SET TimeZone = 'UTC';");
    if (!schema.isEmpty())
        setup += QStringLiteral("CREATE SCHEMA IF NOT EXISTS \"%1\"; SET search_path = \"%1\";")
                     .arg(schema);
    QString out;
    for (const QString& script : {setup, sql}) {
        PGresult* r = PQexec(c, script.toUtf8().constData());
        const auto st = PQresultStatus(r);
        if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK && st != PGRES_EMPTY_QUERY)
            out = QString::fromUtf8(PQresultErrorMessage(r)).trimmed();
        PQclear(r);
        if (!out.isEmpty())
            break;
    }
    PQfinish(c);
    return out;
}

} // namespace lq::test
