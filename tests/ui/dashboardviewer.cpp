// SPDX-License-Identifier: MIT
// dashboardviewer FILE [--now NS|ISO] [--utc] [--live MS] [--quit-after MS]
// [--range all|hour|day]:
// shows lq::ui::DashboardWidget on one queue file, for screenshots and
// manual checks. Prints how long each computation took.

#include "core/queue.h"
#include "core/timefmt.h"
#include "ui/dashboardwidget.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QTextStream>
#include <QTimer>

#include <algorithm>
#include <exception>
#include <memory>

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral("Shows the LiteQueue Admin dashboard on a file."));
    p.addHelpOption();
    p.addPositionalArgument(QStringLiteral("file"), QStringLiteral("queue file"));
    const QCommandLineOption nowOpt(QStringLiteral("now"),
                                    QStringLiteral("fixed \"now\" (ns since the epoch or ISO)"),
                                    QStringLiteral("time"));
    const QCommandLineOption utcOpt(QStringLiteral("utc"), QStringLiteral("UTC time axes"));
    const QCommandLineOption liveOpt(QStringLiteral("live"), QStringLiteral("refresh every N ms"),
                                     QStringLiteral("ms"));
    const QCommandLineOption quitOpt(QStringLiteral("quit-after"),
                                     QStringLiteral("exit after N ms"), QStringLiteral("ms"));
    const QCommandLineOption rangeOpt(QStringLiteral("range"),
                                      QStringLiteral("time range preset: all, hour or day"),
                                      QStringLiteral("preset"), QStringLiteral("all"));
    p.addOptions({nowOpt, utcOpt, liveOpt, quitOpt, rangeOpt});
    p.process(app);
    if (p.positionalArguments().size() != 1) {
        p.showHelp(2);
    }
    QTextStream out(stdout);
    lq::core::OpenOptions o;
    if (p.isSet(nowOpt)) {
        const auto t = lq::core::parseTimeArg(p.value(nowOpt).toStdString());
        if (!t) {
            out << "cannot parse --now " << p.value(nowOpt) << Qt::endl;
            return 2;
        }
        o.clock = lq::core::fixedClock(*t);
    }
    std::shared_ptr<lq::core::Queue> q;
    try {
        q = lq::core::Queue::open(p.positionalArguments().at(0).toStdString(), o);
    } catch (const std::exception& e) {
        out << QString::fromUtf8(e.what()) << Qt::endl;
        return 1;
    }
    lq::ui::DashboardWidget w;
    w.setWindowTitle(QStringLiteral("Dashboard — ") + p.positionalArguments().at(0));
    w.setUtc(p.isSet(utcOpt));
    QObject::connect(&w, &lq::ui::DashboardWidget::dataUpdated, &w, [&w, &out] {
        out << "computed in " << w.data().elapsedMs << " ms (" << w.data().totalRows << " rows)"
            << Qt::endl;
    });
    QObject::connect(&w, &lq::ui::DashboardWidget::histogramBarClicked, &w,
                     [&out](const lq::core::Filter& f) {
                         out << "bar clicked: metric " << int(f.metric) << " [" << f.metricLo
                             << ", " << f.metricHi << ") ns" << Qt::endl;
                     });
    w.resize(1400, 900);
    w.show();
    w.setQueue(q);
    if (p.value(rangeOpt) == QLatin1String("hour")) {
        w.setRangePreset(lq::ui::DashboardWidget::RangePreset::LastHour);
    } else if (p.value(rangeOpt) == QLatin1String("day")) {
        w.setRangePreset(lq::ui::DashboardWidget::RangePreset::LastDay);
    }
    QTimer live;
    if (p.isSet(liveOpt)) {
        QObject::connect(&live, &QTimer::timeout, &w, &lq::ui::DashboardWidget::refresh);
        live.start(p.value(liveOpt).toInt());
    }
    // The UI thread's longest pause between two 10 ms ticks: what a user
    // would feel as a stall while the dashboard computes and redraws.
    QElapsedTimer beat;
    beat.start();
    qint64 last = 0, worst = 0;
    QTimer heartbeat;
    QObject::connect(&heartbeat, &QTimer::timeout, &w, [&] {
        const qint64 t = beat.elapsed();
        worst = std::max(worst, t - last);
        last = t;
    });
    heartbeat.start(10);
    if (p.isSet(quitOpt)) {
        QTimer::singleShot(p.value(quitOpt).toInt(), &app, [&] {
            out << "longest UI-thread pause: " << worst << " ms" << Qt::endl;
            QApplication::quit();
        });
    }
    return app.exec();
}
