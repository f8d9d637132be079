// SPDX-License-Identifier: MIT
#pragma once

#include <QObject>
#include <QString>

namespace lq::ui {

class QueueDocument;
class QueueSidebar;

/// A named queue's row in the sidebar opens its file narrowed to that queue:
/// once the page has restored the file's view, queueRequested() tells the
/// messages page (its queue combo) which queue to show.
class NamedQueueFilter : public QObject {
    Q_OBJECT
public:
    /// Follows `sidebar`'s picks; construct it after the window connected
    /// QueueDocument::opened, so it narrows after the page restored its view.
    NamedQueueFilter(QueueSidebar* sidebar, QueueDocument* doc, QObject* parent = nullptr);

    /// The named queue the table was last narrowed to ("" for none).
    QString queueName() const { return m_queue; }

signals:
    /// The table was narrowed to `queueName` ("": every queue of the file).
    void queueRequested(const QString& queueName);

private:
    void onPicked(const QString& path, const QString& queueName);
    void onOpened();
    void apply();

    QueueSidebar* m_sidebar;
    QueueDocument* m_doc;
    QString m_path;  ///< the file the pick was for
    QString m_queue; ///< the named queue picked ("" for the file's row)
};

} // namespace lq::ui
