// SPDX-License-Identifier: MIT
#pragma once

// What the lqctl suites share: run the built lqctl with a private audit log,
// a file's digest (to prove a command changed nothing), one value read
// with the SQLite C API, and lqctl on a format fixture at its facts' "now".
// Header-only: the suites that include it link SQLite themselves.

#include "support/fixtures.h"

#include <QByteArray>
#include <QCryptographicHash>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

#include <sqlite3.h>

#include <stdexcept>

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

/// A `stats --json` object as a facts file states its counts: "READY" ...
/// "FAILED" with a format's own word for a state folded back into the state
/// the facts say it is part of (extra_subset_of: goqite's dead_letter is its
/// FAILED), and "extra" with the partition's own states and the sub-counts
/// (sub_counts but stuck) together, as the facts list them.
inline QJsonObject countsAsFacts(const QJsonObject& stats, const QJsonObject& facts) {
    const QJsonObject counts = stats.value(QStringLiteral("counts")).toObject();
    const QJsonObject subsetOf = facts.value(QStringLiteral("extra_subset_of")).toObject();
    QJsonObject out;
    for (const char* st : {"ready", "scheduled", "locked", "done", "failed"})
        out.insert(QString::fromLatin1(st).toUpper(), counts.value(QLatin1String(st)).toInteger());
    QJsonObject extra;
    const QJsonObject own = counts.value(QStringLiteral("extra")).toObject();
    for (auto it = own.begin(); it != own.end(); ++it) {
        extra.insert(it.key(), it.value());
        const QString in = subsetOf.value(it.key()).toString();
        if (out.contains(in))
            out.insert(in, out.value(in).toInteger() + it.value().toInteger());
    }
    const QJsonObject subs = stats.value(QStringLiteral("sub_counts")).toObject();
    for (auto it = subs.begin(); it != subs.end(); ++it) {
        if (it.key() != QLatin1String("stuck"))
            extra.insert(it.key(), it.value().toObject().value(QStringLiteral("count")));
    }
    out.insert(QStringLiteral("extra"), extra);
    return out;
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

/// The first column of the first row of `sql` as text, read-only: what the
/// sqlite3 shell prints ("" when there is no row or it is NULL).
inline QString sqlText(const QString& path, const QByteArray& sql) {
    sqlite3* db = nullptr;
    QString v;
    if (sqlite3_open_v2(QFile::encodeName(path).constData(), &db, SQLITE_OPEN_READONLY, nullptr) ==
        SQLITE_OK) {
        sqlite3_stmt* st = nullptr;
        if (sqlite3_prepare_v2(db, sql.constData(), -1, &st, nullptr) == SQLITE_OK &&
            sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
            // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast)
            v = QString::fromUtf8(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return v;
}

/// lqctl on copies of one format fixture: every command at the fixture's
/// facts.json "now" (--now), with an audit log of its own.
class FixtureLqctl {
public:
    /// `fixture`: its path under tests/data ("formats/solid-queue.sqlite3").
    /// Throws when facts.json has no "now" for it.
    explicit FixtureLqctl(const QString& fixture)
        : m_facts(formatFacts(fixture))
        , m_now(m_facts.value(QStringLiteral("now")).toString()) {
        if (m_now.isEmpty() || !m_audit.isValid())
            throw std::runtime_error("no facts.json \"now\" or audit folder for " +
                                     fixture.toStdString());
    }

    const QJsonObject& facts() const { return m_facts; }

    LqctlResult run(QStringList args) const {
        args << QStringLiteral("--now") << m_now;
        return runLqctl(lqctlPath(), args, m_audit.path());
    }

    /// `args` with --json; a failure is logged (the caller's checks then fail).
    QJsonDocument runJson(const QStringList& args) const {
        const LqctlResult r = run(args + QStringList{QStringLiteral("--json")});
        if (r.code != 0)
            qWarning("lqctl %s: exit %d: %s", qPrintable(args.join(QLatin1Char(' '))), r.code,
                     r.err.constData());
        return QJsonDocument::fromJson(r.out);
    }

    /// `lqctl list --queue NAME` lists as many jobs as facts.json's
    /// per-queue counts of NAME add up to, for every named queue: "" when
    /// all do, else the first that does not.
    QString perQueueListMismatch(const QString& path) const {
        const QJsonObject perQueue = m_facts.value(QStringLiteral("per_queue")).toObject();
        for (auto it = perQueue.begin(); it != perQueue.end(); ++it) {
            qint64 n = 0;
            const QJsonObject w = it.value().toObject();
            for (auto j = w.begin(); j != w.end(); ++j)
                n += j.value().toInteger();
            const qint64 listed =
                runJson({QStringLiteral("list"), path, QStringLiteral("--queue"), it.key()})
                    .array()
                    .size();
            if (listed != n)
                return QStringLiteral("queue %1: %2 listed, facts %3")
                    .arg(it.key())
                    .arg(listed)
                    .arg(n);
        }
        return {};
    }

    /// The token lqctl shows for job `id` right now.
    QString tokenOf(const QString& path, const QString& id) const {
        return QString::number(runJson({QStringLiteral("get"), path, id})
                                   .object()
                                   .value(QStringLiteral("token"))
                                   .toInteger());
    }

private:
    QTemporaryDir m_audit;
    QJsonObject m_facts;
    QString m_now;
};

} // namespace lq::test
