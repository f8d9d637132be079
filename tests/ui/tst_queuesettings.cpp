// SPDX-License-Identifier: MIT
// Queue settings in the main window: the library settings a file does not
// store (QueueFormat::settings()), offered only when the open format reads
// some, set per named queue through the dialog's model, kept per file in
// lqadmin's settings, and applied by opening the file again: goqite's
// maxReceive for one queue moves exactly that queue's dead letters.

#include "core/formats/goqite.h"
#include "core/formats/queueformat.h"
#include "core/queue.h"
#include "testhelpers.h"
#include "ui/messagemodel.h"
#include "ui/queuesettings.h"
#include "ui/queuesettingsdialog.h"
#include "windowharness.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using lq::core::FormatSettings;
using lq::core::Queue;
using lq::core::QueueFormat;
using lq::ui::QueueSettingsDialog;
using lq::ui::QueueSettingsModel;
using namespace lq::test;

namespace {

using Harness = WindowHarness;

/// The dead letters core counts with `settings` (the window's clock: now).
qint64 deadLetters(const QString& path, const FormatSettings& settings,
                   const std::string& queue = {}) {
    lq::core::OpenOptions o;
    o.readOnly = true;
    o.settings = settings;
    auto q = Queue::open(path.toStdString(), o);
    // goqite's dead letters are its FAILED (QueueFormat::stateWord).
    return (queue.empty() ? q->counts() : q->counts(queue)).failed;
}

qint64 shownDeadLetters(Harness& h) {
    return h.model()->counts().failed;
}

QueueSettingsDialog* openDialog(Harness& h) {
    QAction* a = h.w.action(QStringLiteral("queueSettingsAction"));
    if (!a || !a->isEnabled())
        return nullptr;
    a->trigger();
    QueueSettingsDialog* dlg = nullptr;
    const bool shown = waitFor(
        [&] {
            dlg = h.w.findChild<QueueSettingsDialog*>(QStringLiteral("queueSettingsDialog"));
            return dlg != nullptr && dlg->isVisible();
        },
        10000);
    return shown ? dlg : nullptr;
}

} // namespace

class TstQueueSettings : public QObject {
    Q_OBJECT

    QTemporaryDir m_tmp;

private slots:
    void initTestCase() {
        QVERIFY(m_tmp.isValid());
        QStandardPaths::setTestModeEnabled(true);
        qputenv("LQ_AUDIT_DIR", m_tmp.filePath(QStringLiteral("audit")).toUtf8());
    }

    void modelRowsAndValues() {
        const QueueFormat& goqite = *lq::core::QueueFormat::byId("goqite");
        const QStringList queues = {QStringLiteral("emails"), QStringLiteral("thumbnails")};
        QueueSettingsModel m(goqite.settings(), {}, {});
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(m.rowCount(), 1); // no queues listed: the all-queues row only
        QueueSettingsModel model(goqite.settings(), queues, {});
        QAbstractItemModelTester tester2(&model,
                                         QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 1 + int(queues.size()));
        const QString key =
            QString::fromStdString(std::string(lq::core::GoqiteFormat::kMaxReceiveKey));
        const int all = model.rowOf(key);
        const int thumbs = model.rowOf(key, QStringLiteral("thumbnails"));
        QVERIFY(all >= 0 && thumbs > all);
        const auto inUse = [&](int row) {
            return model.data(model.index(row, QueueSettingsModel::InUse)).toString();
        };
        const QString libDefault = QString::number(goqite.settings().front().libraryDefault);
        QVERIFY(inUse(thumbs).startsWith(libDefault));
        QVERIFY(model.setValue(all, 5));
        QVERIFY(inUse(thumbs).startsWith(QStringLiteral("5"))); // follows the all-queues value
        QVERIFY(model.setData(model.index(thumbs, QueueSettingsModel::Value), 2));
        QVERIFY(inUse(thumbs).startsWith(QStringLiteral("2")));
        QVERIFY(!model.setValue(thumbs, -1));
        QCOMPARE(model.settings().value(lq::core::GoqiteFormat::kMaxReceiveKey, "thumbnails"),
                 qint64(2));
        QCOMPARE(model.settings().value(lq::core::GoqiteFormat::kMaxReceiveKey, "emails"),
                 qint64(5));
        model.clearValues();
        QVERIFY(model.settings().empty());
        QVERIFY(!model.data(model.index(all, QueueSettingsModel::Setting), Qt::ToolTipRole)
                     .toString()
                     .isEmpty());
    }

    void perQueueMaxReceiveThroughTheDialog() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, QStringLiteral("formats/goqite.sqlite3"));
        FormatSettings wanted;
        QVERIFY(wanted.set(lq::core::GoqiteFormat::kMaxReceiveKey, 2, "thumbnails"));
        const qint64 before = deadLetters(path, {});
        const qint64 after = deadLetters(path, wanted);
        QVERIFY2(after != before, "the fixture has a thumbnails message received twice");
        QCOMPARE(deadLetters(path, wanted, "emails"), deadLetters(path, {}, "emails"));

        {
            Harness h;
            QVERIFY(h.openAndWait(path));
            QTRY_COMPARE(shownDeadLetters(h), before);
            QueueSettingsDialog* dlg = openDialog(h);
            QVERIFY(dlg);
            QueueSettingsModel* m = dlg->model();
            const int row = m->rowOf(QStringLiteral("max_receive"), QStringLiteral("thumbnails"));
            QVERIFY(row >= 0);
            QVERIFY(m->rowOf(QStringLiteral("max_receive"), QStringLiteral("emails")) >= 0);
            QVERIFY(m->setValue(row, 2));
            if (const int hold = qEnvironmentVariableIntValue("LQ_TEST_HOLD_MS"); hold > 0)
                QTest::qWait(hold); // a screenshot of the dialog (docs/screenshots)
            dlg->accept();
            // Opened again with the setting: the counts follow.
            QTRY_COMPARE_WITH_TIMEOUT(shownDeadLetters(h), after, 10000);
            QVERIFY(waitFor([&] { return h.w.isReady(); }, 10000));
            QCOMPARE(lq::ui::storedQueueSettings(path), wanted);
        }
        {
            // Kept for the file: a new window opens it with the setting.
            Harness h;
            QVERIFY(h.openAndWait(path));
            QTRY_COMPARE(shownDeadLetters(h), after);
            // Restore defaults puts the library's value back.
            QueueSettingsDialog* dlg = openDialog(h);
            QVERIFY(dlg);
            dlg->model()->clearValues();
            dlg->accept();
            QTRY_COMPARE_WITH_TIMEOUT(shownDeadLetters(h), before, 10000);
            QVERIFY(lq::ui::storedQueueSettings(path).empty());
        }
    }

    void offeredOnlyWhenTheFormatHasSettings() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, QStringLiteral("litequeue-head-mixed.sqlite3"));
        Harness h;
        QVERIFY(h.openAndWait(path));
        QAction* a = h.w.action(QStringLiteral("queueSettingsAction"));
        QVERIFY(a);
        QVERIFY(!a->isEnabled());
        QVERIFY(QueueFormat::of(Queue::open(path.toStdString())->info()).settings().empty());
    }
};

QTEST_MAIN(TstQueueSettings)
#include "tst_queuesettings.moc"
