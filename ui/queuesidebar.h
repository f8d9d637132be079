// SPDX-License-Identifier: MIT
#pragma once

#include <QWidget>

#include <functional>

class QListView;
class QLabel;
class QMenu;

namespace lq::ui {

class FleetModel;

/// The list of queues docked left of the message table: each queue with
/// its health mark and live counts on a second line; files that are not
/// queues greyed, with the reason. One click opens a queue.
class QueueSidebar : public QWidget {
    Q_OBJECT
public:
    explicit QueueSidebar(FleetModel* model, QWidget* parent = nullptr);

    FleetModel* model() const { return m_model; }
    QListView* view() const { return m_view; }
    /// Marks the queue shown in the window (no signal); `queueName` marks a
    /// named queue's child row ("" the file's row).
    void setCurrent(const QString& path, const QString& table, const QString& queueName = {});
    /// Adds entries of other subjects to a queue row's context menu (Pause
    /// and Resume of a named queue: ui/pausedqueues.cpp).
    using MenuHook = std::function<void(QMenu& menu, const QModelIndex& index)>;
    void setMenuHook(MenuHook hook) { m_menuHook = std::move(hook); }

signals:
    /// The operator picked a queue (not a skipped file); `queueName` is the
    /// named queue of a child row, "" for the file's own row.
    void queueActivated(const QString& path, const QString& table, const QString& queueName);
    /// The operator picked a skipped file: the main area says why it is not shown.
    void skippedActivated(const QString& path, const QString& reason);
    void watchFolderRequested();

private:
    void onClicked(const QModelIndex& index);
    void showContextMenu(const QPoint& pos);
    void updateHeader();

    FleetModel* m_model;
    QListView* m_view;
    QLabel* m_header;
    MenuHook m_menuHook;
};

} // namespace lq::ui
