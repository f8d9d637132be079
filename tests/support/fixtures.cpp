// SPDX-License-Identifier: MIT
#include "support/fixtures.h"

#include <QFile>
#include <QFileInfo>
#include <QStringList>
#include <QTemporaryDir>

#include <stdexcept>

namespace lq::test {

QString dataDir() {
    return QStringLiteral(LQ_TEST_DATA_DIR);
}

QString copyFixture(const QTemporaryDir& dir, const QString& relative, bool mainOnly) {
    const QString src = dataDir() + u'/' + relative;
    const QString dst = dir.filePath(QFileInfo(src).fileName());
    if (!QFileInfo::exists(src)) {
        throw std::runtime_error("no such fixture: " + QFile::encodeName(src).toStdString());
    }
    QStringList suffixes{QString()};
    if (!mainOnly) {
        suffixes << QStringLiteral("-wal") << QStringLiteral("-shm");
    }
    for (const QString& suffix : suffixes) {
        if (!QFile::exists(src + suffix)) {
            continue;
        }
        QFile::remove(dst + suffix);
        if (!QFile::copy(src + suffix, dst + suffix)) {
            throw std::runtime_error("cannot copy fixture " +
                                     QFile::encodeName(src + suffix).toStdString() + " to " +
                                     QFile::encodeName(dst + suffix).toStdString());
        }
        QFile::setPermissions(dst + suffix, QFile::ReadOwner | QFile::WriteOwner | QFile::ReadUser |
                                                QFile::WriteUser);
    }
    return dst;
}

} // namespace lq::test
