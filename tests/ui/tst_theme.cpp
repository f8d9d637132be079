// SPDX-License-Identifier: MIT
// The colours the UI chooses itself (ui/theme.h) stay readable on a light
// and on a dark palette: every foreground against the background it is drawn
// on has a WCAG contrast ratio of at least 4.5, and the banner bar draws
// with those colours.

#include "ui/bannerbar.h"
#include "ui/theme.h"

#include <QLabel>
#include <QPushButton>
#include <QStyle>
#include <QStyleFactory>
#include <QTest>

#include <memory>

using lq::core::State;
using lq::ui::BannerBar;
namespace theme = lq::ui::theme;

Q_DECLARE_METATYPE(QPalette)

namespace {

constexpr double kMinContrast = 4.5; // WCAG 2 AA, body text

QPalette fusionLight() {
    std::unique_ptr<QStyle> fusion(QStyleFactory::create(QStringLiteral("Fusion")));
    return fusion->standardPalette();
}

} // namespace

class TestTheme : public QObject {
    Q_OBJECT
private slots:
    void luminance();
    void contrast_data();
    void contrast();
    void bannerUsesTheme_data();
    void bannerUsesTheme();
    void bannerFollowsItsNumbersInPlace();
};

void TestTheme::luminance() {
    QCOMPARE(theme::relativeLuminance(Qt::black), 0.0);
    QCOMPARE(theme::relativeLuminance(Qt::white), 1.0);
    QCOMPARE(theme::contrastRatio(Qt::black, Qt::white), 21.0);
    QCOMPARE(theme::contrastRatio(Qt::white, Qt::black), 21.0);
    // #777777 on white is the textbook 4.48:1.
    QVERIFY(qAbs(theme::contrastRatio(QColor(0x77, 0x77, 0x77), Qt::white) - 4.48) < 0.01);
}

void TestTheme::contrast_data() {
    QTest::addColumn<QPalette>("palette");
    QTest::addColumn<bool>("dark");
    QTest::newRow("light (Fusion)") << fusionLight() << false;
    QTest::newRow("dark (--dark)") << theme::darkPalette() << true;
}

void TestTheme::contrast() {
    QFETCH(QPalette, palette);
    QFETCH(bool, dark);
    QCOMPARE(theme::isDark(palette), dark);

    double lowest = 21;
    QString lowestWhat;
    const auto check = [&](const QString& what, const QColor& fg, const QColor& bg) {
        const double ratio = theme::contrastRatio(fg, bg);
        if (ratio < lowest) {
            lowest = ratio;
            lowestWhat = what;
        }
        return ratio >= kMinContrast;
    };
    const QColor base = palette.color(QPalette::Base);
    const QColor window = palette.color(QPalette::Window);
    const QColor stuck = theme::stuckBackground(palette);

    // Status text in the table (Base) and in a stuck row; the dots share it.
    for (State s : {State::Ready, State::Locked, State::Done, State::Failed, State::Scheduled,
                    State::Leased, State::Expired, State::Unknown}) {
        const QColor c = theme::stateColor(s, palette);
        const QString name = QString::fromLatin1(lq::core::stateName(s));
        QVERIFY2(check(QStringLiteral("status ") + name, c, base), qPrintable(name));
        QVERIFY2(
            check(QStringLiteral("status ") + name + QStringLiteral(" on stuck row"), c, stuck),
            qPrintable(name));
    }
    QVERIFY(check(QStringLiteral("text on stuck row"), palette.color(QPalette::Text), stuck));
    QVERIFY(check(QStringLiteral("muted text"), theme::mutedText(palette), base));

    for (auto level :
         {BannerBar::Level::Info, BannerBar::Level::Warning, BannerBar::Level::Error}) {
        const theme::BannerColors b = theme::bannerColors(level, palette);
        QVERIFY2(check(QStringLiteral("banner %1").arg(int(level)), b.foreground, b.background),
                 qPrintable(QString::number(int(level))));
    }

    // Fleet health: names in the sidebar list (Base) and the window behind.
    for (auto h : {theme::Health::Ok, theme::Health::Warning, theme::Health::Stuck,
                   theme::Health::Skipped}) {
        QVERIFY2(
            check(QStringLiteral("health %1").arg(int(h)), theme::healthColor(h, palette), base),
            qPrintable(QString::number(int(h))));
        QVERIFY2(check(QStringLiteral("health %1 on window").arg(int(h)),
                       theme::healthColor(h, palette), window),
                 qPrintable(QString::number(int(h))));
    }
    qInfo("%s: lowest contrast %.2f (%s)", QTest::currentDataTag(), lowest, qPrintable(lowestWhat));
}

void TestTheme::bannerUsesTheme_data() {
    contrast_data();
}

void TestTheme::bannerUsesTheme() {
    QFETCH(QPalette, palette);
    BannerBar bar;
    bar.setPalette(palette);
    bar.setBanner(QStringLiteral("format"), BannerBar::Level::Warning, QStringLiteral("legacy"));
    auto* frame = bar.findChild<QWidget*>(QStringLiteral("banner_format"));
    QVERIFY(frame);
    const theme::BannerColors want = theme::bannerColors(BannerBar::Level::Warning, palette);
    QCOMPARE(frame->palette().color(QPalette::Window), want.background);
    auto* label = frame->findChild<QLabel*>(QStringLiteral("bannerText"));
    QVERIFY(label);
    QCOMPARE(label->palette().color(QPalette::WindowText), want.foreground);
}

void TestTheme::bannerFollowsItsNumbersInPlace() {
    // The attention banner is set again on every poll: its label and button
    // stay the same widgets (a new button each time relaid the window out),
    // and a click runs the latest action, which may remove the banner.
    BannerBar bar;
    int first = 0;
    int latest = 0;
    bar.setBanner(QStringLiteral("attention"), BannerBar::Level::Warning, QStringLiteral("3 stuck"),
                  QStringLiteral("Show stuck"), [&] { ++first; });
    auto* button = bar.findChild<QPushButton*>(QStringLiteral("bannerButton"));
    auto* label = bar.findChild<QLabel*>(QStringLiteral("bannerText"));
    QVERIFY(button && label);
    bar.setBanner(QStringLiteral("attention"), BannerBar::Level::Info, QStringLiteral("2 failed"),
                  QStringLiteral("Show failed"), [&] {
                      ++latest;
                      bar.removeBanner(QStringLiteral("attention"));
                  });
    QCOMPARE(bar.findChildren<QPushButton*>().size(), 1);
    QCOMPARE(bar.findChild<QPushButton*>(QStringLiteral("bannerButton")), button);
    QCOMPARE(bar.findChild<QLabel*>(QStringLiteral("bannerText")), label);
    QCOMPARE(button->text(), QStringLiteral("Show failed"));
    QCOMPARE(bar.bannerText(QStringLiteral("attention")), QStringLiteral("2 failed"));
    button->click();
    QCOMPARE(first, 0);
    QCOMPARE(latest, 1);
    QVERIFY(!bar.hasBanner(QStringLiteral("attention")));
    // Without a button text the button goes.
    bar.setBanner(QStringLiteral("other"), BannerBar::Level::Info, QStringLiteral("x"),
                  QStringLiteral("Do"), [] {});
    bar.setBanner(QStringLiteral("other"), BannerBar::Level::Info, QStringLiteral("y"));
    auto* otherButton = bar.findChild<QWidget*>(QStringLiteral("banner_other"))
                            ->findChild<QPushButton*>(QStringLiteral("bannerButton"));
    QVERIFY(otherButton && otherButton->isHidden());
}

QTEST_MAIN(TestTheme)
#include "tst_theme.moc"
