// SPDX-License-Identifier: MIT
#include "support/fixtures.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
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

QStringList formatFixtures() {
    QFile f(dataDir() + QStringLiteral("/formats/facts.json"));
    if (!f.open(QIODevice::ReadOnly))
        throw std::runtime_error("cannot read formats/facts.json");
    const QJsonObject all = QJsonDocument::fromJson(f.readAll()).object();
    QStringList out;
    for (auto it = all.begin(); it != all.end(); ++it) {
        const QJsonObject o = it.value().toObject();
        if (!o.value(QStringLiteral("hostile")).toBool() &&
            !o.value(QStringLiteral("format")).isNull())
            out << it.key();
    }
    return out;
}

} // namespace lq::test
