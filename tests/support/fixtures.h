// SPDX-License-Identifier: MIT
#pragma once

// Fixture copies for every suite: a test never opens tests/data in place
// (FIXTURES.md rule 1), it works on a copy in its own temporary folder.

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

/// The format fixtures of tests/data/formats/facts.json that a format reads
/// (not the hostile ones), by file name, in the file's order.
QStringList formatFixtures();

} // namespace lq::test
