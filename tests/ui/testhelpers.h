// SPDX-License-Identifier: MIT
#pragma once

// Shared helpers of the GUI tests: fixture copies (never open tests/data in
// place, FIXTURES.md rule 1) and model access that waits for the worker.

#include "ui/messagemodel.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QString>
#include <QTemporaryDir>
#include <QTest>

namespace lq::test {

inline QString dataDir() {
    return QStringLiteral(LQ_TEST_DATA_DIR);
}

/// Copies a fixture (with its -wal/-shm when present) into `dir`; returns
/// the copy's path.
inline QString copyFixture(const QTemporaryDir& dir, const QString& relative) {
    const QString src = dataDir() + u'/' + relative;
    const QString dst = dir.filePath(QFileInfo(src).fileName());
    for (const QString& suffix : {QString(), QStringLiteral("-wal"), QStringLiteral("-shm")}) {
        if (QFile::exists(src + suffix)) {
            QFile::remove(dst + suffix);
            if (!QFile::copy(src + suffix, dst + suffix)) {
                qFatal("cannot copy fixture %s", qPrintable(src + suffix));
            }
            QFile::setPermissions(dst + suffix, QFile::ReadOwner | QFile::WriteOwner);
        }
    }
    return dst;
}

/// Asks the model for a row (as a view would) and reports whether it is
/// loaded; use inside QTRY_VERIFY.
inline bool rowLoaded(ui::MessageModel* m, int row) {
    if (row < 0 || row >= m->rowCount()) {
        return false;
    }
    m->data(m->index(row, 0));
    return m->rowAt(row) != nullptr;
}

inline bool allLoaded(ui::MessageModel* m) {
    bool all = true;
    for (int r = 0; r < m->rowCount(); ++r) {
        m->data(m->index(r, 0));
        all = all && m->rowAt(r) != nullptr;
    }
    return all;
}

inline QString idAt(ui::MessageModel* m, int row) {
    return m->data(m->index(row, 0), ui::MessageModel::MessageIdRole).toString();
}

} // namespace lq::test
