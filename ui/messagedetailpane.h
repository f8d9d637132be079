// SPDX-License-Identifier: MIT
#pragma once

#include "ui/messagemodel.h"

#include <QHash>
#include <QStringList>
#include <QWidget>

#include <memory>
#include <string>

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QGridLayout;

namespace lq::ui {

class QueueBackend;

/// Every field of the current message, with humane times (exact ns and UTC
/// in tooltips) and the payload, pretty-printed when it is JSON. Everything
/// from the file is shown as plain text. The full payload is read in a
/// worker; over kPayloadLimit bytes it is cut, with "Load all" and
/// "Save as…".
class MessageDetailPane : public QWidget {
    Q_OBJECT
public:
    static constexpr qint64 kPayloadLimit = qint64(1024) * 1024;

    explicit MessageDetailPane(QWidget* parent = nullptr);

    /// The queue the rows come from (nullptr: none).
    void setBackend(std::shared_ptr<QueueBackend> backend);
    void setUtc(bool utc);
    void setStuckThresholdSeconds(int seconds);
    /// Shows a cached row (nullptr: nothing selected).
    void showRow(const MessageRow* row);
    /// The message shown left the table (an action moved it out of the
    /// filter): keep showing it, marked, rather than a neighbour.
    void markNotShown(const QString& why);
    /// The last note of markNotShown(); empty while the message is in view.
    QString notShownNote() const { return m_notShown; }
    /// The line above the payload as shown (what it is, or why not shown).
    QString payloadNoteText() const;

    QString messageId() const { return m_messageId; }
    QString payloadText() const;
    /// The text of one field label ("id", "status", "claim", "key", "enqueued",
    /// "claimed", "finished", "wait", "processing", "total", "age", "size",
    /// and the format fields by QueueFormat::fieldKey: "queue", "job",
    /// "priority", "attempts", "scheduled", "lease", "stored_status"; "error"
    /// is the error box's text, "" when hidden).
    QString fieldText(const QString& field) const;
    bool isLoading() const { return m_loading; }
    bool isTruncated() const { return m_truncated; }

signals:
    void errorOccurred(const QString& message);

private:
    struct Payload;
    QLabel* addField(const QString& key, const QString& title);
    /// Whether the open format has field `key` (its declared fields, keys,
    /// the run_at/locked_until schedule of formats that declare no fields).
    bool shows(const QString& key) const;
    /// Lays out the fields the format has, under the format's labels.
    void layoutFields();
    void ensureFieldsLaidOut();
    bool m_fieldsStale = false; ///< layoutFields() is due (setBackend())
    void setField(const QString& key, const QString& text, const QString& exact = {});
    void loadPayload(bool all);
    void savePayload();
    void refreshTimes();

    std::shared_ptr<QueueBackend> m_backend;
    bool m_utc = false;
    core::TimeNs m_stuckNs = core::kDefaultStuckAfterNs;
    QHash<QString, QLabel*> m_fields;
    QHash<QString, QLabel*> m_titles;
    QStringList m_order;       ///< field keys in display order
    QStringList m_shownFields; ///< the keys layoutFields() last put in the grid
    QGridLayout* m_grid;
    QWidget* m_errorBox;
    QLabel* m_errorTitle;
    QPlainTextEdit* m_error;
    QPlainTextEdit* m_payload;
    QLabel* m_payloadNote;
    QPushButton* m_copyId;
    QPushButton* m_copyPayload;
    QPushButton* m_loadAll;
    QPushButton* m_saveAs;
    QString m_messageId;
    QString m_notShown;
    quint64 m_fingerprint = 0;
    std::optional<MessageRow> m_row;
    std::shared_ptr<const std::string> m_full; ///< the whole payload once read
    bool m_fullIsBlob = false;
    bool m_loading = false;
    bool m_truncated = false;
    quint64 m_generation = 0;
};

} // namespace lq::ui
