// SPDX-License-Identifier: MIT
#pragma once

#include "core/queueoverview.h"
#include "ui/pacedread.h"

#include <QWidget>

#include <optional>

class QComboBox;
class QLabel;
class QTableWidget;
class QTimer;

namespace lq::ui {

class QueueDocument;

/// The Queues tab (issue 39 item 6): one row per named queue of the file
/// (one for the whole file where the format has none) with its counts in
/// the format's own states, whether it is paused, its throughput and its
/// wait p50/p99 over a chosen time range: core::QueueOverview, read through
/// the document's core::QueueBackend in a worker (computed on the host for a
/// remote queue). Double-clicking a row asks for that queue's messages.
class QueuesView : public QWidget {
    Q_OBJECT
public:
    /// The time ranges offered, relative to the queue's clock.
    enum class Range { All, LastHour, LastDay, LastWeek };

    explicit QueuesView(QueueDocument* document, QWidget* parent = nullptr);

    QTableWidget* table() const { return m_table; }
    QLabel* statusLabel() const { return m_status; }
    QComboBox* rangeCombo() const { return m_range; }
    const core::QueueOverview& overview() const { return m_overview; }
    /// The column showing `key`: "queue", "paused", a partition state's
    /// name ("ready", "blocked", ...), "done_per_hour", "wait_p50",
    /// "wait_p99", "backlog"; -1 when not shown.
    int columnOf(const QString& key) const;
    /// The row of named queue `queue` ("" : the whole file), -1 if none.
    int rowOf(const QString& queue) const;
    void setRange(Range r);
    /// Results applied since construction (tests wait for the next one).
    int resultCount() const { return m_results; }
    bool isIdle() const;

public slots:
    void documentOpened();
    void documentClosed();
    /// Reads the overview now (while hidden: when shown next).
    void refresh();
    /// The file changed: reads again at the file's pace, when shown.
    void refreshLive();

signals:
    /// A row was double-clicked: show named queue `queue`'s messages.
    void queueActivated(const QString& queue);

protected:
    void showEvent(QShowEvent* event) override;

private:
    struct Result {
        core::QueueOverview overview;
        QString error;
    };
    void apply(Result r);
    void showOverview();
    void showLine(const QString& text, bool content);

    QueueDocument* m_doc;
    QLabel* m_status = nullptr;
    QComboBox* m_range = nullptr;
    QWidget* m_content = nullptr;
    QTableWidget* m_table = nullptr;
    PacedRead m_read{this, [this] { refresh(); }, /*onlyWhileShown=*/true};
    QStringList m_columnKeys;

    core::QueueOverview m_overview;
    int m_results = 0;
};

} // namespace lq::ui
