// SPDX-License-Identifier: MIT
// The settings store: the UI thread reads its own changes at once, and the
// file gets them, in order, from the writer thread.
#include "ui/queuesettings.h"
#include "ui/settingsstore.h"
#include "ui/uitext.h"

#include <QDateTime>
#include <QFileInfo>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

namespace settings = lq::ui::settings;

class TstSettingsStore : public QObject {
    Q_OBJECT

    QTemporaryDir m_home;

    static QSettings fileNow() {
        return QSettings(QStringLiteral("LiteQueue"), QStringLiteral("lqadmin"));
    }

private slots:
    void initTestCase() {
        QVERIFY(m_home.isValid());
        qputenv("XDG_CONFIG_HOME", m_home.path().toUtf8());
        // Written before the store's first use: it must be read at start.
        QSettings s = fileNow();
        s.setValue(QStringLiteral("files/aaa/path"), QStringLiteral("/q/a.sqlite3"));
        s.setValue(QStringLiteral("stuckThresholdSeconds"), 42);
        s.sync();
        QCOMPARE(s.status(), QSettings::NoError);
    }

    void readsTheFileOnce() {
        QCOMPARE(settings::value(QStringLiteral("stuckThresholdSeconds")).toInt(), 42);
        QCOMPARE(settings::value(QStringLiteral("files/aaa/path")).toString(),
                 QStringLiteral("/q/a.sqlite3"));
        QCOMPARE(settings::value(QStringLiteral("missing"), 7).toInt(), 7);
    }

    void changesAreSeenAtOnceAndReachTheFileInOrder() {
        for (int i = 0; i < 50; ++i) {
            settings::setValue(QStringLiteral("recentFiles"),
                               QStringList{QStringLiteral("/q/%1").arg(i)});
            QCOMPARE(settings::value(QStringLiteral("recentFiles")).toStringList(),
                     QStringList{QStringLiteral("/q/%1").arg(i)});
        }
        settings::setValue(QStringLiteral("files/bbb/path"), QStringLiteral("/q/b.sqlite3"));
        settings::setValue(QStringLiteral("files/bbb/librarySettings"), QVariantList{1, 2});
        QCOMPARE(settings::childGroups(QStringLiteral("files")),
                 (QStringList{QStringLiteral("aaa"), QStringLiteral("bbb")}));
        settings::flush();
        QSettings s = fileNow();
        QCOMPARE(s.value(QStringLiteral("recentFiles")).toStringList(),
                 QStringList{QStringLiteral("/q/49")}); // the last of 50, not an earlier one
        QCOMPARE(s.value(QStringLiteral("files/bbb/path")).toString(),
                 QStringLiteral("/q/b.sqlite3"));
        QCOMPARE(s.value(QStringLiteral("stuckThresholdSeconds")).toInt(), 42); // kept
    }

    void changesReachTheFileOnTheirOwn() {
        // No flush: a moment later, in one sync with the changes around it.
        for (int i = 0; i < 20; ++i)
            settings::setValue(QStringLiteral("burst"), i);
        QTRY_COMPARE_WITH_TIMEOUT(fileNow().value(QStringLiteral("burst")).toInt(), 19, 5000);
    }

    void removeTakesTheGroup() {
        settings::remove(QStringLiteral("files/bbb"));
        QVERIFY(!settings::value(QStringLiteral("files/bbb/path")).isValid());
        QCOMPARE(settings::childGroups(QStringLiteral("files")),
                 QStringList{QStringLiteral("aaa")});
        settings::flush();
        QSettings s = fileNow();
        QVERIFY(!s.contains(QStringLiteral("files/bbb/path")));
        QVERIFY(s.contains(QStringLiteral("files/aaa/path")));
    }

    void unchangedValuesAreNotWritten() {
        // rememberView() stores the whole view at every change of it: what
        // did not change must not rewrite the file.
        settings::setValue(QStringLiteral("probe"), 1);
        settings::flush();
        const QString path = fileNow().fileName();
        const QDateTime before = QFileInfo(path).lastModified();
        QThread::msleep(20);
        settings::setValue(QStringLiteral("probe"), 1); // unchanged: no write at all
        settings::flush();
        QCOMPARE(QFileInfo(path).lastModified(), before);
        settings::setValue(QStringLiteral("probe"), 2);
        settings::flush();
        QCOMPARE(fileNow().value(QStringLiteral("probe")).toInt(), 2);
    }

    void pruneKeepsTheRecentFilesAndTheOperatorsSettings() {
        settings::remove(QStringLiteral("files"));
        for (int i = 0; i < 6; ++i) {
            settings::setValue(QStringLiteral("files/f%1/seen").arg(i), 1000 + i);
            settings::setValue(QStringLiteral("files/f%1/search").arg(i), QStringLiteral("x"));
        }
        settings::setValue(QStringLiteral("files/old/search"), QStringLiteral("no seen time"));
        settings::setValue(QStringLiteral("files/set/librarySettings"), QVariantList{1});
        settings::setValue(QStringLiteral("files/set/seen"), 1);
        lq::ui::pruneFileSettings(2);
        QCOMPARE(settings::childGroups(QStringLiteral("files")),
                 (QStringList{QStringLiteral("f4"), QStringLiteral("f5"), QStringLiteral("set")}));
        const QString path = QStringLiteral("/q/touched.sqlite3");
        lq::ui::touchFileSettings(path);
        lq::ui::pruneFileSettings(2); // the touched file is the newest now
        QVERIFY(settings::value(lq::ui::fileSettingsKey(path) + QStringLiteral("/seen")).isValid());
        QCOMPARE(settings::childGroups(QStringLiteral("files")).size(), 3);
        QVERIFY(!settings::value(QStringLiteral("files/f4/seen")).isValid());
        settings::flush();
        QCOMPARE(fileNow().childGroups().contains(QStringLiteral("files")), true);
        QSettings s = fileNow();
        s.beginGroup(QStringLiteral("files"));
        QCOMPARE(s.childGroups().size(), 3);
    }
};

QTEST_GUILESS_MAIN(TstSettingsStore)
#include "tst_settingsstore.moc"
