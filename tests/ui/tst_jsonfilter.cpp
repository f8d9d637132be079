// SPDX-License-Identifier: MIT
// The Messages tab's JSON field filter (core/jsonwhere.h) in the main
// window: a condition typed in the box narrows the table to the jobs SQLite
// itself finds, together with the state chips; one still being typed is
// marked and filters nothing, and so does one naming a field the format does
// not have (the mark names the fields it does); the box is remembered per
// file.

#include "testhelpers.h"
#include "ui/mainwindow.h"
#include "ui/statusfilterbar.h"
#include "windowharness.h"

#include <QLineEdit>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

#include <sqlite3.h>

using namespace lq::test;
using lq::ui::StatusFilterBar;

namespace {

/// COUNT(*) of `sql` through SQLite itself (not lqcore).
int sqlCount(const QString& path, const QByteArray& sql) {
    sqlite3* db = nullptr;
    int n = -1;
    if (sqlite3_open_v2(path.toUtf8().constData(), &db, SQLITE_OPEN_READONLY, nullptr) ==
        SQLITE_OK) {
        sqlite3_stmt* st = nullptr;
        if (sqlite3_prepare_v2(db, sql.constData(), -1, &st, nullptr) == SQLITE_OK &&
            sqlite3_step(st) == SQLITE_ROW)
            n = sqlite3_column_int(st, 0);
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return n;
}

[[nodiscard]] bool clickFilter(WindowHarness& h, StatusFilterBar::Choice c) {
    QToolButton* b = h.w.filterBar()->button(c);
    if (!b)
        return false;
    QTest::mouseClick(b, Qt::LeftButton);
    return true;
}

} // namespace

class TstJsonFilter : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        QVERIFY(m_tmp.isValid());
        qputenv("LQ_AUDIT_DIR", m_tmp.filePath(QStringLiteral("audit")).toUtf8());
    }

    void narrowsTheTableToWhatSqliteFinds() {
        const QString path = copyFixture(m_tmp, QStringLiteral("formats/oban-lite.sqlite3"));
        const int all = sqlCount(path, "SELECT count(*) FROM oban_jobs");
        const int over3 = sqlCount(path, "SELECT count(*) FROM oban_jobs WHERE "
                                         "json_extract(args, '$.account_id') > 3");
        const int over3Failed =
            sqlCount(path, "SELECT count(*) FROM oban_jobs WHERE json_extract(args, "
                           "'$.account_id') > 3 AND state = 'discarded'");
        QVERIFY(over3 > 0 && over3 < all);
        WindowHarness h;
        QVERIFY(h.openAndWait(path));
        QTRY_COMPARE(h.model()->rowCount(), all);
        auto* where = h.w.findChild<QLineEdit*>(QStringLiteral("where"));
        QVERIFY(where);
        // Its row opens from the search box (Ctrl+J), focused.
        QVERIFY(!where->isVisible());
        QTest::keyClick(&h.w, Qt::Key_J, Qt::ControlModifier);
        QTRY_VERIFY(where->isVisible());
        QTRY_VERIFY(where->hasFocus());

        QTest::keyClicks(where, QStringLiteral("args.account_id > 3"));
        QTRY_COMPARE(h.model()->rowCount(), over3);
        QVERIFY(!where->property("invalid").toBool());
        // With a state chip: both apply.
        QVERIFY(clickFilter(h, StatusFilterBar::Failed));
        QTRY_COMPARE(h.model()->rowCount(), over3Failed);
        QVERIFY(clickFilter(h, StatusFilterBar::All));
        QTRY_COMPARE(h.model()->rowCount(), over3);

        // Still being typed: marked, says what is missing, filters nothing.
        where->clear();
        QTRY_COMPARE(h.model()->rowCount(), all);
        QTest::keyClicks(where, QStringLiteral("args.account_id >"));
        QTRY_VERIFY(where->property("invalid").toBool());
        QVERIFY2(where->toolTip().contains(QStringLiteral("expected a value")),
                 qPrintable(where->toolTip()));
        QTest::qWait(400); // past the debounce: the table stays whole
        QCOMPARE(h.model()->rowCount(), all);

        // A field Oban's jobs do not have: marked, naming theirs.
        where->setText(QStringLiteral("payload.x = 1"));
        QTRY_VERIFY2(where->toolTip().contains(QStringLiteral("JSON fields: args, meta")),
                     qPrintable(where->toolTip()));
        QVERIFY(where->property("invalid").toBool());
        QTest::qWait(400);
        QCOMPARE(h.model()->rowCount(), all);

        // Remembered for the file: reopened, the condition is back and applied.
        where->setText(QStringLiteral("args.template = welcome"));
        const int welcome = sqlCount(path, "SELECT count(*) FROM oban_jobs WHERE "
                                           "json_extract(args, '$.template') = 'welcome'");
        QTRY_COMPARE(h.model()->rowCount(), welcome);
        // A second window on the same file starts from what the first left.
        WindowHarness h2;
        QVERIFY(h2.openAndWait(path));
        auto* where2 = h2.w.findChild<QLineEdit*>(QStringLiteral("where"));
        QCOMPARE(where2->text(), QStringLiteral("args.template = welcome"));
        QVERIFY(where2->isVisible());
        QTRY_COMPARE(h2.model()->rowCount(), welcome);
        // Closing the row drops the condition.
        auto* close = h2.w.findChild<QToolButton*>(QStringLiteral("closeWhere"));
        QVERIFY(close);
        QTest::mouseClick(close, Qt::LeftButton);
        QVERIFY(!where2->isVisible());
        QTRY_COMPARE(h2.model()->rowCount(), all);
    }

private:
    QTemporaryDir m_tmp;
};

QTEST_MAIN(TstJsonFilter)
#include "tst_jsonfilter.moc"
