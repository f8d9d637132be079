// SPDX-License-Identifier: MIT
#pragma once
#include <map>
#include <sys/stat.h>

// Helpers shared by tst_stress and tst_hostile: a raw read-only look at a
// file (integrity, rows) that does not go through lqcore, file fingerprints,
// and the helper executables.

#include <QByteArray>
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QString>
#include <QStringList>

#include <sqlite3.h>

#include <string>

namespace lqstress {

inline std::string toStd(const QString& s) {
    return QFile::encodeName(s).toStdString();
}

/// `PRAGMA integrity_check` through a raw read-only connection: "ok" or what
/// SQLite found (or why it could not look).
inline QString integrityCheck(const QString& path) {
    sqlite3* db = nullptr;
    const std::string p = toStd(path);
    if (sqlite3_open_v2(p.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
        const QString err = QString::fromUtf8(sqlite3_errmsg(db));
        sqlite3_close_v2(db);
        return QStringLiteral("cannot open: ") + err;
    }
    sqlite3_busy_timeout(db, 5000);
    sqlite3_stmt* st = nullptr;
    QStringList out;
    if (sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, nullptr) != SQLITE_OK) {
        out << QStringLiteral("cannot check: ") + QString::fromUtf8(sqlite3_errmsg(db));
    } else {
        int rc;
        while ((rc = sqlite3_step(st)) == SQLITE_ROW)
            out << QString::fromUtf8(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
        if (rc != SQLITE_DONE)
            out << QStringLiteral("error: ") + QString::fromUtf8(sqlite3_errmsg(db));
    }
    sqlite3_finalize(st);
    sqlite3_close_v2(db);
    return out.join(QLatin1Char('\n'));
}

/// Runs `sql` on a raw read-only connection and returns every row, columns
/// separated by '|' and rows by '\n' (NULL as "∅"); an error as "error: ...".
inline QString rawRows(const QString& path, const char* sql) {
    sqlite3* db = nullptr;
    const std::string p = toStd(path);
    QString out;
    if (sqlite3_open_v2(p.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
        out = QStringLiteral("error: ") + QString::fromUtf8(sqlite3_errmsg(db));
        sqlite3_close_v2(db);
        return out;
    }
    sqlite3_busy_timeout(db, 5000);
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, sql, -1, &st, nullptr) != SQLITE_OK) {
        out = QStringLiteral("error: ") + QString::fromUtf8(sqlite3_errmsg(db));
    } else {
        int rc;
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            for (int i = 0; i < sqlite3_column_count(st); ++i) {
                if (i)
                    out += QLatin1Char('|');
                if (sqlite3_column_type(st, i) == SQLITE_NULL)
                    out += QStringLiteral("∅");
                else
                    out += QString::fromUtf8(
                        reinterpret_cast<const char*>(sqlite3_column_text(st, i)));
            }
            out += QLatin1Char('\n');
        }
        if (rc != SQLITE_DONE)
            out += QStringLiteral("error: ") + QString::fromUtf8(sqlite3_errmsg(db));
    }
    sqlite3_finalize(st);
    sqlite3_close_v2(db);
    return out;
}

inline QByteArray sha256(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    QCryptographicHash h(QCryptographicHash::Sha256);
    h.addData(&f);
    return h.result().toHex();
}

/// The entries of a folder (names only, no . and ..; symlinks not followed).
inline QStringList entries(const QString& dir) {
    QDir d(dir);
    auto names = d.entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot,
                             QDir::Name);
    return names;
}

/// SQLite's own side files, which a reader of a WAL-mode file may create.
inline bool isSideFile(const QString& name) {
    return name.endsWith(QLatin1String("-wal")) || name.endsWith(QLatin1String("-shm"));
}

/// One folder entry as it was: type, and content hash or link target.
struct Entry {
    QString type;
    QByteArray content;
    bool operator==(const Entry& o) const { return type == o.type && content == o.content; }
};

/// Every entry of a case folder, read without following links and without
/// reading anything that is not a regular file (a FIFO would block).
inline std::map<QString, Entry> snapshot(const QString& dir) {
    std::map<QString, Entry> out;
    for (const QString& name : entries(dir)) {
        const QString path = dir + QLatin1Char('/') + name;
        struct stat st {};
        if (lstat(toStd(path).c_str(), &st) != 0)
            continue;
        Entry e;
        if (S_ISLNK(st.st_mode)) {
            e.type = QStringLiteral("link");
            e.content = QFile::encodeName(QFile::symLinkTarget(path));
        } else if (S_ISDIR(st.st_mode)) {
            e.type = QStringLiteral("dir");
            e.content = entries(path).join(QLatin1Char('/')).toUtf8();
        } else if (S_ISREG(st.st_mode)) {
            e.type = QStringLiteral("file");
            // Readers legitimately rewrite the shared-memory index.
            if (!name.endsWith(QLatin1String("-shm")))
                e.content = sha256(path);
        } else {
            e.type = QStringLiteral("other");
        }
        out[name] = e;
    }
    return out;
}

} // namespace lqstress
