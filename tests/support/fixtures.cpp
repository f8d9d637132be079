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
    QString dst = dir.filePath(QFileInfo(src).fileName());
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

bool copyDatabase(const QString& from, const QString& to) {
    for (const QString& suffix : {QString(), QStringLiteral("-wal")}) {
        if (QFile::exists(from + suffix) && !QFile::copy(from + suffix, to + suffix))
            return false;
    }
    return true;
}

namespace {

QJsonObject allFacts() {
    QFile f(dataDir() + QStringLiteral("/formats/facts.json"));
    if (!f.open(QIODevice::ReadOnly))
        throw std::runtime_error("cannot read formats/facts.json");
    return QJsonDocument::fromJson(f.readAll()).object();
}

} // namespace

QJsonObject formatFacts(const QString& fixture) {
    const QString name = fixture.section(u'/', -1);
    const QJsonValue v = allFacts().value(name);
    if (!v.isObject())
        throw std::runtime_error("formats/facts.json has no " + name.toStdString());
    return v.toObject();
}

QStringList formatFixtures() {
    const QJsonObject all = allFacts();
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
