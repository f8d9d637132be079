// SPDX-License-Identifier: MIT
// lqbench gui, the part a user sees: launch -> first data rows painted, from
// the kernel's process start time, and another process's write -> the
// changed row repainted. Each launch is a fresh child process (`lqbench
// gui-launch`) that shows the real main window on the platform it is given
// (xcb under Xvfb when DISPLAY is set; offscreen otherwise) and reports what
// it saw as one JSON line.
#include "launchbench.h"

#include "core/json.h"
#include "ui/mainwindow.h"
#include "ui/messagemodel.h"

#include <QAbstractItemView>
#include <QApplication>
#include <QElapsedTimer>
#include <QEvent>
#include <QFile>
#include <QHeaderView>
#include <QProcess>
#include <QTableView>
#include <QTimer>
#include <QToolButton>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <functional>
#include <memory>
#include <optional>
#include <tuple>
#include <unistd.h>

namespace lq::bench {

namespace {

/// ms since this process started, from the kernel's start time
/// (/proc/self/stat field 22, clock ticks since boot) and CLOCK_BOOTTIME. The
/// start time is truncated to a tick (10 ms here), so a figure may be up to
/// one tick long, never short.
double msSinceProcessStart() {
    static const double startMs = [] {
        QFile f(QStringLiteral("/proc/self/stat"));
        if (!f.open(QIODevice::ReadOnly))
            return -1.0;
        const QByteArray s = f.readAll();
        // Fields after the parenthesised command name; starttime is field 22.
        const auto fields = s.mid(s.lastIndexOf(')') + 2).split(' ');
        if (fields.size() < 20)
            return -1.0;
        return fields.at(19).toDouble() * 1000.0 / double(sysconf(_SC_CLK_TCK));
    }();
    timespec ts{};
    clock_gettime(CLOCK_BOOTTIME, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6 - startMs;
}

double monoMs() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

/// Paints the viewport inside the filter, then tells `onPainted` that a
/// paint has reached the backing store: what the user sees next.
class PaintSpy : public QObject {
public:
    explicit PaintSpy(QWidget* viewport, std::function<void()> onPainted)
        : m_onPainted(std::move(onPainted)) {
        viewport->installEventFilter(this);
    }
    bool eventFilter(QObject* o, QEvent* e) override {
        if (e->type() != QEvent::Paint || m_inside)
            return false;
        m_inside = true;
        QCoreApplication::sendEvent(o, e); // the viewport paints, inside this filter
        m_inside = false;
        m_onPainted();
        return true;
    }

private:
    std::function<void()> m_onPainted;
    bool m_inside = false;
};

/// The peak resident set of this process (VmHWM), in MiB.
double peakRssMb() {
    QFile f(QStringLiteral("/proc/self/status"));
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray& line : f.readAll().split('\n'))
        if (line.startsWith("VmHWM:"))
            return line.mid(6).trimmed().split(' ').value(0).toDouble() / 1024.0;
    return -1;
}

/// The number at the end of a message id ("jobs:42" -> "42").
QString trailingId(const std::string& messageId) {
    return QString::fromStdString(messageId.substr(messageId.rfind(':') + 1));
}

} // namespace

double median(std::vector<double> v) {
    if (v.empty())
        return -1;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

double percentile(std::vector<double> v, double p) {
    if (v.empty())
        return -1;
    std::sort(v.begin(), v.end());
    const auto rank = static_cast<std::size_t>(std::ceil(p * double(v.size())));
    return v[std::clamp<std::size_t>(rank, 1, v.size()) - 1];
}

// ---- the child: one launch ------------------------------------------------

int runGuiLaunch(int argc, char** argv, const LaunchOptions& o) {
    // Measured from here on: QApplication, the window, the open.
    QApplication app(argc, argv);
    core::Json r = core::Json::object();
    r.set("platform", QGuiApplication::platformName().toStdString());
    ui::MainWindow w;
    w.setConfirmHandler([](const QString&, qint64) { return true; });
    w.resize(1400, 900);
    ui::MessageModel* m = w.model();
    QTableView* v = w.view();

    double windowShown = -1, firstRows = -1;
    bool emptyPaint = false;
    // The change being waited for: row, expected state, start (monotonic ms).
    struct Wait {
        int row = -1;
        int state = -1;
        double t0 = 0;
        double ms = -1;
    } wait;
    PaintSpy spy(v->viewport(), [&] {
        const int top = v->rowAt(0);
        const bool rows = m->rowCount() > 0 && top >= 0 && m->rowAt(top) != nullptr;
        if (windowShown < 0)
            windowShown = msSinceProcessStart();
        if (!rows && firstRows < 0)
            emptyPaint = true;
        if (rows && firstRows < 0)
            firstRows = msSinceProcessStart();
        if (wait.row >= 0 && wait.ms < 0 && wait.row < m->rowCount() && m->rowAt(wait.row) &&
            m->data(m->index(wait.row, ui::MessageModel::Status), ui::MessageModel::StateRole)
                    .toInt() == wait.state)
            wait.ms = monoMs() - wait.t0;
    });
    // The "All" chip painted with a number: first an estimate ("≈", a huge
    // table on a server), then the exact count (a number above 0: the chip
    // says "All 0" for a moment between the open and the first counts).
    double chipsEstimated = -1, chipsExact = -1;
    std::unique_ptr<PaintSpy> chipSpy;
    for (QToolButton* b : w.findChildren<QToolButton*>()) {
        if (b->accessibleName() != QLatin1String("All filter"))
            continue;
        chipSpy = std::make_unique<PaintSpy>(b, [&chipsEstimated, &chipsExact, b] {
            QString digits = b->text();
            digits.removeIf([](QChar c) { return !c.isDigit(); });
            if (digits.toLongLong() <= 0)
                return;
            double& at = b->text().contains(QChar(0x2248)) ? chipsEstimated : chipsExact;
            if (at < 0)
                at = msSinceProcessStart();
        });
        break;
    }
    w.show();
    w.openFile(QString::fromStdString(o.file));

    const auto spin = [&](const std::function<bool()>& done, int timeoutMs) {
        QElapsedTimer t;
        t.start();
        while (!done() && t.elapsed() < timeoutMs)
            QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 5);
        return done();
    };
    spin([&] { return firstRows >= 0; }, 30000);
    spin([&] { return chipsExact >= 0; }, 30000);
    r.set("launch_to_rows_ms", firstRows);
    r.set("launch_to_estimated_counts_ms", chipsEstimated);
    r.set("launch_to_counts_ms", chipsExact);
    r.set("window_shown_ms", windowShown);
    r.set("empty_table_painted", emptyPaint);

    // External changes: a plain `sqlite3` shell process flips the status of
    // a shown row; from just before that process starts to the paint that
    // shows the new state. Some rounds first checkpoint and truncate the WAL
    // from another process.
    std::vector<double> changes;
    if (o.changes > 0 && firstRows >= 0) {
        spin([&] { return m->isIdle(); }, 10000);
        const int shown = std::max(1, v->rowAt(v->viewport()->height() - 1));
        const bool flip = !o.toScheduledSql.empty();
        // A format's flip applies to READY and SCHEDULED jobs: the shown rows
        // in those states; if none, the newest first (Laravel lists its
        // failed_jobs before its jobs).
        std::vector<int> flippable;
        for (const bool newestFirst : {false, true}) {
            if (newestFirst) {
                if (!flippable.empty())
                    break;
                v->sortByColumn(ui::MessageModel::MessageId, Qt::DescendingOrder);
                spin([&] { return m->isIdle() && m->rowAt(0) != nullptr; }, 30000);
            }
            for (int row = 0; row < std::min(shown, 40); ++row) {
                spin([&] { return m->rowAt(row) != nullptr && m->isIdle(); }, 10000);
                const ui::MessageRow* mr = m->rowAt(row);
                if (mr && (!flip || mr->msg.state == core::State::Ready ||
                           mr->msg.state == core::State::Scheduled))
                    flippable.push_back(row);
                if (flippable.size() >= 20)
                    break;
            }
        }
        for (int i = 0; i < o.changes && !flippable.empty(); ++i) {
            const int row = flippable[std::size_t(i) % flippable.size()];
            spin([&] { return m->rowAt(row) != nullptr && m->isIdle(); }, 10000);
            const ui::MessageRow* mr = m->rowAt(row);
            if (!mr)
                break;
            if (o.checkpointEvery > 0 && i % o.checkpointEvery == o.checkpointEvery - 1) {
                QProcess cp;
                cp.start(QStringLiteral("sqlite3"),
                         {QString::fromStdString(o.file),
                          QStringLiteral("PRAGMA wal_checkpoint(TRUNCATE);")});
                cp.waitForFinished(10000);
            }
            QString sql;
            if (flip) {
                const bool toScheduled = mr->msg.state == core::State::Ready;
                wait = Wait{row, int(toScheduled ? core::State::Scheduled : core::State::Ready),
                            monoMs(), -1};
                sql = QString::fromStdString(toScheduled ? o.toScheduledSql : o.toReadySql)
                          .replace(QStringLiteral("{id}"), trailingId(mr->msg.messageId));
            } else {
                // FAILED (3) <-> DONE (2): both are shown at once by Status.
                const bool toFailed = mr->msg.rawStatus != 3;
                wait = Wait{row, int(toFailed ? core::State::Failed : core::State::Done), monoMs(),
                            -1};
                sql = QStringLiteral("UPDATE Queue SET status = %1 WHERE rowid = %2;")
                          .arg(toFailed ? 3 : 2)
                          .arg(mr->msg.rowid);
            }
            QProcess sh;
            if (o.file.rfind("postgresql://", 0) == 0) {
                // A database: psql's own session, as a worker's commit (the
                // statements name their schema; libpq knows no ?schema=).
                const std::string url = o.file.substr(0, o.file.find('?'));
                sh.start(QString::fromStdString(o.psql),
                         {QStringLiteral("-X"), QStringLiteral("-q"), QStringLiteral("-v"),
                          QStringLiteral("ON_ERROR_STOP=1"), QStringLiteral("-d"),
                          QString::fromStdString(url), QStringLiteral("-c"), sql});
            } else {
                // Waits for a lock as a worker library does (busy timeout), so a
                // long read of ours shows up as latency, not as a failed write.
                sh.start(QStringLiteral("sqlite3"),
                         {QStringLiteral("-cmd"), QStringLiteral(".timeout 10000"),
                          QString::fromStdString(o.file), sql});
            }
            spin([&] { return sh.state() == QProcess::NotRunning; }, 10000);
            if (sh.exitCode() != 0) {
                std::fprintf(stderr, "lqbench: the change failed: %s\n",
                             sh.readAllStandardError().constData());
                break;
            }
            if (!spin([&] { return wait.ms >= 0; }, 5000))
                wait.ms = 5000; // not on screen within 5 s: counted as 5 s, never dropped
            changes.push_back(wait.ms);
            wait.row = -1;
            // Let the table settle before the next write.
            spin([&] { return false; }, 60);
        }
    }
    core::Json list = core::Json::array();
    for (double c : changes)
        list.push(c);
    r.set("changes_ms", std::move(list));
    r.set("peak_rss_mb", peakRssMb());
    std::printf("%s\n", r.dump().c_str());
    std::fflush(stdout);
    return firstRows >= 0 ? 0 : 1;
}

// ---- the parent: launches, alternating ------------------------------------

std::optional<core::Json> launchOnce(const std::string& self, const std::string& file,
                                     const std::vector<std::string>& extra, std::string* error) {
    QProcess p; // its stderr (Qt's platform chatter) is shown only on failure
    QStringList args{QStringLiteral("gui-launch"), QString::fromStdString(file)};
    for (const std::string& a : extra)
        args << QString::fromStdString(a);
    p.start(QString::fromStdString(self), args);
    if (!p.waitForFinished(600000)) {
        p.kill();
        *error = "gui-launch did not finish";
        return std::nullopt;
    }
    if (p.exitCode() != 0)
        std::fprintf(stderr, "%s", p.readAllStandardError().constData());
    const QByteArray out = p.readAllStandardOutput().trimmed();
    const QByteArray last = out.mid(out.lastIndexOf('\n') + 1);
    try {
        return core::Json::parse(last.toStdString());
    } catch (const std::exception& e) {
        *error = std::string("gui-launch printed no result: ") + e.what();
        return std::nullopt;
    }
}

bool measureLaunches(const std::string& self, const std::string& large, const std::string& small,
                     const std::string& rollback, int rounds, core::Json& r) {
    std::vector<double> big, little, change;
    std::string error;
    std::string platform;
    bool empty = false;
    for (int i = 0; i < rounds; ++i) {
        for (const std::string* f : {&small, &large}) {
            const auto j = launchOnce(self, *f, {}, &error);
            if (!j) {
                std::fprintf(stderr, "lqbench: %s\n", error.c_str());
                return false;
            }
            platform = (*j)["platform"].toString();
            if ((*j)["launch_to_rows_ms"].toDouble() < 0) {
                std::fprintf(stderr, "lqbench: no data rows painted within 30 s of launch (%s)\n",
                             f->c_str());
                return false;
            }
            (f == &large ? big : little).push_back((*j)["launch_to_rows_ms"].toDouble());
            empty = empty || (f == &large && (*j)["empty_table_painted"].toBool());
        }
    }
    // Live changes: the WAL file (every third write after a TRUNCATE
    // checkpoint by another process), then the rollback-journal copy.
    std::vector<double> walChanges, journalChanges;
    for (const auto& [file, every, into] :
         {std::tuple{&large, 3, &walChanges}, std::tuple{&rollback, 0, &journalChanges}}) {
        if (file->empty())
            continue;
        const auto j = launchOnce(
            self, *file, {"--changes", "15", "--checkpoint-every", std::to_string(every)}, &error);
        if (!j) {
            std::fprintf(stderr, "lqbench: %s\n", error.c_str());
            return false;
        }
        for (const core::Json& c : (*j)["changes_ms"].toArray()) {
            into->push_back(c.toDouble());
            change.push_back(c.toDouble());
        }
    }
    r.set("platform", platform);
    r.set("launch_to_rows_ms", median(big));
    r.set("launch_to_rows_small_ms", median(little));
    r.set("launch_to_rows_ms_max", percentile(big, 1.0));
    // What the file's size adds to a launch (target: 50 ms).
    r.set("launch_cost_ms", median(big) - median(little));
    r.set("launch_rounds", static_cast<std::int64_t>(rounds));
    r.set("table_shown_empty", empty);
    r.set("external_change_ms", median(change));
    r.set("external_change_p95_ms", percentile(change, 0.95));
    r.set("external_change_wal_ms", median(walChanges));
    r.set("external_change_journal_ms", median(journalChanges));
    r.set("external_change_count", static_cast<std::int64_t>(change.size()));
    return true;
}

} // namespace lq::bench
