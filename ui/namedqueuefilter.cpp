// SPDX-License-Identifier: MIT
#include "ui/namedqueuefilter.h"

#include "ui/queuedocument.h"
#include "ui/queuesidebar.h"
#include "ui/uitext.h"

namespace lq::ui {

NamedQueueFilter::NamedQueueFilter(QueueSidebar* sidebar, QueueDocument* doc, QObject* parent)
    : QObject(parent)
    , m_sidebar(sidebar)
    , m_doc(doc) {
    connect(sidebar, &QueueSidebar::queueActivated, this,
            [this](const QString& path, const QString&, const QString& queueName) {
                onPicked(path, queueName);
            });
    connect(doc, &QueueDocument::opened, this, &NamedQueueFilter::onOpened);
}

void NamedQueueFilter::onPicked(const QString& path, const QString& queueName) {
    m_path = queueKey(path);
    m_queue = queueName;
    // The file already shown is not opened again: narrow it now.
    if (m_doc->isOpen() && m_doc->path() == m_path) {
        apply();
    }
}

void NamedQueueFilter::onOpened() {
    if (m_doc->path() != m_path) {
        // Another file, opened some other way: no named queue picked for it.
        m_path.clear();
        m_queue.clear();
        return;
    }
    apply();
}

void NamedQueueFilter::apply() {
    m_sidebar->setCurrent(m_doc->path(), m_doc->table(), m_queue);
    emit queueRequested(m_queue); // the messages page narrows the table
}

} // namespace lq::ui
