// SPDX-License-Identifier: MIT
#pragma once

#include <QObject>
#include <QString>

namespace lq::ui {

class MessageModel;
class QueueDocument;
class QueueSidebar;

/// A named queue's row in the sidebar opens its file narrowed to that queue
/// (Filter::queue). The messages page has no queue control of its own yet
/// (another change adds one): this sets the model's filter once the page
/// has restored the file's view, and announces it with queueRequested(),
/// the hook that control connects to. A control change on the page that
/// rebuilds the filter without a queue widens the table again.
class NamedQueueFilter : public QObject {
    Q_OBJECT
public:
    /// Follows `sidebar`'s picks; construct it after the window connected
    /// QueueDocument::opened, so it narrows after the page restored its view.
    NamedQueueFilter(QueueSidebar* sidebar, QueueDocument* doc, MessageModel* model,
                     QObject* parent = nullptr);

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
    MessageModel* m_model;
    QString m_path;  ///< the file the pick was for
    QString m_queue; ///< the named queue picked ("" for the file's row)
};

} // namespace lq::ui
