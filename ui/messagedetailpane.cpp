// SPDX-License-Identifier: MIT
#include "ui/messagedetailpane.h"

#include "core/formats/queueformat.h"

#include "ui/queuebackend.h"
#include "ui/runasync.h"
#include "ui/uitext.h"

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
#include <QSplitter>
#include <QTextDocument>
#include <QTimer>
#include <QVBoxLayout>

#include <utility>

namespace lq::ui {

using core::TimeNs;

struct MessageDetailPane::Payload {
    quint64 generation = 0;
    QString text;
    bool truncated = false;
    bool pretty = false;
    bool blob = false;
    std::shared_ptr<const std::string> full;
    QString error;
};

namespace {

QString hexDump(const std::string& data, std::size_t limit) {
    QString out;
    const std::size_t n = std::min(data.size(), limit);
    for (std::size_t off = 0; off < n; off += 16) {
        out += QStringLiteral("%1  ").arg(qulonglong(off), 8, 16, QLatin1Char('0'));
        for (std::size_t i = off; i < std::min(n, off + 16); ++i) {
            out += QStringLiteral("%1 ").arg(uint(static_cast<unsigned char>(data[i])), 2, 16,
                                             QLatin1Char('0'));
        }
        out += u'\n';
    }
    return out;
}

} // namespace

MessageDetailPane::MessageDetailPane(QWidget* parent)
    : QWidget(parent) {
    // Fields on the left (two label/value pairs per line), payload on the
    // right: fits a wide, short dock under the table.
    auto* outer = new QHBoxLayout(this);
    outer->setContentsMargins(6, 4, 6, 4);
    m_grid = new QGridLayout;
    m_grid->setHorizontalSpacing(8);
    m_grid->setVerticalSpacing(3);
    // In display order; the format's own fields (queue, job, ...) among
    // litequeue's, shown only where the format declares them.
    const std::pair<const char*, QString> fields[] = {
        {"id", tr("Message id")},
        {"status", tr("Status")},
        {"queue", tr("Queue")},
        {"job", tr("Job")},
        {"claim", tr("Claim token")},
        {"stored_status", tr("Stored state")},
        {"priority", tr("Priority")},
        {"attempts", tr("Attempts")},
        {"key", tr("Idempotency key")},
        {"enqueued", tr("Enqueued")},
        {"scheduled", tr("Scheduled at")},
        {"claimed", tr("Claimed")},
        {"lease", tr("Lease expiry")},
        {"finished", tr("Finished")},
        {"size", tr("Payload size")},
        {"wait", tr("Wait")},
        {"processing", tr("Processing")},
        {"total", tr("Total")},
        {"age", tr("Age")},
        {"runat", tr("Run at")},
        {"lockeduntil", tr("Locked until")},
    };
    for (const auto& [key, title] : fields) {
        addField(QString::fromLatin1(key), title);
    }
    auto* left = new QWidget(this);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addLayout(m_grid);
    // The error and backtrace of a failed job: plain text, monospace.
    m_errorTitle = new QLabel(tr("Error:"), this);
    m_errorTitle->setObjectName(QStringLiteral("errorTitle"));
    m_error = new QPlainTextEdit(this);
    m_error->setObjectName(QStringLiteral("errorText"));
    m_error->setAccessibleName(tr("Error"));
    m_error->setReadOnly(true);
    m_error->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_error->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    leftLayout->addStretch(1);
    m_errorBox = new QWidget(this);
    auto* errorLayout = new QVBoxLayout(m_errorBox);
    errorLayout->setContentsMargins(0, 0, 0, 0);
    errorLayout->setSpacing(2);
    errorLayout->addWidget(m_errorTitle);
    errorLayout->addWidget(m_error, 1);
    // Long values wrap; when the dock is short, the fields scroll instead of
    // being cut at its bottom edge.
    auto* scroll = new QScrollArea(this);
    scroll->setObjectName(QStringLiteral("fieldsScroll"));
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setWidgetResizable(true);
    scroll->setWidget(left);
    outer->addWidget(scroll, 1);
    layoutFields();

    auto* right = new QVBoxLayout;
    auto* buttons = new QHBoxLayout;
    m_copyId = new QPushButton(tr("Copy id"), this);
    m_copyPayload = new QPushButton(tr("Copy payload"), this);
    m_loadAll = new QPushButton(tr("Load all"), this);
    m_saveAs = new QPushButton(tr("Save as\u2026"), this);
    m_copyId->setObjectName(QStringLiteral("copyId"));
    m_copyPayload->setObjectName(QStringLiteral("copyPayload"));
    m_loadAll->setObjectName(QStringLiteral("loadAll"));
    m_saveAs->setObjectName(QStringLiteral("saveAs"));
    m_payloadNote = new QLabel(this);
    m_payloadNote->setTextFormat(Qt::PlainText);
    m_payloadNote->setObjectName(QStringLiteral("payloadNote"));
    // A long note must not hold the pane (and the window) wide.
    m_payloadNote->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_payloadNote->setMinimumWidth(40);
    buttons->addWidget(m_payloadNote, 1);
    buttons->addWidget(m_loadAll);
    buttons->addWidget(m_saveAs);
    buttons->addWidget(m_copyId);
    buttons->addWidget(m_copyPayload);
    right->addLayout(buttons);

    m_payload = new QPlainTextEdit(this);
    m_payload->setAccessibleName(tr("Payload"));
    m_payload->setObjectName(QStringLiteral("payloadText"));
    m_payload->setReadOnly(true);
    m_payload->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    m_payload->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    // The payload, and under it the error of a failed job.
    auto* split = new QSplitter(Qt::Vertical, this);
    split->setChildrenCollapsible(false);
    split->addWidget(m_payload);
    split->addWidget(m_errorBox);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    right->addWidget(split, 1);
    outer->addLayout(right, 1);

    connect(m_copyId, &QPushButton::clicked, this,
            [this] { QApplication::clipboard()->setText(m_messageId); });
    connect(m_copyPayload, &QPushButton::clicked, this, [this] {
        if (m_full && !m_fullIsBlob) {
            QApplication::clipboard()->setText(fromStd(*m_full));
        } else {
            QApplication::clipboard()->setText(m_payload->toPlainText());
        }
    });
    connect(m_loadAll, &QPushButton::clicked, this, [this] { loadPayload(true); });
    connect(m_saveAs, &QPushButton::clicked, this, &MessageDetailPane::savePayload);
    showRow(nullptr);
}

QLabel* MessageDetailPane::addField(const QString& key, const QString& title) {
    auto* label = new QLabel(this);
    label->setObjectName(QStringLiteral("field_") + key);
    label->setTextFormat(Qt::PlainText); // values come from the file
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label->setMinimumWidth(60);
    label->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    // A long value ("LOCKED — locked_expired — stuck: locked for 3 h") wraps
    // at the column edge instead of being cut; the tooltip has it whole.
    label->setWordWrap(true);
    label->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    auto* titleLabel = new QLabel(title + u':', this);
    titleLabel->setAlignment(Qt::AlignRight | Qt::AlignTop);
    QPalette pal = titleLabel->palette();
    pal.setColor(QPalette::WindowText, pal.color(QPalette::PlaceholderText));
    titleLabel->setPalette(pal);
    m_fields.insert(key, label);
    m_titles.insert(key, titleLabel);
    m_order << key;
    return label;
}

bool MessageDetailPane::shows(const QString& key) const {
    using Field = core::QueueFormat::Field;
    const core::QueueFormat* f = m_backend ? &core::QueueFormat::of(m_backend->info()) : nullptr;
    const bool declares = f && !f->fields().empty();
    for (int i = 0; i < core::QueueFormat::kFieldCount; ++i) {
        const auto field = Field(i);
        if (key == QLatin1String(core::QueueFormat::fieldKey(field))) {
            return f && f->hasField(field);
        }
    }
    if (key == QLatin1String("runat") || key == QLatin1String("lockeduntil")) {
        // run_at/locked_until; formats that declare fields show theirs.
        return f && f->hasSchedule() && !declares;
    }
    if (key == QLatin1String("key")) {
        return !f || f->hasKeys(m_backend->info());
    }
    // The latency rows where the format stores what they read, as the
    // table's columns and the dashboard decide.
    using Metric = core::Filter::Metric;
    const std::pair<const char*, Metric> latency[] = {
        {"wait", Metric::Wait}, {"processing", Metric::Processing}, {"total", Metric::Total}};
    for (const auto& [name, metric] : latency) {
        if (key == QLatin1String(name)) {
            return !f || f->storesMetric(metric, m_backend->info());
        }
    }
    return true;
}

void MessageDetailPane::layoutFields() {
    // Two label/value pairs per line, the fields this format has only. The
    // grid is rebuilt only when that set changes (opening another file of
    // the same format keeps it: a rebuild relays the window out).
    QStringList shown;
    for (const QString& key : std::as_const(m_order)) {
        if (shows(key)) {
            shown << key;
        }
    }
    if (shown != m_shownFields) {
        m_shownFields = shown;
        for (const QString& key : std::as_const(m_order)) {
            m_grid->removeWidget(m_titles.value(key));
            m_grid->removeWidget(m_fields.value(key));
        }
        int i = 0;
        for (const QString& key : std::as_const(m_order)) {
            const bool on = shown.contains(key);
            m_titles.value(key)->setVisible(on);
            m_fields.value(key)->setVisible(on);
            if (!on) {
                continue;
            }
            m_grid->addWidget(m_titles.value(key), i / 2, (i % 2) * 2);
            m_grid->addWidget(m_fields.value(key), i / 2, (i % 2) * 2 + 1);
            ++i;
        }
        m_grid->setColumnStretch(1, 1);
        m_grid->setColumnStretch(3, 1);
    }
    // Labels: the format's names for its fields ("Class", "Allocation id").
    const core::QueueFormat* f = m_backend ? &core::QueueFormat::of(m_backend->info()) : nullptr;
    for (int k = 0; k < core::QueueFormat::kFieldCount; ++k) {
        const auto field = core::QueueFormat::Field(k);
        const QString key = field == core::QueueFormat::Field::Token
                                ? QStringLiteral("claim")
                                : QString::fromLatin1(core::QueueFormat::fieldKey(field));
        if (QLabel* t = m_titles.value(key)) {
            const bool own = f && f->hasField(field);
            t->setText((own ? fromStd(f->fieldLabel(field))
                        : key == QLatin1String("claim")
                            ? tr("Claim token")
                            : fromStd(core::QueueFormat::defaultFieldLabel(field))) +
                       u':');
            t->setToolTip(own ? fromStd(f->fieldDescription(field)) : QString());
        }
    }
    const bool errors = f && f->hasField(core::QueueFormat::Field::Error);
    if (errors) {
        m_errorTitle->setText(fromStd(f->fieldLabel(core::QueueFormat::Field::Error)) + u':');
    }
    m_errorBox->setVisible(false);
}

void MessageDetailPane::setField(const QString& key, const QString& text, const QString& exact) {
    QLabel* l = m_fields.value(key);
    if (!l) {
        return;
    }
    l->setText(text.isEmpty() ? QStringLiteral("\u2014") : text);
    // The whole value, also where a word longer than the column is cut.
    const QString whole = text.isEmpty() || text == exact ? exact
                          : exact.isEmpty()               ? text
                                                          : text + u'\n' + exact;
    l->setToolTip(whole.isEmpty() ? QString() : plainToolTip(whole));
}

QString MessageDetailPane::fieldText(const QString& field) const {
    if (field == QLatin1String("error")) {
        return m_errorBox->isVisibleTo(this) ? m_error->toPlainText() : QString();
    }
    QLabel* l = m_fields.value(field);
    return l ? l->text() : QString();
}

QString MessageDetailPane::payloadText() const {
    return m_payload->toPlainText();
}

void MessageDetailPane::setBackend(std::shared_ptr<QueueBackend> backend) {
    m_backend = std::move(backend);
    showRow(nullptr);
    // The fields this format has (info() is fixed at open), in a turn of the
    // event loop of their own: the open's first rows come in this one. A
    // timer, not a queued call (singleShot(0) is one): those run in the same
    // batch of posted events. A row shown before then lays them out first.
    m_fieldsStale = true;
    QTimer::singleShot(1, this, [this] { ensureFieldsLaidOut(); });
}

void MessageDetailPane::ensureFieldsLaidOut() {
    if (std::exchange(m_fieldsStale, false)) {
        layoutFields();
    }
}

void MessageDetailPane::setUtc(bool utc) {
    m_utc = utc;
    refreshTimes();
}

void MessageDetailPane::showRow(const MessageRow* row) {
    if (row) {
        ensureFieldsLaidOut();
    }
    const bool enabled = row != nullptr;
    m_copyId->setEnabled(enabled);
    m_copyPayload->setEnabled(enabled);
    m_saveAs->setEnabled(enabled);
    // A message marked as gone that comes back unchanged (a filter there and
    // back, a sort) needs its payload line again: the mark replaced it.
    const bool wasMarked = !std::exchange(m_notShown, QString()).isEmpty();
    if (!row) {
        ++m_generation;
        m_row.reset();
        m_messageId.clear();
        m_fingerprint = 0;
        m_full.reset();
        m_loading = false;
        m_truncated = false;
        // Only what shows something: every table reset comes here, and a
        // cleared label asks the whole window to lay itself out again.
        for (QLabel* l : std::as_const(m_fields)) {
            if (!l->text().isEmpty()) {
                l->clear();
            }
            if (!l->toolTip().isEmpty()) {
                l->setToolTip({});
            }
        }
        if (!m_payload->document()->isEmpty()) {
            m_payload->clear();
        }
        if (!m_error->document()->isEmpty()) {
            m_error->clear();
        }
        m_errorBox->setVisible(false);
        m_payloadNote->setText(tr("Select a message to see its details."));
        m_loadAll->setVisible(false);
        return;
    }
    const QString id = fromStd(row->msg.messageId);
    const bool same = id == m_messageId && row->fingerprint == m_fingerprint;
    m_row = *row;
    m_messageId = id;
    m_fingerprint = row->fingerprint;
    refreshTimes();
    if (!same || wasMarked) {
        loadPayload(false);
    }
}

QString MessageDetailPane::payloadNoteText() const {
    return m_payloadNote->text();
}

void MessageDetailPane::markNotShown(const QString& why) {
    if (m_messageId.isEmpty() || m_notShown == why) {
        return;
    }
    m_notShown = why;
    if (QLabel* status = m_fields.value(QStringLiteral("status"))) {
        status->setText(status->text() + QStringLiteral("  \u2014 ") + why);
    }
    m_payloadNote->setText(why);
}

void MessageDetailPane::setStuckThresholdSeconds(int seconds) {
    m_stuckNs = core::TimeNs(seconds) * core::kNsPerSecond;
    refreshTimes();
}

void MessageDetailPane::refreshTimes() {
    if (!m_row) {
        return;
    }
    const core::Message& m = m_row->msg;
    const TimeNs now = core::systemNowNs();
    setField(QStringLiteral("id"), fromStd(m.messageId));
    QString status = stateText(m);
    if (!m.extraState.empty() && m.state != core::State::Unknown) {
        status += QStringLiteral(" \u2014 ") + fromStd(m.extraState);
    }
    if (const auto lockAge = m.lockAgeNs(now); m.isStuck(now, m_stuckNs) && lockAge) {
        status +=
            QStringLiteral("  \u2014 ") + tr("stuck: locked for %1").arg(humanDuration(*lockAge));
    }
    setField(QStringLiteral("status"), status, tr("stored status value %1").arg(m.rawStatus));
    if (m.tokenText) {
        setField(QStringLiteral("claim"), visibleText(*m.tokenText),
                 tr("compared as %1").arg(m.token));
    } else {
        setField(QStringLiteral("claim"), QString::number(m.token),
                 tr("claim_id %1, attempts %2").arg(m.claimId).arg(m.attempts));
    }
    const auto text = [](const std::optional<std::string>& v) {
        return v ? fromStd(*v) : QString();
    };
    setField(QStringLiteral("queue"), text(m.queueName));
    setField(QStringLiteral("job"), text(m.jobName));
    setField(QStringLiteral("stored_status"), fromStd(m.statusText));
    setField(QStringLiteral("priority"), m.priority ? QString::number(*m.priority) : QString());
    setField(QStringLiteral("attempts"), m.maxAttempts
                                             ? tr("%1 of %2").arg(m.attempts).arg(*m.maxAttempts)
                                             : QString::number(m.attempts));
    const bool hasError = m.lastError.has_value() && shows(QStringLiteral("error"));
    m_errorBox->setVisible(hasError);
    if (hasError) {
        const QString e = readableError(*m.lastError);
        if (m_error->toPlainText() != e) {
            m_error->setPlainText(e);
        }
    } else {
        m_error->clear();
    }
    setField(QStringLiteral("key"), m.idempotencyKey ? fromStd(*m.idempotencyKey) : QString());
    auto instant = [&](const QString& key, const std::optional<TimeNs>& t) {
        const auto ago = t ? core::diffNs(now, *t) : std::nullopt;
        QString when;
        if (ago && *ago >= 0) {
            when = QStringLiteral("  (") + humanDuration(*ago) + tr(" ago") + u')';
        } else if (ago) {
            when = QStringLiteral("  (") + tr("in %1").arg(humanDuration(-*ago)) + u')';
        }
        setField(key, t ? formatInstant(*t, m_utc) + when : QString(),
                 t ? exactInstant(*t) : QString());
    };
    instant(QStringLiteral("enqueued"), m.inTime);
    instant(QStringLiteral("claimed"), m.lockTime);
    instant(QStringLiteral("finished"), m.doneTime);
    instant(QStringLiteral("runat"), m.runAt);
    instant(QStringLiteral("lockeduntil"), m.lockedUntil);
    instant(QStringLiteral("scheduled"), m.scheduledAt);
    instant(QStringLiteral("lease"), m.leaseExpiry);
    auto duration = [&](const QString& key, const std::optional<TimeNs>& d) {
        setField(key, d ? humanDuration(*d) : QString(), d ? exactDuration(*d) : QString());
    };
    duration(QStringLiteral("wait"), m.waitNs());
    duration(QStringLiteral("processing"), m.processingNs());
    duration(QStringLiteral("total"), m.totalNs());
    if (m.state == core::State::Locked || m.state == core::State::Leased) {
        m_titles.value(QStringLiteral("age"))->setText(tr("Lock age:"));
        duration(QStringLiteral("age"), m.lockAgeNs(now));
    } else {
        m_titles.value(QStringLiteral("age"))->setText(tr("Age:"));
        duration(QStringLiteral("age"), m.ageNs(now));
    }
    setField(QStringLiteral("size"),
             humanBytes(m_row->dataBytes) + (m.dataIsBlob ? tr(" (BLOB)") : QString()),
             tr("%1 bytes").arg(m_row->dataBytes));
}

void MessageDetailPane::loadPayload(bool all) {
    if (!m_row) {
        return;
    }
    const quint64 gen = ++m_generation;
    m_loading = true;
    m_loadAll->setVisible(false);
    // The cached prefix is shown at once; the worker replaces it.
    if (!all) {
        m_payload->setPlainText(m_row->msg.dataIsBlob
                                    ? hexDump(m_row->msg.data, m_row->msg.data.size())
                                    : fromStd(m_row->msg.data));
        m_payloadNote->setText(m_row->dataBytes > qint64(m_row->msg.data.size())
                                   ? tr("Loading the payload\u2026")
                                   : QString());
    }
    auto q = m_backend;
    std::shared_ptr<const std::string> have = all ? m_full : nullptr;
    auto work = [q, id = m_row->msg.messageId, all, gen, have, blobHint = m_row->msg.dataIsBlob,
                 cached = m_row->msg.data, bytes = m_row->dataBytes]() -> Payload {
        Payload p;
        p.generation = gen;
        try {
            std::shared_ptr<const std::string> full = have;
            bool blob = blobHint;
            if (!full) {
                if (bytes <= qint64(cached.size()) || !q) {
                    full = std::make_shared<const std::string>(cached);
                } else {
                    auto m = q->get(id);
                    if (!m) {
                        p.error = QObject::tr("The message is no longer in the file.");
                        full = std::make_shared<const std::string>(cached);
                    } else {
                        blob = m->dataIsBlob;
                        full = std::make_shared<const std::string>(std::move(m->data));
                    }
                }
            }
            p.full = full;
            p.blob = blob;
            const std::string& d = *full;
            if (blob) {
                const std::size_t limit = all ? d.size() : std::size_t(kPayloadLimit / 4);
                p.text = hexDump(d, limit);
                p.truncated = limit < d.size();
            } else if (!all && qint64(d.size()) > kPayloadLimit) {
                p.text = QString::fromUtf8(d.data(), qsizetype(kPayloadLimit));
                p.truncated = true;
            } else {
                const QByteArray bytesView = QByteArray::fromRawData(d.data(), qsizetype(d.size()));
                QJsonParseError err{};
                const QJsonDocument doc = QJsonDocument::fromJson(bytesView, &err);
                if (err.error == QJsonParseError::NoError && (doc.isObject() || doc.isArray())) {
                    p.text = QString::fromUtf8(doc.toJson(QJsonDocument::Indented));
                    p.pretty = true;
                } else {
                    p.text = fromStd(d);
                }
            }
        } catch (const std::exception& e) {
            p.error = QString::fromUtf8(e.what());
        }
        return p;
    };
    runAsync(this, std::move(work), [this](const Payload& p) {
        if (p.generation != m_generation) {
            return;
        }
        m_loading = false;
        m_full = p.full;
        m_fullIsBlob = p.blob;
        m_truncated = p.truncated;
        m_payload->setPlainText(p.text);
        QStringList notes;
        if (!p.error.isEmpty()) {
            notes << p.error;
            emit errorOccurred(p.error);
        }
        if (p.truncated) {
            notes << tr("Showing the first %1 of %2.")
                         .arg(humanBytes(kPayloadLimit),
                              humanBytes(qint64(p.full ? p.full->size() : 0)));
        }
        if (p.pretty) {
            notes << tr("JSON, shown indented.");
        }
        if (m_row && m_row->msg.dataNote) {
            notes << fromStd(*m_row->msg.dataNote);
        } else if (p.blob) {
            notes << tr("Bytes (BLOB), shown in hex; never decoded.");
        }
        m_payloadNote->setText(notes.join(u' '));
        m_loadAll->setVisible(p.truncated);
    });
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
