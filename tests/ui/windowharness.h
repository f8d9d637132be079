// SPDX-License-Identifier: MIT
#pragma once

// The main window driven by a GUI test: confirmations answered yes, reports
// collected, a file opened and an action run to its report.

#include "testhelpers.h"
#include "ui/mainwindow.h"

#include <functional>

namespace lq::test {

struct WindowHarness {
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
        return waitFor([&] { return w.isReady() && w.currentPath() == path; }, 10000);
    }

    /// Runs `act` and waits for its report; returns the rows applied (-1
    /// when no report came or it carried an error).
    [[nodiscard]] int runAndWait(const std::function<void()>& act) {
        const int before = w.reportCount();
        act();
        if (!waitFor([&] { return w.reportCount() > before && !w.isBusy(); }, 10000))
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
