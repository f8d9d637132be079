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

namespace lq::core {
class QueueBackend;
}

namespace lq::ui {

/// Every field of the current message, with humane times (exact ns and UTC
/// in tooltips) and the payload, pretty-printed when it is JSON. Everything
/// from the file is shown as plain text. The full payload is read in a
/// worker; over kPayloadLimit bytes it is cut, with "Load all" and
/// "Save as…". A BLOB of UTF-8 text is shown as text, its bytes one click
/// away ("Bytes"); any other BLOB as a hex dump with its printable
/// characters. A message gone from the table is read again: the pane shows
/// it as the file has it now, or says it was deleted from the file.
class MessageDetailPane : public QWidget {
    Q_OBJECT
public:
    static constexpr qint64 kPayloadLimit = qint64(1024) * 1024;

    explicit MessageDetailPane(QWidget* parent = nullptr);

    /// The queue the rows come from (nullptr: none).
    void setBackend(std::shared_ptr<core::QueueBackend> backend);
    void setUtc(bool utc);
    void setStuckThresholdSeconds(int seconds);
    /// Shows a cached row (nullptr: nothing selected).
    void showRow(const MessageRow* row);
    /// The message shown left the table (an action moved it out of the
    /// filter): keep showing it, marked, rather than a neighbour. It is read
    /// again: its fields follow the file, or the Status says it was deleted.
    void markNotShown(const QString& why);
    /// The last note of markNotShown(); empty while the message is in view.
    QString notShownNote() const { return m_notShown; }
    /// The message shown is no longer in the file (a read found nothing).
    bool isGone() const { return m_gone; }
    /// The line above the payload as shown (what it is, or why not shown).
    QString payloadNoteText() const;

    QString messageId() const { return m_messageId; }
    QString payloadText() const;
    /// The text of one field label ("id", "status", "claim", "key", "enqueued",
    /// "claimed", "finished", "wait", "processing", "total", "age", "size",
    /// and the format fields by QueueFormat::fieldKey: "queue", "job",
    /// "priority", "attempts", "scheduled", "lease", "stored_status";
    /// "concurrency" the concurrency key; "error" is the error box's text,
    /// "" when hidden).
    QString fieldText(const QString& field) const;
    /// The label of field `field` as shown ("Claim lapses:", "Expires:").
    QString fieldTitle(const QString& field) const;
    bool isLoading() const { return m_loading; }
    /// The view shown (text or bytes) is cut at its limit.
    bool isTruncated() const { return m_truncated; }
    /// The payload is a BLOB of UTF-8 text: shown as text, "Bytes" shows
    /// its hex dump.
    bool isTextBlob() const { return m_textBlob; }
    /// The hex dump of a text BLOB is shown instead of its text.
    bool showsBytes() const;

signals:
    void errorOccurred(const QString& message);

private:
    struct Payload;
    /// The payload `d` as the pane shows it: text (pretty JSON) or a hex
    /// dump. `decode`: a BLOB may be shown as text when it is UTF-8 text;
    /// `all`: not cut at the limits (`allBytes`: nor the dump of a text
    /// BLOB); `prefix`: `d` is the start of a longer payload (a character
    /// cut at its end is not a reason for bytes).
    static Payload renderPayload(const std::string& d, bool blob, bool decode, bool all,
                                 bool allBytes, bool prefix);
    void updatePayloadNote();
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
    void applyPayload(const Payload& p, bool final);
    /// Shows the text or the bytes of a text BLOB, with its note.
    void showPayloadView();
    void savePayload();
    void refreshTimes();
    void refreshStatus();
    /// Reads the message shown again (it left the table).
    void recheck();

    std::shared_ptr<core::QueueBackend> m_backend;
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
    QPushButton* m_showBytes;
    QString m_messageId;
    QString m_notShown;
    quint64 m_fingerprint = 0;
    std::optional<MessageRow> m_row;
    std::shared_ptr<const std::string> m_full; ///< the whole payload once read
    bool m_fullIsBlob = false;
    bool m_loading = false;
    bool m_truncated = false;
    quint64 m_generation = 0;
    quint64 m_recheckGeneration = 0; ///< the message shown, shown anew (showRow())
    bool m_recheckBusy = false;      ///< a read of recheck() is under way
    bool m_recheckAgain = false;     ///< recheck() was asked for meanwhile
    bool m_gone = false;             ///< the message shown is no longer in the file
    bool m_textBlob = false;         ///< a BLOB of UTF-8 text (m_bytesText has its dump)
    bool m_pretty = false;           ///< m_text is JSON, indented
    bool m_textTruncated = false;
    bool m_bytesTruncated = false;
    qint64 m_textShown = 0;         ///< payload bytes m_text shows (when cut)
    qint64 m_bytesShown = 0;        ///< payload bytes m_bytesText shows (when cut)
    QString m_text;                 ///< the payload as text (or the hex dump of other BLOBs)
    QString m_bytesText;            ///< the hex dump of a text BLOB
    QString m_payloadError;         ///< what reading the payload said
    QString m_loadingNote;          ///< the payload line while the worker reads
    bool m_concurrencyKeys = false; ///< a message of this queue had a concurrency key
    QString m_leaseTitle;           ///< the format's label of the lease expiry
    QString m_leaseTip;
};

} // namespace lq::ui
