// SPDX-License-Identifier: MIT
#pragma once

// The main window driven by a GUI test: confirmations answered yes, reports
// collected, a file opened and an action run to its report.

#include "testhelpers.h"
#include "ui/mainwindow.h"

#include <functional>

namespace lq::test {

struct WindowHarness {
    /// How long an open or an action may take before the test fails: a
    /// condition waited for, not a speed check (the benchmarks measure speed).
    /// Generous, as two ASan GUI suites side by side on 2 cores open a
    /// 20-row file in 1-3 s and sometimes far longer.
    static constexpr int kWaitMs = 30000;
    ui::MainWindow w;
    WindowHarness() {
        w.setConfirmHandler([](const QString&, qint64) { return true; });
        w.setReportHandler([](const ui::MainWindow::ActionReport&) {});
        w.resize(1400, 900);
        w.show();
    }
    ui::MessageModel* model() const { return w.model(); }

    /// Opens `path` and waits until it is shown.
    [[nodiscard]] bool openAndWait(const QString& path) {
        w.openFile(path);
        return waitFor([&] { return w.isReady() && w.currentPath() == path; }, kWaitMs);
    }

    /// Runs `act` and waits for its report; returns the rows applied (-1
    /// when no report came or it carried an error).
    [[nodiscard]] int runAndWait(const std::function<void()>& act) {
        const int before = w.reportCount();
        act();
        if (!waitFor([&] { return w.reportCount() > before && !w.isBusy(); }, kWaitMs))
            return -1;
        const auto rep = w.lastReport();
        if (!rep.error.isEmpty()) {
            qWarning("%s", qPrintable(rep.error));
            return -1;
        }
        for (const QString& line : rep.skippedLines)
            qWarning("skipped %s", qPrintable(line));
        return int(rep.applied);
    }
};

} // namespace lq::test
