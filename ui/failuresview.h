// SPDX-License-Identifier: MIT
#pragma once

#include "core/errors.h"
#include "ui/pacedread.h"

#include <QWidget>

#include <optional>
#include <vector>

class QAction;
class QLabel;
class QPlainTextEdit;
class QTableWidget;
class QTimer;
class QToolButton;

namespace lq::ui {

class MessageModel;
class QueueActionHandler;
class QueueDocument;

/// The Failures tab (issue 39): the open queue's failed jobs grouped by
/// error (core::groupFailures through the core::QueueBackend, in a worker), scoped
/// to the named queue the table shows. A group's sample error is shown as
/// plain text with its job ids; "Retry group" and "Delete group" run the
/// action handler's runErrorGroup() (confirmed, reported, undoable). Where
/// the format stores no error text the view says so in one line.
class FailuresView : public QWidget {
    Q_OBJECT
public:
    enum Column { CountColumn, ErrorColumn, LastColumn, FirstColumn, QueuesColumn, ColumnCount };

    FailuresView(QueueDocument* document, MessageModel* model, QueueActionHandler* handler,
                 QWidget* parent = nullptr);

    QTableWidget* table() const { return m_table; }
    /// The one line above the table: the summary, "No failed jobs", or why
    /// this format's failures cannot be grouped.
    QLabel* statusLabel() const { return m_status; }
    QPlainTextEdit* sampleEdit() const { return m_sample; }
    QPlainTextEdit* idsEdit() const { return m_ids; }
    QAction* retryGroupAction() const { return m_retry; }
    QAction* deleteGroupAction() const { return m_delete; }
    QAction* showJobsAction() const { return m_show; }
    QAction* copyIdsAction() const { return m_copy; }

    /// The groups shown (the last result), largest first.
    const std::vector<core::ErrorGroup>& groups() const { return m_groups; }
    /// The named queue they are of ("": the whole file).
    QString queue() const { return m_shownQueue; }
    /// The selected group, if any.
    std::optional<core::ErrorGroup> selectedGroup() const;
    /// Selects the group of error class `error`; false when none has it.
    bool selectGroup(const QString& error);
    /// Results applied since construction (tests wait for the next one).
    int resultCount() const { return m_results; }
    /// No computation is running or waiting.
    bool isIdle() const;

public slots:
    /// A file was opened: everything shown is dropped and read again.
    void documentOpened();
    void documentClosed();
    /// Reads the groups now (while hidden: when shown next).
    void refresh();
    /// The file changed: reads again at the file's pace (core::ReadPacer).
    void refreshLive();
    /// The table's named queue may have changed: reads again if so.
    void followQueue();
    void setUtc(bool utc);
    void retrySelectedGroup();
    void deleteSelectedGroup();
    void showSelectedJobs();
    void copySelectedIds();
    /// Enables the group actions from the document, the format and the
    /// selection; a disabled one says why in its tooltip.
    void updateActions();

signals:
    /// "Show jobs": the table should show the failed jobs and select
    /// `firstMessageId` (the group's first job).
    void showJobsRequested(const QString& firstMessageId);

protected:
    void showEvent(QShowEvent* event) override;

private:
    using Result = std::pair<std::vector<core::ErrorGroup>, QString>;
    void apply(Result r);
    void showGroups();
    void showSelection();
    void showLine(const QString& text, bool content);

    QueueDocument* m_doc;
    MessageModel* m_model;
    QueueActionHandler* m_handler;
    QLabel* m_status = nullptr;
    QWidget* m_content = nullptr;
    QTableWidget* m_table = nullptr;
    PacedRead m_read{this, [this] { refresh(); }, /*onlyWhileShown=*/true};
    QPlainTextEdit* m_sample = nullptr;
    QPlainTextEdit* m_ids = nullptr;
    QLabel* m_idsLabel = nullptr;
    QAction* m_retry = nullptr;
    QAction* m_delete = nullptr;
    QAction* m_show = nullptr;
    QAction* m_copy = nullptr;

    std::vector<core::ErrorGroup> m_groups;
    QString m_shownQueue;
    bool m_utc = false;
    int m_results = 0;
};

} // namespace lq::ui
