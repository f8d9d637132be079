// SPDX-License-Identifier: MIT
#pragma once

#include "core/recurring.h"
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

/// The Recurring tab (issue 39): the recurring tasks the file records
/// (core::RecurringList through the core::QueueBackend, in a worker), each with
/// its schedule as written, what it enqueues, its queue, its last run, its
/// next run by the schedule as the library reads it and the runs missed
/// since the last (highlighted). "Run now" enqueues the selected task's job
/// through the handler as the library's own run now does (confirmed,
/// reported, undoable). Where the format records no recurring tasks the view
/// says so in one line; a schedule that cannot be evaluated says why.
class RecurringView : public QWidget {
    Q_OBJECT
public:
    enum Column {
        KeyColumn,
        ScheduleColumn,
        JobColumn,
        QueueColumn,
        LastRunColumn,
        NextRunColumn,
        MissedColumn,
        ColumnCount
    };

    RecurringView(QueueDocument* document, QueueActionHandler* handler, QWidget* parent = nullptr);

    QTableWidget* table() const { return m_table; }
    /// The summary line: counts and the missed rule, or why there is nothing.
    QLabel* statusLabel() const { return m_status; }
    /// The tasks whose next run is unknown, with why ("" when none).
    QLabel* warningsLabel() const { return m_warnings; }
    QAction* runNowAction() const { return m_runNow; }
    const core::RecurringList& tasks() const { return m_list; }
    std::optional<core::RecurringTask> selectedTask() const;
    /// Selects the task with key `key`; false when none has it.
    bool selectTask(const QString& key);
    /// Results applied since construction (tests wait for the next one).
    int resultCount() const { return m_results; }
    bool isIdle() const;

public slots:
    void documentOpened();
    void documentClosed();
    /// Reads the tasks now (while hidden: when shown next).
    void refresh();
    /// The file changed: reads again at the file's pace.
    void refreshLive();
    void setUtc(bool utc);
    void runSelected();
    void updateActions();

protected:
    void showEvent(QShowEvent* event) override;

private:
    struct Result {
        core::RecurringList list;
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
    QAction* m_runNow = nullptr;
    QTimer* m_clockTimer = nullptr;
    PacedRead m_read{this, [this] { refresh(); }, /*onlyWhileShown=*/true};

    core::RecurringList m_list;
    core::TimeNs m_now = 0;
    bool m_utc = false;
    int m_results = 0;
};

} // namespace lq::ui
