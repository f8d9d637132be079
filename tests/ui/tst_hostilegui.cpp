// SPDX-License-Identifier: MIT
// The hostile-file corpus (tests/stress/hostilecases.h) through the GUI: the
// main window opens each file, shows its first page and its dashboard, and
// must end in the expected state — an error naming the problem, a read-only
// queue, or a working one — without crashing, hanging, changing the file or
// creating one.
#include "../stress/hostilecases.h"
#include "../stress/stressutil.h"

#include "core/queue.h"
#include "ui/dashboardwidget.h"
#include "ui/mainwindow.h"
#include "ui/messagemodel.h"

#include <QProcess>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

using lqhostile::Expect;

class TestHostileGui : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void corpus_data();
    void corpus();

private:
    QTemporaryDir m_dir;
    QString m_corpus;
};

void TestHostileGui::initTestCase() {
    QVERIFY(m_dir.isValid());
    qputenv("LQ_AUDIT_DIR", m_dir.filePath(QStringLiteral("audit")).toLocal8Bit());
    m_corpus = m_dir.filePath(QStringLiteral("corpus"));
    QProcess gen;
    gen.start(QStringLiteral(LQ_HOSTILEGEN_BIN), {m_corpus});
    QVERIFY(gen.waitForFinished(60000));
    QCOMPARE(gen.exitCode(), 0);
}

void TestHostileGui::corpus_data() {
    QTest::addColumn<int>("index");
    for (std::size_t i = 0; i < lqhostile::kCaseCount; ++i)
        QTest::newRow(lqhostile::kCases[i].name) << int(i);
}

void TestHostileGui::corpus() {
    QFETCH(int, index);
    const lqhostile::Case& c = lqhostile::kCases[index];
    const QString folder = m_corpus + QLatin1Char('/') + QString::fromUtf8(c.name);
    const QString file = m_corpus + QLatin1Char('/') + QString::fromUtf8(c.file);
    const QString text = QString::fromUtf8(c.text);
    const auto before = lqstress::snapshot(folder);

    QProcess holder;
    if (c.needsLockHolder) {
        holder.start(
            QStringLiteral(LQ_STRESS_BIN),
            {QStringLiteral("hold"), file, QStringLiteral("--ms"), QStringLiteral("60000")});
        QVERIFY(holder.waitForStarted(10000));
        QVERIFY(holder.waitForReadyRead(10000));
        QCOMPARE(holder.readLine().trimmed(), QByteArray("locked"));
    }

    {
        lq::ui::MainWindow w;
        w.setConfirmHandler([](const QString&, qint64) { return false; });
        w.resize(1200, 800);
        w.show();
        w.openFile(file);
        // Ready, or an error said; never a hang (busy files wait 5 s at most).
        QTRY_VERIFY_WITH_TIMEOUT(w.isReady() || !w.lastError().isEmpty(), 20000);
        lq::ui::MessageModel* m = w.model();

        switch (c.expect) {
        case Expect::OpenError:
            QVERIFY2(w.lastError().contains(text), qPrintable(w.lastError()));
            QVERIFY2(w.currentPath().isEmpty(), "a file that cannot be opened is not shown");
            break;
        case Expect::ReadError:
            // Opens, then reading the rows fails: the error is said, no crash.
            QTRY_VERIFY_WITH_TIMEOUT(w.lastError().contains(text), 20000);
            break;
        case Expect::Works:
        case Expect::ReadOnly:
            QVERIFY2(w.lastError().isEmpty(), qPrintable(w.lastError()));
            if (c.stored >= 0)
                QCOMPARE(qint64(m->rowCount()), c.stored);
            if (m->rowCount() > 0) {
                // The first and last pages load, whatever the values, and
                // every cell shows the row's own values: a string for each
                // column, never the "not loaded" placeholder, a status, and
                // no empty tooltip (an id may be empty: ids-not-uuid).
                for (int row : {0, m->rowCount() - 1}) {
                    m->data(m->index(row, 0));
                    QTRY_VERIFY_WITH_TIMEOUT(m->rowAt(row) != nullptr, 20000);
                    QVERIFY(m->data(m->index(row, 0), lq::ui::MessageModel::LoadedRole).toBool());
                    for (int col = 0; col < lq::ui::MessageModel::ColumnCount; ++col) {
                        const QModelIndex idx = m->index(row, col);
                        const QVariant shown = m->data(idx, Qt::DisplayRole);
                        const QByteArray where = "row " + QByteArray::number(row) + ", column " +
                                                 QByteArray::number(col) + ": " +
                                                 shown.toString().toUtf8();
                        QVERIFY2(shown.typeId() == QMetaType::QString, where.constData());
                        QVERIFY2(shown.toString() != QStringLiteral("\u2026"), where.constData());
                        const QVariant tip = m->data(idx, Qt::ToolTipRole);
                        QVERIFY2(!tip.isValid() || !tip.toString().isEmpty(), where.constData());
                    }
                    QVERIFY(
                        !m->data(m->index(row, lq::ui::MessageModel::Status)).toString().isEmpty());
                }
            }
            if (c.expect == Expect::ReadOnly) {
                if (c.knownBug)
                    QEXPECT_FAIL("", c.knownBug, Continue);
                QVERIFY2(w.readOnlyMode(), "should be read-only");
            }
            // The dashboard's statistics on the same values: computed and on
            // screen, not merely idle (a dashboard that never computes is
            // idle at once).
            w.tabs()->setCurrentIndex(1);
            lq::ui::DashboardWidget* dash = w.dashboard();
            QTRY_VERIFY_WITH_TIMEOUT(dash->hasData() && !dash->isComputing(), 20000);
            QVERIFY2(dash->data().error.isEmpty(), qPrintable(dash->data().error));
            QCOMPARE(dash->data().totalRows, std::int64_t(m->rowCount()));
            break;
        }
        w.close();
    }

    if (c.needsLockHolder) {
        holder.kill();
        QVERIFY(holder.waitForFinished(10000));
    }
    const auto after = lqstress::snapshot(folder);
    for (const auto& [entry, was] : before) {
        const auto it = after.find(entry);
        QVERIFY2(it != after.end(), qPrintable(entry + QStringLiteral(" disappeared")));
        QVERIFY2(it->second == was, qPrintable(entry + QStringLiteral(" changed")));
    }
    for (const auto& [entry, now] : after)
        QVERIFY2(before.count(entry) || lqstress::isSideFile(entry),
                 qPrintable(entry + QStringLiteral(" was created")));
}

QTEST_MAIN(TestHostileGui)
#include "tst_hostilegui.moc"
