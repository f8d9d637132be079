// SPDX-License-Identifier: MIT
// AppStyle: scroll bars drawn as flat, opaque rectangles (Fusion's gradients
// went to Qt's raster thread pool on every repaint of a tall bar); the bar
// must still show its groove, its handle where the value puts it, and its
// arrows, in light and dark palettes.
#include "ui/appstyle.h"
#include "ui/theme.h"

#include <QApplication>
#include <QImage>
#include <QScrollBar>
#include <QStyleFactory>
#include <QTest>

#include <memory>

class TstAppStyle : public QObject {
    Q_OBJECT
private slots:
    void scrollBarsAreFlatWithTheHandleWhereTheValueIs_data();
    void scrollBarsAreFlatWithTheHandleWhereTheValueIs();
};

void TstAppStyle::scrollBarsAreFlatWithTheHandleWhereTheValueIs_data() {
    QTest::addColumn<bool>("dark");
    QTest::addColumn<int>("orientation");
    QTest::newRow("light vertical") << false << int(Qt::Vertical);
    QTest::newRow("dark vertical") << true << int(Qt::Vertical);
    QTest::newRow("light horizontal") << false << int(Qt::Horizontal);
}

void TstAppStyle::scrollBarsAreFlatWithTheHandleWhereTheValueIs() {
    QFETCH(bool, dark);
    QFETCH(int, orientation);
    const auto o = Qt::Orientation(orientation);
    lq::ui::AppStyle style(QStringLiteral("Fusion"));
    QScrollBar bar(o);
    bar.setStyle(&style);
    if (dark) {
        bar.setPalette(lq::ui::theme::darkPalette());
    }
    bar.setRange(0, 1000);
    bar.setPageStep(100);
    bar.setValue(750);
    bar.resize(o == Qt::Vertical ? QSize(16, 400) : QSize(400, 16));
    const QImage img = bar.grab().toImage();
    // Along the bar's middle line: the groove's colour, then the handle
    // where the value puts it (three quarters along), then the groove again.
    const auto at = [&](int along) {
        return o == Qt::Vertical ? img.pixelColor(img.width() / 2 + 1, along)
                                 : img.pixelColor(along, img.height() / 2 + 1);
    };
    const int length = o == Qt::Vertical ? img.height() : img.width();
    const int thickness = o == Qt::Vertical ? img.width() : img.height();
    const auto across = [&](int along, int pos) {
        return o == Qt::Vertical ? img.pixelColor(pos, along) : img.pixelColor(along, pos);
    };
    const QColor grooveColour = at(length / 4);
    // Flat across too (Fusion's groove and handle are gradients across).
    for (int pos = 1; pos < thickness; ++pos) {
        QCOMPARE(across(length / 4, pos), grooveColour);
    }
    // Flat: the groove is one colour from past the arrow to the middle.
    for (int i = 30; i < length / 2; ++i) {
        QCOMPARE(at(i), grooveColour);
    }
    int first = -1;
    int last = -1;
    for (int i = length / 2; i < length - 20; ++i) {
        if (at(i) != grooveColour) {
            first = first < 0 ? i : first;
            last = i;
        }
    }
    QVERIFY2(first > 0 && last - first > 10, "a handle past the middle");
    const int centre = (first + last) / 2;
    QVERIFY2(centre > length * 55 / 100 && centre < length * 85 / 100,
             qPrintable(QStringLiteral("handle %1-%2 of %3").arg(first).arg(last).arg(length)));
    // Its inside is one flat colour, unlike the groove's.
    const QColor handleColour = at(centre);
    QVERIFY(handleColour != grooveColour);
    for (int i = first + 2; i <= last - 2; ++i) {
        QCOMPARE(at(i), handleColour);
    }
    for (int pos = 4; pos < thickness - 3; ++pos) {
        QCOMPARE(across(centre, pos), handleColour);
    }
    // The arrow buttons are still drawn (not groove colour throughout).
    int notGroove = 0;
    for (int i = 0; i < 14; ++i) {
        notGroove += at(i) != grooveColour ? 1 : 0;
    }
    QVERIFY(notGroove > 0);
}

QTEST_MAIN(TstAppStyle)
#include "tst_appstyle.moc"
