// SPDX-License-Identifier: MIT
#pragma once

#include "core/processes.h"
#include "ui/pacedread.h"

#include <QWidget>

#include <optional>

class QAction;
class QLabel;
class QTableWidget;
class QTimer;

namespace lq::ui {

class QueueActionHandler;
class QueueDocument;

/// The Processes tab (issue 39): the worker processes the file records
/// (core::ProcessList through the core::QueueBackend, in a worker), alive or dead
/// by the library's rule, with the claims each holds and what stops because
/// no live process of a kind is left. "Release claims" gives a dead
/// process's jobs back through the handler (the format's claim-guarded
/// release, confirmed, reported, undoable). Where the format records no
/// processes the view says so in one line.
class ProcessesView : public QWidget {
    Q_OBJECT
public:
    enum Column {
        KindColumn,
        HostColumn,
        PidColumn,
        HeartbeatColumn,
        StateColumn,
        ClaimedColumn,
        NameColumn,
        ColumnCount
    };

    ProcessesView(QueueDocument* document, QueueActionHandler* handler, QWidget* parent = nullptr);

    QTableWidget* table() const { return m_table; }
    /// The summary line: counts and the alive rule, or why there is nothing.
    QLabel* statusLabel() const { return m_status; }
    /// What stops because a kind has no live process ("" when nothing does).
    QLabel* warningsLabel() const { return m_warnings; }
    QAction* releaseAction() const { return m_release; }
    const core::ProcessList& processes() const { return m_list; }
    std::optional<core::ProcessInfo> selectedProcess() const;
    /// Selects the process with id `id`; false when none has it.
    bool selectProcess(const QString& id);
    /// Results applied since construction (tests wait for the next one).
    int resultCount() const { return m_results; }
    bool isIdle() const;

public slots:
    void documentOpened();
    void documentClosed();
    /// Reads the processes now (while hidden: when shown next).
    void refresh();
    /// The file changed: reads again at the file's pace.
    void refreshLive();
    void setUtc(bool utc);
    void releaseSelected();
    void updateActions();

signals:
    /// The warnings of the last read (what stops for want of a live
    /// process), for the banner; empty when none or nothing is recorded.
    void warningsChanged(const QStringList& warnings);

private:
    struct Result {
        core::ProcessList list;
        core::TimeNs now = 0;
        QString error;
    };
    void apply(Result r);
    void showList();
    void showLine(const QString& text, bool content);

    QueueDocument* m_doc;
    QueueActionHandler* m_handler;
    QLabel* m_status = nullptr;
    QLabel* m_warnings = nullptr;
    QWidget* m_content = nullptr;
    QTableWidget* m_table = nullptr;
    QAction* m_release = nullptr;
    QTimer* m_beatTimer = nullptr;
    PacedRead m_read{this, [this] { refresh(); }, /*onlyWhileShown=*/false};

    core::ProcessList m_list;
    core::TimeNs m_now = 0;
    bool m_utc = false;
    int m_results = 0;
};

} // namespace lq::ui
