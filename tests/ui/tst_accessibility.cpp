// SPDX-License-Identifier: MIT
// Every interactive widget of the main window has an accessible name: the
// test walks the QAccessible tree of the window (messages and dashboard tab,
// sidebar, Getting started) and fails on each unnamed button, box, field,
// tab or list entry, naming it.
#include "support/fixtures.h"
#include "support/waits.h"
#include "ui/dashboardwidget.h"
#include "ui/gettingstarted.h"
#include "ui/mainwindow.h"

#include <QAccessible>
#include <QCoreApplication>
#include <QObject>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QWidget>

using lq::ui::MainWindow;

namespace {

bool interactive(QAccessible::Role r) {
    switch (r) {
    case QAccessible::PushButton:
    case QAccessible::CheckBox:
    case QAccessible::RadioButton:
    case QAccessible::ComboBox:
    case QAccessible::SpinBox:
    case QAccessible::EditableText:
    case QAccessible::Slider:
    case QAccessible::ButtonMenu:
    case QAccessible::ButtonDropDown:
    case QAccessible::PageTab:
    case QAccessible::ListItem:
    case QAccessible::MenuItem:
        return true;
    default:
        return false;
    }
}

QString describe(QAccessibleInterface* a) {
    QObject* o = a->object();
    QString what = QString::number(int(a->role()), 16);
    if (o) {
        what =
            QString::fromLatin1(o->metaObject()->className()) + QLatin1Char('#') + o->objectName();
    }
    return what + QStringLiteral(" role 0x") + QString::number(int(a->role()), 16);
}

void walk(QAccessibleInterface* a, QStringList& unnamed, int depth = 0) {
    if (!a || depth > 40) {
        return;
    }
    const QAccessible::State st = a->state();
    if (st.invisible || st.offscreen) {
        return;
    }
    if (interactive(a->role()) && a->text(QAccessible::Name).trimmed().isEmpty()) {
        unnamed << describe(a);
    }
    for (int i = 0; i < a->childCount(); ++i) {
        walk(a->child(i), unnamed, depth + 1);
    }
}

} // namespace

class TstAccessibility : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        QAccessible::setActive(true);
        qputenv("LQ_AUDIT_DIR", m_tmp.filePath(QStringLiteral("audit")).toUtf8());
    }

    void everyInteractiveWidgetIsNamed() {
        QTemporaryDir dir;
        const QString path =
            lq::test::copyFixture(dir, QStringLiteral("litequeue-head-mixed.sqlite3"));
        MainWindow w;
        w.resize(1280, 800);
        w.show();
        w.openFile(path);
        QVERIFY(lq::test::waitFor([&] { return w.isReady(); }, 10000));
        QStringList unnamed;
        walk(QAccessible::queryAccessibleInterface(&w), unnamed);
        // A narrow window: the toolbar's overflow button and wrapped chips.
        const int wide = w.width();
        w.resize(760, 560); // the window keeps a minimum width of its own
        QVERIFY(lq::test::waitFor([&] { return w.width() < wide; }, 5000));
        QCoreApplication::sendPostedEvents(); // the relayout the resize posted
        walk(QAccessible::queryAccessibleInterface(&w), unnamed);
        // The dashboard tab, with its cards and chart controls once computed.
        w.tabs()->setCurrentIndex(1);
        QVERIFY(lq::test::waitFor([&] { return w.dashboard()->hasData(); }, 30000));
        walk(QAccessible::queryAccessibleInterface(&w), unnamed);
        unnamed.removeDuplicates();
        QVERIFY2(unnamed.isEmpty(), qPrintable(unnamed.join(QStringLiteral("\n"))));
    }

    void gettingStartedIsNamedAndHasItsPages() {
        lq::ui::GettingStartedDialog dlg;
        dlg.show();
        QCOMPARE(dlg.pages()->count(), 4);
        // The states page names every format's own states and sub-counts.
        auto* states = qobject_cast<QTextBrowser*>(dlg.pages()->widget(0));
        QVERIFY(states);
        const QString text = states->toPlainText();
        for (const char* word : {"retryable", "cancelled", "blocked", "dead_letter", "pending",
                                 "expired", "locked_expired", "pending_retry", "stuck"})
            QVERIFY2(text.contains(QLatin1String(word)), word);
        QStringList unnamed;
        walk(QAccessible::queryAccessibleInterface(&dlg), unnamed);
        QVERIFY2(unnamed.isEmpty(), qPrintable(unnamed.join(QStringLiteral("\n"))));
    }

private:
    QTemporaryDir m_tmp;
};

QTEST_MAIN(TstAccessibility)
#include "tst_accessibility.moc"
