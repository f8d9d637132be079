// SPDX-License-Identifier: MIT
// formatInstant() in local time: the zone's offset is cached per quarter
// hour instead of QDateTime's tzset() per call; the text must not change,
// also across daylight-saving changes and in zones with odd offsets.
#include "ui/uitext.h"

#include <QDateTime>
#include <QDir>
#include <QTest>
#include <QTimeZone>

#include <cstdlib>
#include <ctime>

class TstUiText : public QObject {
    Q_OBJECT
private slots:
    void localTimesReadAsQDateTimeReadsThem_data();
    void localTimesReadAsQDateTimeReadsThem();
    void blobsOfTextArePreviewedAsText();
    void queueKeysKeepUrls();
    void cleanupTestCase();
};

void TstUiText::localTimesReadAsQDateTimeReadsThem_data() {
    QTest::addColumn<QByteArray>("zone");
    for (const char* z : {"Europe/Berlin", "America/St_Johns", "Australia/Lord_Howe",
                          "Asia/Kathmandu", "America/Santiago", "UTC"}) {
        QTest::newRow(z) << QByteArray(z);
    }
}

void TstUiText::localTimesReadAsQDateTimeReadsThem() {
    QFETCH(QByteArray, zone);
    const QTimeZone tz(zone);
    if (!tz.isValid()) {
        QSKIP("the zone is not in this machine's time zone data");
    }
    qputenv("TZ", zone);
    tzset();
    // Every instant 7 min 13.5 s apart over a year, and each side of every
    // transition in it to the millisecond.
    const qint64 from = QDateTime(QDate(2026, 1, 1), QTime(0, 0), Qt::UTC).toMSecsSinceEpoch();
    const qint64 to = QDateTime(QDate(2027, 1, 1), QTime(0, 0), Qt::UTC).toMSecsSinceEpoch();
    QList<qint64> instants;
    for (qint64 ms = from; ms < to; ms += 433'500) {
        instants << ms;
    }
    int transitions = 0;
    for (const QTimeZone::OffsetData& t :
         tz.transitions(QDateTime::fromMSecsSinceEpoch(from, Qt::UTC),
                        QDateTime::fromMSecsSinceEpoch(to, Qt::UTC))) {
        const qint64 at = t.atUtc.toMSecsSinceEpoch();
        for (qint64 d : {-60'001LL, -1LL, 0LL, 1LL, 899'999LL}) {
            instants << at + d;
        }
        ++transitions;
    }
    for (const qint64 ms : std::as_const(instants)) {
        const QString expected =
            QDateTime::fromMSecsSinceEpoch(ms).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz"));
        const QString shown = lq::ui::formatInstant(ms * 1'000'000, false, true, true);
        QVERIFY2(shown == expected, qPrintable(QStringLiteral("%1 at %2 ms: %3, QDateTime %4")
                                                   .arg(QString::fromLatin1(zone))
                                                   .arg(ms)
                                                   .arg(shown, expected)));
    }
    if (zone != "UTC" && zone != "Asia/Kathmandu") {
        QVERIFY(transitions >= 1); // the zone changes in 2026: the edges were tried
    }
}

// The table's preview of a BLOB: UTF-8 text (goqite's JSON bodies) as text,
// other bytes in hex.
void TstUiText::blobsOfTextArePreviewedAsText() {
    using lq::ui::payloadPreview;
    QCOMPARE(payloadPreview("{\"a\": 1}", true), QStringLiteral("{\"a\": 1}"));
    QCOMPARE(payloadPreview("{\"a\": 1}", false), QStringLiteral("{\"a\": 1}"));
    const std::string binary("\x00\x01\xff", 3);
    QCOMPARE(payloadPreview(binary, true), QStringLiteral("[BLOB 3 B] 00 01 ff"));
    // Text that is cut inside a character at the 4 KiB look is still text.
    std::string long_(4095, 'a');
    long_ += "\xc3\xa9 and more";
    QVERIFY(!payloadPreview(long_, true).startsWith(QStringLiteral("[BLOB")));
    QVERIFY(payloadPreview(std::string("a\x01b"), true).startsWith(QStringLiteral("[BLOB")));
}

void TstUiText::cleanupTestCase() {
    qunsetenv("TZ");
    tzset();
}

/// A sidebar row, the open document and the named-queue filter key a
/// queue alike: a local file by its absolute path, a URL as it is (a
/// database's named queue clicked in the sidebar once never matched the
/// open database, its URL made into a path).
void TstUiText::queueKeysKeepUrls() {
    QCOMPARE(lq::ui::queueKey(QStringLiteral("jobs.db")),
             QDir::current().absoluteFilePath(QStringLiteral("jobs.db")));
    for (const QString& url : {QStringLiteral("postgresql://lq@127.0.0.1:5432/app?schema=sq"),
                               QStringLiteral("ssh://host/var/lib/app/queue.db")})
        QCOMPARE(lq::ui::queueKey(url), url);
}

QTEST_GUILESS_MAIN(TstUiText)
#include "tst_uitext.moc"
