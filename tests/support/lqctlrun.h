// SPDX-License-Identifier: MIT
#pragma once

// What the lqctl suites share: run the built lqctl with a private audit log,
// a file's digest (to prove a command changed nothing), one integer read
// with the SQLite C API. Header-only: the suites that include it link
// SQLite themselves.

#include <QByteArray>
#include <QCryptographicHash>
#include <QFile>
#include <QProcess>
#include <QString>
#include <QStringList>

#include <sqlite3.h>

namespace lq::test {

/// The built lqctl: LQCTL_PATH as the suite's CMake target defines it.
inline QString lqctlPath() {
#ifdef LQCTL_PATH
    return QStringLiteral(LQCTL_PATH);
#else
    return QStringLiteral(LQ_BIN_DIR "/lqctl");
#endif
}

struct LqctlResult {
    int code = -1; ///< -1: crashed or timed out
    QByteArray out, err;
};

/// Runs `lqctl` with `args` and LQ_AUDIT_DIR=`auditDir`; stdin is closed.
inline LqctlResult runLqctl(const QString& lqctl, const QStringList& args,
                            const QString& auditDir) {
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("LQ_AUDIT_DIR"), auditDir);
    p.setProcessEnvironment(env);
    p.start(lqctl, args);
    p.closeWriteChannel();
    if (!p.waitForFinished(60000)) {
        p.kill();
        p.waitForFinished();
        return {};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
            p.readAllStandardError()};
}

/// SHA-256 of the file's bytes (empty when it cannot be read).
inline QByteArray fileDigest(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly)
               ? QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256).toHex()
               : QByteArray();
}

/// The first column of the first row of `sql`, read-only (-1 on failure).
inline qint64 sqlInt(const QString& path, const QByteArray& sql) {
    sqlite3* db = nullptr;
    qint64 v = -1;
    if (sqlite3_open_v2(path.toUtf8().constData(), &db, SQLITE_OPEN_READONLY, nullptr) ==
        SQLITE_OK) {
        sqlite3_stmt* st = nullptr;
        if (sqlite3_prepare_v2(db, sql.constData(), -1, &st, nullptr) == SQLITE_OK &&
            sqlite3_step(st) == SQLITE_ROW)
            v = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return v;
}

} // namespace lq::test
