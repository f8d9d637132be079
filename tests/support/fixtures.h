// SPDX-License-Identifier: MIT
#pragma once

// Fixture copies for every suite: a test never opens tests/data in place
// (FIXTURES.md rule 1), it works on a copy in its own temporary folder.

#include <QJsonObject>
#include <QString>
#include <QStringList>

class QTemporaryDir;

namespace lq::test {

/// tests/data, where the fixtures and facts.json live.
QString dataDir();

/// Copies the fixture `relative` (to tests/data) into `dir` under its own
/// file name and returns the copy's path. A fixture with a pending WAL
/// (wal-pending/...) is copied with its -wal and -shm files unless
/// `mainOnly`. The copy is writable even when the fixtures are not (CI ships
/// them without write bits). Throws std::runtime_error when a file cannot
/// be copied: a test must never go on with a path that holds nothing.
QString copyFixture(const QTemporaryDir& dir, const QString& relative, bool mainOnly = false);

/// Copies the database `from` to `to`, with its -wal when it has one (a
/// file the last connection left in WAL mode). False when a copy failed.
bool copyDatabase(const QString& from, const QString& to);

/// The format fixtures of tests/data/formats/facts.json that a format reads
/// (not the hostile ones), by file name, in the file's order.
QStringList formatFixtures();

/// The facts of one format fixture in tests/data/formats/facts.json, by file
/// name ("goqite.sqlite3") or by path under tests/data
/// ("formats/goqite.sqlite3"). Throws std::runtime_error when facts.json
/// cannot be read or has no such fixture.
QJsonObject formatFacts(const QString& fixture);

} // namespace lq::test
