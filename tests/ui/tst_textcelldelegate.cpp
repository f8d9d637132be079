// SPDX-License-Identifier: MIT
// TextCellDelegate: the table's text painted from cached QStaticTexts, as
// plain text on one line, elided, in the colours the style would use.
#include "ui/textcelldelegate.h"

#include <QFontDatabase>
#include <QFontMetrics>
#include <QImage>
#include <QPainter>
#include <QStandardItemModel>
#include <QStyle>
#include <QStyleFactory>
#include <QStyleOptionViewItem>
#include <QTableView>
#include <QTest>

#include <memory>

using lq::ui::TextCellDelegate;

class TstTextCellDelegate : public QObject {
    Q_OBJECT
private slots:
    void markupIsShownAsWritten();
    void longTextIsElidedToItsWidth();
    void aLongTextElidesAsTheWholeWould();
    void lineBreaksBecomeOneLine();
    void theCacheIsBounded();
    void paintsTheTextInTheSelectionColour();
    void theTextGoesWhereTheStylePutsIt();
};

void TstTextCellDelegate::markupIsShownAsWritten() {
    TextCellDelegate d;
    const QString payload = QStringLiteral("<b>bold</b> &amp; <img src=x>");
    const QStaticText st = d.shownText(payload, QFont(), 2000, Qt::ElideRight);
    QCOMPARE(st.text(), payload);
    QCOMPARE(st.textFormat(), Qt::PlainText);
}

void TstTextCellDelegate::longTextIsElidedToItsWidth() {
    TextCellDelegate d;
    const QFont font;
    const QString text = QStringLiteral("ActionMailer::MailDeliveryJob with a long tail");
    const int width = QFontMetrics(font).horizontalAdvance(text) / 2;
    const QStaticText st = d.shownText(text, font, width, Qt::ElideRight);
    QVERIFY(st.text().endsWith(QChar(0x2026)));
    QVERIFY(st.text().size() < text.size());
    QVERIFY(st.size().width() <= width);
    // The same text in a wider column is another entry, not elided.
    QCOMPARE(d.shownText(text, font, width * 4, Qt::ElideRight).text(), text);
    QCOMPARE(d.cachedTexts(), 2);
    // Asked again: served from the cache.
    QCOMPARE(d.shownText(text, font, width, Qt::ElideRight).text(), st.text());
    QCOMPARE(d.cachedTexts(), 2);
}

void TstTextCellDelegate::aLongTextElidesAsTheWholeWould() {
    // A long text is shaped only as far as the cell can show; what is shown
    // must be what eliding the whole text gives, for narrow and wide
    // characters, surrogate pairs at the cut and texts that just fit.
    const QString json = QStringLiteral(
        R"({"job_class":"ActionMailer::MailDeliveryJob","job_id":"8b0e2f1c-3c4d","arguments":)"
        R"(["UserMailer","welcome","deliver_now",{"args":[{"_aj_globalid":"gid://app/User/42"}]}],)"
        R"("executions":0,"locale":"en","timezone":"UTC"})");
    QString emoji;
    for (int i = 0; i < 80; ++i)
        emoji += QString::fromUcs4(U"\U0001F600", 1) + QChar(u'a' + i % 26);
    const QStringList texts = {
        json,
        QString(200, u'i'),
        QString(200, u'M'),
        QString(120, u'.') + QString(80, u'W'),
        emoji,
        QString::fromUtf8("\u6f22\u5b57\u306e\u30da\u30a4\u30ed\u30fc\u30c9").repeated(20)};
    for (const QFont& font : {QFont(), QFontDatabase::systemFont(QFontDatabase::FixedFont)}) {
        const QFontMetrics fm(font);
        for (const QString& text : texts) {
            TextCellDelegate d;
            const int whole = fm.horizontalAdvance(text);
            for (int width : {20, 57, 130, 301, 480, whole - 1, whole, whole + 1}) {
                QCOMPARE(d.shownText(text, font, width, Qt::ElideRight).text(),
                         fm.elidedText(text, Qt::ElideRight, width));
            }
        }
    }
}

void TstTextCellDelegate::lineBreaksBecomeOneLine() {
    TextCellDelegate d;
    const QStaticText st =
        d.shownText(QStringLiteral("first\nsecond\r\nthird"), QFont(), 2000, Qt::ElideRight);
    QCOMPARE(st.text(), QStringLiteral("first second  third"));
    QVERIFY(st.size().height() < 2 * QFontMetrics(QFont()).height());
}

void TstTextCellDelegate::theCacheIsBounded() {
    TextCellDelegate d;
    for (int i = 0; i <= TextCellDelegate::kMaxCached; ++i)
        d.shownText(QString::number(i), QFont(), 100, Qt::ElideRight);
    QVERIFY(d.cachedTexts() <= TextCellDelegate::kMaxCached);
    QVERIFY(d.cachedTexts() >= 1);
}

void TstTextCellDelegate::paintsTheTextInTheSelectionColour() {
    QStandardItemModel model(2, 1);
    model.setItem(0, 0, new QStandardItem(QStringLiteral("MMMMMMMM")));
    model.setItem(1, 0, new QStandardItem(QStringLiteral("MMMMMMMM")));
    QTableView view;
    view.setModel(&model);
    auto* delegate = new TextCellDelegate(&view);
    view.setItemDelegate(delegate);
    QPalette pal = view.palette();
    pal.setColor(QPalette::Highlight, QColor(0, 0, 160));
    pal.setColor(QPalette::HighlightedText, QColor(255, 255, 0));
    pal.setColor(QPalette::Text, QColor(200, 0, 0));
    pal.setColor(QPalette::Base, Qt::white);
    view.setPalette(pal);
    view.resize(300, 200);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.selectRow(1);
    const auto colourIn = [&](int row, const QColor& c) {
        const QRect cell = view.visualRect(model.index(row, 0));
        const QImage img = view.viewport()->grab(cell).toImage();
        int n = 0;
        for (int y = 0; y < img.height(); ++y)
            for (int x = 0; x < img.width(); ++x)
                n += QColor(img.pixel(x, y)) == c ? 1 : 0;
        return n;
    };
    QTRY_VERIFY(colourIn(0, QColor(200, 0, 0)) > 10);   // text colour
    QTRY_VERIFY(colourIn(1, QColor(255, 255, 0)) > 10); // highlighted text
    QCOMPARE(colourIn(1, QColor(200, 0, 0)), 0);
    QVERIFY(delegate->cachedTexts() >= 1);
}

void TstTextCellDelegate::theTextGoesWhereTheStylePutsIt() {
    // paint() aligns the shown text inside textArea(), asked of the style
    // once per cell geometry; the style itself puts the text's box there,
    // aligned the same way (or fills the area with a text too wide for it).
    QPixmap dot(16, 16);
    dot.fill(Qt::red);
    const QStringList texts = {QStringLiteral("FAILED"), QStringLiteral("1"),
                               QStringLiteral("iiiiiiiiiiiiiiiiiiii"), QString(400, QChar(u'M'))};
    int compared = 0;
    for (const QString& name : {QStringLiteral("Fusion"), QStringLiteral("Windows")}) {
        std::unique_ptr<QStyle> style(QStyleFactory::create(name));
        QVERIFY2(style, qPrintable(name));
        QWidget host;
        host.setStyle(style.get());
        // Its own delegate: the areas are cached by style, and the next
        // style may be made where this one was.
        TextCellDelegate d;
        for (const bool icon : {false, true}) {
            for (const bool check : {false, true}) {
                for (const Qt::Alignment align :
                     {Qt::AlignLeft | Qt::AlignVCenter, Qt::AlignRight | Qt::AlignVCenter,
                      Qt::AlignHCenter | Qt::AlignVCenter}) {
                    for (const QString& text : texts) {
                        QStyleOptionViewItem opt;
                        opt.widget = &host;
                        opt.rect = QRect(10, 20, 180, 24);
                        opt.state = QStyle::State_Enabled | QStyle::State_Active;
                        opt.features = QStyleOptionViewItem::HasDisplay;
                        opt.displayAlignment = align;
                        opt.textElideMode = Qt::ElideRight;
                        opt.text = text;
                        opt.font = QFont();
                        if (icon) {
                            opt.features |= QStyleOptionViewItem::HasDecoration;
                            opt.icon = QIcon(dot);
                            opt.decorationSize = QSize(16, 16);
                            opt.decorationPosition = QStyleOptionViewItem::Left;
                        }
                        if (check) {
                            opt.features |= QStyleOptionViewItem::HasCheckIndicator;
                            opt.checkState = Qt::Checked;
                        }
                        const QRect box =
                            style->subElementRect(QStyle::SE_ItemViewItemText, &opt, &host);
                        const QRect area = d.textArea(opt);
                        const QString what = QStringLiteral("%1 icon %2 check %3 align %4 text "
                                                            "%5: box %6,%7 %8x%9 area %10,%11 "
                                                            "%12x%13")
                                                 .arg(name)
                                                 .arg(icon)
                                                 .arg(check)
                                                 .arg(int(align))
                                                 .arg(text.left(8))
                                                 .arg(box.x())
                                                 .arg(box.y())
                                                 .arg(box.width())
                                                 .arg(box.height())
                                                 .arg(area.x())
                                                 .arg(area.y())
                                                 .arg(area.width())
                                                 .arg(area.height());
                        QVERIFY2(area.contains(box), qPrintable(what));
                        // Horizontally: the box is its width aligned in the
                        // area; vertically both are centred on the same line.
                        const QRect aligned = QStyle::alignedRect(
                            opt.direction, align, QSize(box.width(), area.height()), area);
                        QVERIFY2(aligned.left() == box.left() && aligned.right() == box.right(),
                                 qPrintable(what));
                        QVERIFY2(std::abs((area.top() + area.bottom()) -
                                          (box.top() + box.bottom())) <= 1,
                                 qPrintable(what));
                        ++compared;
                    }
                }
            }
        }
    }
    QCOMPARE(compared, 2 * 2 * 2 * 3 * 4);
}

QTEST_MAIN(TstTextCellDelegate)
#include "tst_textcelldelegate.moc"
