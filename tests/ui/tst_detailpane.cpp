// SPDX-License-Identifier: MIT
// The detail pane says exactly what the selected job is, on real fixture
// files in the main window:
// - a payload stored as a BLOB of UTF-8 text (goqite's and backlite's JSON
//   bodies) is shown as text, indented JSON, its bytes one click away;
//   other BLOBs as a hex dump with their printable characters; over 1 MiB
//   both keep the truncation and "Load all";
// - a long Status (with "no longer in this filter") wraps and keeps its
//   whole value in the tooltip;
// - a job deleted from the file (by an action, by a worker) no longer shows
//   its old state;
// - a blocked Solid Queue job shows its concurrency key, and the time its
//   block expires as "Expires".

#include "core/queue.h"
#include "testhelpers.h"
#include "ui/mainwindow.h"
#include "ui/messagedetailpane.h"
#include "ui/messagemodel.h"
#include "ui/statusfilterbar.h"
#include "ui/uitext.h"
#include "windowharness.h"

#include <QFontMetrics>
#include <QJsonDocument>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTableView>
#include <QTest>
#include <QToolButton>

#include <sqlite3.h>

#include <optional>
#include <string>

using lq::core::Queue;
using lq::ui::MessageDetailPane;
using lq::ui::StatusFilterBar;
using namespace lq::test;

namespace {

const QString kGoqite = QStringLiteral("formats/goqite.sqlite3");
const QString kBacklite = QStringLiteral("formats/backlite.sqlite3");
const QString kSolidQueue = QStringLiteral("formats/solid-queue.sqlite3");
/// goqite: a JSON body and a PNG header, both stored as BLOBs.
const QString kGoqiteJson = QStringLiteral("m_b3ee8a40d042cc7f63930a381dc265f2");
const QString kGoqitePng = QStringLiteral("m_2cb2a72de214b00b868e640ba0c368f7");
/// backlite: a JSON body (with a "…") stored as a BLOB.
const QString kBackliteJson = QStringLiteral("01a22c4e-ee20-7714-acc2-0a40ac1457a1");
const QString kNotInFilter = QStringLiteral("no longer in this filter");
const QString kDeleted = QStringLiteral("deleted from the file");

/// Runs `sql` on `path` with a connection of its own (another process, a
/// worker); binds `blob` to ?1 when given. Whether it changed a row.
[[nodiscard]] bool execSql(const QString& path, const QByteArray& sql,
                           const std::optional<QByteArray>& blob = std::nullopt) {
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(path.toUtf8().constData(), &db, SQLITE_OPEN_READWRITE, nullptr) !=
        SQLITE_OK) {
        sqlite3_close(db);
        return false;
    }
    sqlite3_busy_timeout(db, 5000);
    sqlite3_stmt* st = nullptr;
    bool ok = sqlite3_prepare_v2(db, sql.constData(), -1, &st, nullptr) == SQLITE_OK;
    if (ok && blob)
        ok = sqlite3_bind_blob(st, 1, blob->constData(), int(blob->size()), SQLITE_TRANSIENT) ==
             SQLITE_OK;
    ok = ok && sqlite3_step(st) == SQLITE_DONE && sqlite3_changes(db) > 0;
    sqlite3_finalize(st);
    sqlite3_close(db);
    return ok;
}

/// The first column of the first row of `sql` on `path`, as text.
QString sqlText(const QString& path, const QByteArray& sql) {
    sqlite3* db = nullptr;
    QString out;
    if (sqlite3_open_v2(path.toUtf8().constData(), &db, SQLITE_OPEN_READONLY, nullptr) ==
        SQLITE_OK) {
        sqlite3_stmt* st = nullptr;
        if (sqlite3_prepare_v2(db, sql.constData(), -1, &st, nullptr) == SQLITE_OK &&
            sqlite3_step(st) == SQLITE_ROW)
            out = QString::fromUtf8(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return out;
}

/// The payload of `id` as core reads it.
std::string payloadOf(const QString& path, const QString& id) {
    const auto m = Queue::open(path.toStdString())->get(id.toStdString());
    return m ? m->data : std::string();
}

} // namespace

class TestDetailPane : public QObject {
    Q_OBJECT

    /// Selects the row of message `id` once every row is loaded and waits
    /// for the pane to show it, its payload read.
    [[nodiscard]] static bool selectId(WindowHarness& h, const QString& id) {
        LQ_CHECK(waitFor([&] { return h.model()->isIdle() && allLoaded(h.model()); }, 10000));
        int row = -1;
        for (int r = 0; r < h.model()->rowCount() && row < 0; ++r) {
            if (idAt(h.model(), r) == id)
                row = r;
        }
        LQ_CHECK2(row >= 0, qPrintable(id));
        h.w.view()->selectionModel()->setCurrentIndex(h.model()->index(row, 0),
                                                      QItemSelectionModel::ClearAndSelect |
                                                          QItemSelectionModel::Rows);
        MessageDetailPane* pane = h.w.detailPane();
        LQ_CHECK(waitFor([&] { return pane->messageId() == id && !pane->isLoading(); }));
        return true;
    }

    /// Selects the first row once loaded; its id ("" when none loaded).
    [[nodiscard]] static QString selectFirst(WindowHarness& h) {
        if (!waitFor([&] { return h.model()->isIdle() && rowLoaded(h.model(), 0); }, 10000))
            return {};
        h.w.view()->selectionModel()->setCurrentIndex(h.model()->index(0, 0),
                                                      QItemSelectionModel::ClearAndSelect |
                                                          QItemSelectionModel::Rows);
        const QString id = idAt(h.model(), 0);
        MessageDetailPane* pane = h.w.detailPane();
        if (!waitFor([&] { return pane->messageId() == id && !pane->isLoading(); }))
            return {};
        return id;
    }

    [[nodiscard]] static bool showOnly(WindowHarness& h, StatusFilterBar::Choice c) {
        QToolButton* b = h.w.filterBar()->button(c);
        LQ_CHECK(b);
        QTest::mouseClick(b, Qt::LeftButton);
        return true;
    }

    static QPushButton* bytesButton(MessageDetailPane* pane) {
        return pane->findChild<QPushButton*>(QStringLiteral("showBytes"));
    }

private slots:
    void utf8BlobShownAsText_data() {
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<QString>("id");
        QTest::newRow("goqite") << kGoqite << kGoqiteJson;
        QTest::newRow("backlite") << kBacklite << kBackliteJson;
    }

    /// A JSON body stored as a BLOB is text: shown indented, the note says
    /// it is a BLOB shown as text, and "Bytes" shows its hex dump (and back).
    void utf8BlobShownAsText() {
        QFETCH(QString, fixture);
        QFETCH(QString, id);
        QTemporaryDir dir;
        const QString path = copyFixture(dir, fixture);
        const std::string body = payloadOf(path, id);
        QVERIFY(!body.empty());
        QCOMPARE(sqlText(path, "SELECT typeof(" +
                                   QByteArray(fixture == kGoqite ? "body) FROM goqite"
                                                                 : "task) FROM backlite_tasks") +
                                   " WHERE id = '" + id.toUtf8() + "'"),
                 QStringLiteral("blob"));
        const QString pretty =
            QString::fromUtf8(QJsonDocument::fromJson(QByteArray::fromStdString(body))
                                  .toJson(QJsonDocument::Indented));
        QVERIFY(!pretty.isEmpty());

        WindowHarness h;
        QVERIFY(h.openAndWait(path));
        QVERIFY(selectId(h, id));
        MessageDetailPane* pane = h.w.detailPane();
        QVERIFY(pane->fieldText(QStringLiteral("size")).contains(QStringLiteral("(BLOB)")));
        QCOMPARE(pane->payloadText(), pretty);
        QVERIFY(pane->isTextBlob());
        QVERIFY(!pane->showsBytes());
        QVERIFY(!pane->isTruncated());
        const QString note = pane->payloadNoteText();
        QVERIFY2(note.contains(QStringLiteral("BLOB")) &&
                     note.contains(QStringLiteral("shown as text")) &&
                     note.contains(QStringLiteral("JSON, shown indented")),
                 qPrintable(note));
        // Plain text only: the payload box and its line.
        auto* edit = pane->findChild<QPlainTextEdit*>(QStringLiteral("payloadText"));
        QVERIFY(edit);
        auto* noteLabel = pane->findChild<QLabel*>(QStringLiteral("payloadNote"));
        QVERIFY(noteLabel);
        QCOMPARE(noteLabel->textFormat(), Qt::PlainText);

        // The bytes, one click away.
        QPushButton* bytes = bytesButton(pane);
        QVERIFY(bytes);
        QVERIFY(bytes->isVisibleTo(pane));
        QVERIFY(bytes->isCheckable());
        QVERIFY(!bytes->accessibleName().isEmpty());
        QVERIFY(!bytes->toolTip().isEmpty());
        QTest::mouseClick(bytes, Qt::LeftButton);
        QVERIFY(pane->showsBytes());
        const QString dump = pane->payloadText();
        const QStringList lines = dump.split(u'\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), int((body.size() + 15) / 16));
        // 7b 22 is '{"'; the text column has the first 16 bytes as printed.
        QVERIFY2(lines.first().startsWith(QStringLiteral("00000000  7b 22 ")), qPrintable(dump));
        QVERIFY2(
            lines.first().endsWith(
                u'|' + QString::fromLatin1(QByteArray::fromStdString(body.substr(0, 16))) + u'|'),
            qPrintable(lines.first()));
        QVERIFY2(pane->payloadNoteText().contains(QStringLiteral("hex")),
                 qPrintable(pane->payloadNoteText()));
        QVERIFY(!pane->payloadNoteText().contains(QStringLiteral("JSON, shown indented")));
        // And back to the text.
        QTest::mouseClick(bytes, Qt::LeftButton);
        QVERIFY(!pane->showsBytes());
        QCOMPARE(pane->payloadText(), pretty);
        QCOMPARE(pane->payloadNoteText(), note);
    }

    /// A BLOB that is not UTF-8 text (a PNG header) is a hex dump with its
    /// printable characters, never decoded; no "Bytes" toggle.
    void binaryBlobShownAsHexAndText() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, kGoqite);
        const std::string body = payloadOf(path, kGoqitePng);
        QCOMPARE(body.size(), std::size_t(16));
        WindowHarness h;
        QVERIFY(h.openAndWait(path));
        QVERIFY(selectId(h, kGoqitePng));
        MessageDetailPane* pane = h.w.detailPane();
        QCOMPARE(pane->payloadText(),
                 QStringLiteral("00000000  89 50 4e 47 0d 0a 1a 0a  00 00 62 72 6f 6b 65 6e  "
                                "|.PNG......broken|\n"));
        QVERIFY(!pane->isTextBlob());
        QVERIFY(!bytesButton(pane)->isVisibleTo(pane));
        const QString note = pane->payloadNoteText();
        QVERIFY2(note.contains(QStringLiteral("BLOB")) &&
                     note.contains(QStringLiteral("not UTF-8")) &&
                     note.contains(QStringLiteral("never decoded")),
                 qPrintable(note));
        // Another message: the text BLOB next to it is text again.
        QVERIFY(selectId(h, kGoqiteJson));
        QVERIFY(pane->isTextBlob());
        QVERIFY(pane->payloadText().startsWith(u'{'));
    }

    /// Over 1 MiB a BLOB of text keeps the truncation: the first 1 MiB as
    /// text (its bytes: the first 256 KiB in hex), and "Load all".
    void largeUtf8BlobIsTruncated() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, kGoqite);
        QByteArray big;
        while (big.size() < MessageDetailPane::kPayloadLimit + 200 * 1024)
            big += "lorem ipsum dolor sit amet, consectetur adipiscing elit \xe2\x80\xa6\n";
        QVERIFY(
            execSql(path, "INSERT INTO goqite (id, queue, body) VALUES ('m_big', 'big', ?1)", big));
        WindowHarness h;
        QVERIFY(h.openAndWait(path));
        QVERIFY(selectId(h, QStringLiteral("m_big")));
        MessageDetailPane* pane = h.w.detailPane();
        QVERIFY(pane->isTextBlob());
        QVERIFY(pane->isTruncated());
        QCOMPARE(pane->payloadText(),
                 QString::fromUtf8(big.left(qsizetype(MessageDetailPane::kPayloadLimit))));
        auto* loadAll = pane->findChild<QPushButton*>(QStringLiteral("loadAll"));
        QVERIFY(loadAll && loadAll->isVisibleTo(pane));
        const QString total = lq::ui::humanBytes(big.size());
        QVERIFY2(pane->payloadNoteText().contains(
                     QStringLiteral("Showing the first %1 of %2")
                         .arg(lq::ui::humanBytes(MessageDetailPane::kPayloadLimit), total)),
                 qPrintable(pane->payloadNoteText()));
        // Its bytes: the first quarter MiB, said so.
        QTest::mouseClick(bytesButton(pane), Qt::LeftButton);
        QVERIFY(pane->isTruncated());
        QCOMPARE(pane->payloadText().count(u'\n'), int(MessageDetailPane::kPayloadLimit / 4 / 16));
        QVERIFY2(pane->payloadNoteText().contains(
                     QStringLiteral("Showing the first %1 of %2")
                         .arg(lq::ui::humanBytes(MessageDetailPane::kPayloadLimit / 4), total)),
                 qPrintable(pane->payloadNoteText()));
        QVERIFY(loadAll->isVisibleTo(pane));
        // Back to the text, and all of it.
        QTest::mouseClick(bytesButton(pane), Qt::LeftButton);
        QTest::mouseClick(loadAll, Qt::LeftButton);
        QTRY_VERIFY(!pane->isLoading());
        QVERIFY(!pane->isTruncated());
        QVERIFY(!loadAll->isVisibleTo(pane));
        QCOMPARE(pane->payloadText(), QString::fromUtf8(big));
        QVERIFY(!pane->payloadNoteText().contains(QStringLiteral("Showing the first")));
        // Its bytes stay cut until asked for in full.
        QTest::mouseClick(bytesButton(pane), Qt::LeftButton);
        QVERIFY(pane->isTruncated());
        QVERIFY(loadAll->isVisibleTo(pane));
        QTest::mouseClick(loadAll, Qt::LeftButton);
        QTRY_VERIFY(!pane->isLoading());
        QVERIFY(pane->showsBytes());
        QVERIFY(!pane->isTruncated());
        QCOMPARE(pane->payloadText().count(u'\n'), int((big.size() + 15) / 16));
    }

    /// A long Status ("LOCKED — locked_expired — stuck: … — no longer in
    /// this filter") wraps in its column, and its tooltip and a redraw of
    /// the times keep the whole value.
    void longStatusWraps() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, kSolidQueue);
        const auto c = Queue::open(path.toStdString())->counts();
        QVERIFY(c.stuck > 0);
        WindowHarness h;
        h.w.resize(1000, 800); // a column narrower than the status line
        QVERIFY(h.openAndWait(path));
        QVERIFY(showOnly(h, StatusFilterBar::Stuck));
        QTRY_COMPARE(h.model()->rowCount(), int(c.stuck));
        const QString id = selectFirst(h);
        QVERIFY(!id.isEmpty());
        MessageDetailPane* pane = h.w.detailPane();
        // Out of the filter: the pane keeps it, marked.
        QVERIFY(showOnly(h, StatusFilterBar::Ready));
        QTRY_COMPARE(pane->notShownNote(), kNotInFilter);
        QCOMPARE(pane->messageId(), id);
        auto* status = pane->findChild<QLabel*>(QStringLiteral("field_status"));
        QVERIFY(status);
        QTRY_VERIFY2(status->text().startsWith(QStringLiteral("LOCKED \u2014 locked_expired")) &&
                         status->text().endsWith(kNotInFilter),
                     qPrintable(status->text()));
        QVERIFY(status->wordWrap());
        QCOMPARE(status->textFormat(), Qt::PlainText);
        const QFontMetrics fm(status->font());
        QVERIFY2(fm.horizontalAdvance(status->text()) > status->width(),
                 "the column is wide enough for the whole line: no wrap to check");
        // Every word on screen: the label is as tall as its wrapped lines.
        QTRY_VERIFY(status->height() >= status->heightForWidth(status->width()));
        QVERIFY(status->heightForWidth(status->width()) > 2 * fm.height());
        QVERIFY2(status->toolTip().contains(status->text().toHtmlEscaped()),
                 qPrintable(status->toolTip()));
        // Times drawn again (UTC on) keep the mark.
        const QString before = status->text();
        pane->setUtc(true);
        QCOMPARE(status->text(), before);
        pane->setUtc(false);
        QCOMPARE(status->text(), before);
    }

    /// A failed job deleted by the Delete action: the pane keeps it, but its
    /// Status says it is gone from the file, not FAILED; Undo brings it back
    /// and the pane shows it FAILED again.
    void deletedByAnActionSaysSo() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, kSolidQueue);
        const auto c = Queue::open(path.toStdString())->counts();
        QVERIFY(c.failed > 0);
        WindowHarness h;
        QVERIFY(h.openAndWait(path));
        QVERIFY(showOnly(h, StatusFilterBar::Failed));
        QTRY_COMPARE(h.model()->rowCount(), int(c.failed));
        const QString id = selectFirst(h);
        QVERIFY(!id.isEmpty());
        MessageDetailPane* pane = h.w.detailPane();
        QVERIFY2(pane->fieldText(QStringLiteral("status")).startsWith(QStringLiteral("FAILED")),
                 qPrintable(pane->fieldText(QStringLiteral("status"))));
        QVERIFY(!pane->isGone());

        QCOMPARE(h.runAndWait([&] { h.w.deleteSelected(); }), 1);
        QVERIFY(!Queue::open(path.toStdString())->get(id.toStdString()));
        QTRY_COMPARE(pane->fieldText(QStringLiteral("status")), kDeleted);
        QVERIFY(pane->isGone());
        QCOMPARE(pane->messageId(), id);
        QVERIFY2(pane->payloadNoteText().contains(QStringLiteral("Deleted from the file")),
                 qPrintable(pane->payloadNoteText()));
        // What it was is in the tooltip, as last read.
        auto* status = pane->findChild<QLabel*>(QStringLiteral("field_status"));
        QVERIFY2(status->toolTip().contains(QStringLiteral("FAILED")),
                 qPrintable(status->toolTip()));
        // Times drawn again do not bring the old state back.
        pane->setUtc(true);
        QCOMPARE(pane->fieldText(QStringLiteral("status")), kDeleted);
        pane->setUtc(false);

        // Undo: back in the file and in the filter, shown FAILED again.
        QCOMPARE(h.runAndWait([&] { h.w.undoLastAction(); }), 1);
        QTRY_COMPARE_WITH_TIMEOUT(h.model()->rowCount(), int(c.failed), 10000);
        QTRY_VERIFY_WITH_TIMEOUT(
            !pane->isGone() &&
                pane->fieldText(QStringLiteral("status")).startsWith(QStringLiteral("FAILED")),
            10000);
        QCOMPARE(pane->messageId(), id);
    }

    /// A job another process deletes (a worker that finished it) while the
    /// pane shows it: the Status says it is gone from the file.
    void deletedByAWorkerSaysSo() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, kGoqite);
        WindowHarness h;
        QVERIFY(h.openAndWait(path));
        QVERIFY(selectId(h, kGoqiteJson));
        MessageDetailPane* pane = h.w.detailPane();
        const QString was = pane->fieldText(QStringLiteral("status"));
        QVERIFY(!was.isEmpty() && was != kDeleted);
        const int rows = h.model()->rowCount();
        QVERIFY(execSql(path, "DELETE FROM goqite WHERE id = '" + kGoqiteJson.toUtf8() + "'"));
        QTRY_COMPARE_WITH_TIMEOUT(h.model()->rowCount(), rows - 1, 10000);
        QTRY_COMPARE_WITH_TIMEOUT(pane->fieldText(QStringLiteral("status")), kDeleted, 10000);
        QVERIFY(pane->isGone());
        QCOMPARE(pane->messageId(), kGoqiteJson);
    }

    /// The blocked Solid Queue jobs: each shows its concurrency key and the
    /// time its block expires under "Expires"; a claimed job's lease time
    /// keeps the format's label.
    void blockedJobShowsConcurrencyKeyAndExpiry() {
        QTemporaryDir dir;
        const QString path = copyFixture(dir, kSolidQueue);
        const auto c = Queue::open(path.toStdString())->counts();
        QCOMPARE(c.extra.at("blocked"), 2);
        WindowHarness h;
        QVERIFY(h.openAndWait(path));
        QToolButton* blocked = h.w.filterBar()->extraButton(QStringLiteral("blocked"));
        QVERIFY(blocked);
        QTest::mouseClick(blocked, Qt::LeftButton);
        QTRY_COMPARE(h.model()->rowCount(), 2);
        QVERIFY(waitFor([&] { return h.model()->isIdle() && allLoaded(h.model()); }, 10000));
        MessageDetailPane* pane = h.w.detailPane();
        for (int row = 0; row < 2; ++row) {
            const QString id = idAt(h.model(), row);
            QVERIFY(selectId(h, id));
            const auto m = Queue::open(path.toStdString())->get(id.toStdString());
            QVERIFY(m && m->extraState == "blocked" && m->leaseExpiry);
            const QString key = sqlText(path, "SELECT concurrency_key FROM "
                                              "solid_queue_blocked_executions WHERE job_id = " +
                                                  id.toUtf8());
            QVERIFY(!key.isEmpty());
            QCOMPARE(pane->fieldText(QStringLiteral("concurrency")), key);
            auto* value = pane->findChild<QLabel*>(QStringLiteral("field_concurrency"));
            QVERIFY(value && value->isVisibleTo(pane));
            QCOMPARE(value->textFormat(), Qt::PlainText);
            QCOMPARE(pane->fieldTitle(QStringLiteral("concurrency")),
                     QStringLiteral("Concurrency key:"));
            // expires_at of the blocked execution, under "Expires".
            QCOMPARE(pane->fieldTitle(QStringLiteral("lease")), QStringLiteral("Expires:"));
            auto* lease = pane->findChild<QLabel*>(QStringLiteral("field_lease"));
            QVERIFY(lease);
            QVERIFY2(lease->toolTip().contains(lq::ui::exactInstant(*m->leaseExpiry)),
                     qPrintable(lease->toolTip()));
        }
        // A claimed job: its lease time is when the claim lapses.
        QTest::mouseClick(blocked, Qt::LeftButton);
        QVERIFY(showOnly(h, StatusFilterBar::Locked));
        QTRY_COMPARE(h.model()->rowCount(), int(c.locked));
        QVERIFY(!selectFirst(h).isEmpty());
        QTRY_COMPARE(pane->fieldTitle(QStringLiteral("lease")), QStringLiteral("Claim lapses:"));
    }
};

QTEST_MAIN(TestDetailPane)
#include "tst_detailpane.moc"
