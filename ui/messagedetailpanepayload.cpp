// SPDX-License-Identifier: MIT
// MessageDetailPane, its payload: read in a worker, shown as text, pretty
// JSON or a hex dump, cut at its limits with Load all, saved as a file.
#include "ui/messagedetailpane.h"

#include "core/formats/queueformat.h"
#include "core/json.h"

#include "core/backend.h"
#include "ui/runasync.h"
#include "ui/uitext.h"

#include <QAbstractButton>
#include <QApplication>
#include <QClipboard>
#include <QFile>
#include <QFileDialog>
#include <QFontDatabase>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSplitter>
#include <QTextDocument>
#include <QTimer>
#include <QVBoxLayout>

#include <string_view>
#include <utility>

namespace lq::ui {

struct MessageDetailPane::Payload {
    quint64 generation = 0;
    QString text;  ///< the text view, or the hex dump of a BLOB that is not text
    QString bytes; ///< the hex dump of a BLOB of UTF-8 text (textBlob)
    bool truncated = false;
    bool bytesTruncated = false;
    qint64 textShown = 0;  ///< payload bytes `text` shows when truncated
    qint64 bytesShown = 0; ///< payload bytes `bytes` shows when bytesTruncated
    bool pretty = false;
    bool blob = false;
    bool textBlob = false;
    bool gone = false; ///< the message is no longer in the file
    std::shared_ptr<const std::string> full;
    QString error;
};

namespace {

/// The classic hex dump (hexdump -C): the offset, 16 bytes in hex in two
/// groups of 8, then the same bytes as characters, '.' for every byte that
/// is not printable ASCII. Plain text, one line per 16 bytes.
QString hexDump(const std::string& data, std::size_t limit) {
    static constexpr char kHex[] = "0123456789abcdef";
    const std::size_t n = std::min(data.size(), limit);
    QString out;
    const std::size_t lines = (n + 15) / 16;
    out.reserve(qsizetype(lines) * 80);
    char line[128];
    for (std::size_t off = 0; off < n; off += 16) {
        std::size_t k = 0;
        int digits = 8;
        while (digits < 16 && (off >> (4 * digits)) != 0) {
            ++digits;
        }
        for (int d = digits - 1; d >= 0; --d) {
            line[k++] = kHex[(off >> (4 * d)) & 0xf];
        }
        line[k++] = ' ';
        line[k++] = ' ';
        const std::size_t end = std::min(n, off + 16);
        for (std::size_t i = off; i < off + 16; ++i) {
            if (i < end) {
                const auto c = static_cast<unsigned char>(data[i]);
                line[k++] = kHex[c >> 4];
                line[k++] = kHex[c & 0xf];
            } else {
                line[k++] = ' ';
                line[k++] = ' ';
            }
            line[k++] = ' ';
            if (i == off + 7) {
                line[k++] = ' ';
            }
        }
        line[k++] = ' ';
        line[k++] = '|';
        for (std::size_t i = off; i < end; ++i) {
            const auto c = static_cast<unsigned char>(data[i]);
            line[k++] = c >= 0x20 && c < 0x7f ? char(c) : '.';
        }
        line[k++] = '|';
        line[k++] = '\n';
        out.append(QLatin1String(line, qsizetype(k)));
    }
    return out;
}

} // namespace

MessageDetailPane::Payload MessageDetailPane::renderPayload(const std::string& d, bool blob,
                                                            bool decode, bool all, bool allBytes,
                                                            bool prefix) {
    Payload p;
    p.blob = blob;
    if (blob) {
        const std::size_t cut = std::min(d.size(), std::size_t(kPayloadLimit / 4));
        if (!decode || !isUtf8Text(d, prefix)) {
            const std::size_t limit = all ? d.size() : cut;
            p.text = hexDump(d, limit);
            p.truncated = limit < d.size();
            p.textShown = qint64(limit);
            return p;
        }
        // UTF-8 text stored as a BLOB (goqite's and backlite's JSON bodies):
        // shown as text, its dump kept for "Bytes" (all of it only when it
        // is the view asked for: five characters a byte).
        const std::size_t limit = allBytes ? d.size() : cut;
        p.textBlob = true;
        p.bytes = hexDump(d, limit);
        p.bytesTruncated = limit < d.size();
        p.bytesShown = qint64(limit);
    }
    if (!all && qint64(d.size()) > kPayloadLimit) {
        p.text = QString::fromUtf8(d.data(), qsizetype(kPayloadLimit));
        p.truncated = true;
        p.textShown = kPayloadLimit;
        return p;
    }
    const QByteArray bytesView = QByteArray::fromRawData(d.data(), qsizetype(d.size()));
    QJsonParseError err{};
    const QJsonDocument doc = QJsonDocument::fromJson(bytesView, &err);
    if (err.error == QJsonParseError::NoError && (doc.isObject() || doc.isArray())) {
        p.text = QString::fromUtf8(doc.toJson(QJsonDocument::Indented));
        p.pretty = true;
    } else {
        p.text = fromStd(d);
    }
    return p;
}

void MessageDetailPane::loadPayload(bool all) {
    if (!m_row) {
        return;
    }
    const quint64 gen = ++m_generation;
    m_loading = true;
    m_loadAll->setVisible(false);
    // A damaged value the format shows as bytes is never decoded here.
    const bool decode = !m_row->msg.dataNote.has_value();
    // The cached prefix is shown at once; the worker replaces it.
    if (!all) {
        const bool prefix = m_row->dataBytes > qint64(m_row->msg.data.size());
        applyPayload(
            renderPayload(m_row->msg.data, m_row->msg.dataIsBlob, decode, false, false, prefix),
            false);
        m_loadingNote = prefix ? tr("Loading the payload\u2026") : QString();
        updatePayloadNote();
    }
    auto q = m_backend;
    std::shared_ptr<const std::string> have = all ? m_full : nullptr;
    auto work = [q, id = m_row->msg.messageId, all, allBytes = all && showsBytes(), gen, have,
                 blobHint = m_row->msg.dataIsBlob, decode, cached = m_row->msg.data,
                 bytes = m_row->dataBytes]() -> Payload {
        Payload p;
        try {
            std::shared_ptr<const std::string> full = have;
            bool blob = blobHint;
            bool gone = false;
            QString error;
            if (!full) {
                if (bytes <= qint64(cached.size()) || !q) {
                    full = std::make_shared<const std::string>(cached);
                } else {
                    auto m = q->get(id);
                    if (!m) {
                        error = QObject::tr("The message is no longer in the file.");
                        gone = true;
                        full = std::make_shared<const std::string>(cached);
                    } else {
                        blob = m->dataIsBlob;
                        full = std::make_shared<const std::string>(std::move(m->data));
                    }
                }
            }
            p = renderPayload(*full, blob, decode, all, allBytes, gone);
            p.full = full;
            p.gone = gone;
            p.error = error;
        } catch (const std::exception& e) {
            p.error = QString::fromUtf8(e.what());
        }
        p.generation = gen;
        return p;
    };
    runAsync(this, std::move(work), [this](const Payload& p) {
        if (p.generation != m_generation) {
            return;
        }
        m_loading = false;
        m_full = p.full;
        m_fullIsBlob = p.blob;
        if (!p.error.isEmpty()) {
            emit errorOccurred(p.error);
        }
        if (p.gone && !m_gone) {
            m_gone = true;
            refreshStatus();
        }
        applyPayload(p, true);
    });
}

void MessageDetailPane::applyPayload(const Payload& p, bool final) {
    m_textBlob = p.textBlob;
    m_pretty = p.pretty;
    m_textTruncated = p.truncated;
    m_bytesTruncated = p.bytesTruncated;
    m_textShown = p.textShown;
    m_bytesShown = p.bytesShown;
    if (final) {
        m_payloadError = p.error;
    } else {
        m_payloadError.clear();
    }
    if (!m_textBlob && m_showBytes->isChecked()) {
        const QSignalBlocker block(m_showBytes);
        m_showBytes->setChecked(false);
    }
    m_showBytes->setVisible(m_textBlob);
    const bool bytes = showsBytes();
    m_payload->setPlainText(bytes ? p.bytes : p.text);
    m_truncated = bytes ? m_bytesTruncated : m_textTruncated;
    // Both views are kept only where "Bytes" switches between them.
    m_text = m_textBlob ? p.text : QString();
    m_bytesText = m_textBlob ? p.bytes : QString();
    updatePayloadNote();
}

bool MessageDetailPane::showsBytes() const {
    return m_textBlob && m_showBytes->isChecked();
}

void MessageDetailPane::showPayloadView() {
    const bool bytes = showsBytes();
    m_payload->setPlainText(bytes ? m_bytesText : m_text);
    m_truncated = bytes ? m_bytesTruncated : m_textTruncated;
    updatePayloadNote();
}

void MessageDetailPane::updatePayloadNote() {
    if (!m_row) {
        return;
    }
    QString note;
    if (m_gone) {
        note = tr("Deleted from the file: shown as last read.");
    } else if (!m_notShown.isEmpty()) {
        note = m_notShown;
    } else if (m_loading) {
        note = m_loadingNote;
    } else {
        const bool bytes = showsBytes();
        QStringList notes;
        if (!m_payloadError.isEmpty()) {
            notes << m_payloadError;
        }
        if (m_truncated) {
            notes << tr("Showing the first %1 of %2.")
                         .arg(humanBytes(bytes ? m_bytesShown : m_textShown),
                              humanBytes(qint64(m_full ? m_full->size() : 0)));
        }
        // What the bytes are first: the line is cut where the pane is narrow.
        if (m_row->msg.dataNote) {
            notes << fromStd(*m_row->msg.dataNote);
        } else if (m_textBlob) {
            notes << (bytes ? tr("Bytes (BLOB), valid UTF-8: shown in hex.")
                            : tr("Bytes (BLOB), valid UTF-8: shown as text."));
        } else if (m_fullIsBlob) {
            notes << tr("Bytes (BLOB), not UTF-8 text: shown in hex; never decoded.");
        }
        if (m_pretty && !bytes) {
            notes << tr("JSON, shown indented.");
        }
        note = notes.join(u' ');
    }
    m_payloadNote->setText(note);
    m_payloadNote->setToolTip(note.isEmpty() ? QString() : plainToolTip(note));
    m_loadAll->setVisible(!m_loading && m_truncated);
}

void MessageDetailPane::savePayload() {
    if (!m_row) {
        return;
    }
    const QString fileName = QFileDialog::getSaveFileName(this, tr("Save payload"),
                                                          m_messageId + QStringLiteral(".txt"));
    if (fileName.isEmpty()) {
        return;
    }
    auto work = [q = m_backend, id = m_row->msg.messageId, full = m_full, fileName]() -> QString {
        try {
            std::shared_ptr<const std::string> bytes = full;
            if (!bytes) {
                auto m = q ? q->get(id) : std::nullopt;
                if (!m) {
                    return QObject::tr("The message is no longer in the file.");
                }
                bytes = std::make_shared<const std::string>(std::move(m->data));
            }
            QFile f(fileName);
            if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
                return QObject::tr("%1: %2").arg(fileName, f.errorString());
            }
            if (f.write(bytes->data(), qint64(bytes->size())) != qint64(bytes->size())) {
                return QObject::tr("%1: %2").arg(fileName, f.errorString());
            }
            return {};
        } catch (const std::exception& e) {
            return QString::fromUtf8(e.what());
        }
    };
    runAsync(this, std::move(work), [this](const QString& error) {
        if (!error.isEmpty()) {
            emit errorOccurred(error);
        }
    });
}

} // namespace lq::ui
