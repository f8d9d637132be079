// SPDX-License-Identifier: MIT
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

using core::TimeNs;

namespace {

/// A concurrency key among the stored values a format keeps of a row
/// (Message::formatRow, JSON): the jobs sharing it share a concurrency
/// limit. "" when the row has none.
QString concurrencyKey(const core::Message& m) {
    if (!m.formatRow || m.formatRow->find("concurrency_key") == std::string::npos) {
        return {};
    }
    const QJsonDocument doc = QJsonDocument::fromJson(
        QByteArray::fromRawData(m.formatRow->data(), qsizetype(m.formatRow->size())));
    const QString name = QStringLiteral("concurrency_key");
    const auto keyOf = [&name](const QJsonObject& o) {
        const QJsonValue v = o.value(name);
        return v.isString() ? v.toString() : QString();
    };
    const QJsonObject row = doc.object();
    QString key = keyOf(row);
    // Else the first of its parts (objects, in key order) that has one.
    for (auto it = row.begin(); key.isEmpty() && it != row.end(); ++it) {
        if (it.value().isObject()) {
            key = keyOf(it.value().toObject());
        }
    }
    return key;
}

/// The Status of a message as last read.
QString stateLine(const core::Message& m, const core::QueueFormat* format, core::TimeNs now,
                  core::TimeNs stuckNs) {
    QString status = stateText(m, format);
    if (!m.extraState.empty() && m.state != core::State::Unknown) {
        status += QStringLiteral(" \u2014 ") + fromStd(m.extraState);
    }
    if (const auto lockAge = m.lockAgeNs(now); m.isStuck(now, stuckNs) && lockAge) {
        status += QStringLiteral("  \u2014 ") +
                  MessageDetailPane::tr("stuck: locked for %1").arg(humanDuration(*lockAge));
    }
    return status;
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
        {"concurrency", tr("Concurrency key")},
        {"finished", tr("Finished")},
        {"size", tr("Payload size")},
        {"wait", tr("Wait")},
        {"processing", tr("Processing")},
        {"total", tr("Total")},
        {"age", tr("Age")},
    };
    for (const auto& [key, title] : fields) {
        addField(QString::fromLatin1(key), title);
    }
    m_titles.value(QStringLiteral("concurrency"))
        ->setToolTip(tr("The concurrency key as stored: the jobs that share it share a "
                        "concurrency limit"));
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
    // A BLOB of UTF-8 text is shown as text; its bytes are one click away.
    m_showBytes = new QPushButton(tr("Bytes"), this);
    m_showBytes->setObjectName(QStringLiteral("showBytes"));
    m_showBytes->setCheckable(true);
    m_showBytes->setAccessibleName(tr("Show the payload's bytes"));
    m_showBytes->setToolTip(tr("The payload is a BLOB of UTF-8 text, shown as text. Checked: its "
                               "bytes in hex (offset, bytes, characters)."));
    m_showBytes->setVisible(false);
    m_payloadNote = new QLabel(this);
    m_payloadNote->setTextFormat(Qt::PlainText);
    m_payloadNote->setObjectName(QStringLiteral("payloadNote"));
    // A long note must not hold the pane (and the window) wide.
    m_payloadNote->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_payloadNote->setMinimumWidth(40);
    buttons->addWidget(m_payloadNote, 1);
    buttons->addWidget(m_showBytes);
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
        // The payload as stored, not its indented JSON; a BLOB as its dump,
        // a BLOB of text as text unless its bytes are shown.
        if (m_full && (!m_fullIsBlob || (m_textBlob && !showsBytes()))) {
            QApplication::clipboard()->setText(fromStd(*m_full));
        } else {
            QApplication::clipboard()->setText(m_payload->toPlainText());
        }
    });
    connect(m_loadAll, &QPushButton::clicked, this, [this] { loadPayload(true); });
    connect(m_showBytes, &QAbstractButton::toggled, this, [this] { showPayloadView(); });
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
    titleLabel->setObjectName(QStringLiteral("title_") + key);
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
    for (int i = 0; i < core::QueueFormat::kFieldCount; ++i) {
        const auto field = Field(i);
        if (key == QLatin1String(core::QueueFormat::fieldKey(field))) {
            return f && f->hasField(field);
        }
    }
    if (key == QLatin1String("key")) {
        return !f || f->hasKeys(m_backend->info());
    }
    // litequeue's times, where the format stores them.
    using BaseTime = core::QueueFormat::BaseTime;
    const std::pair<const char*, BaseTime> times[] = {{"enqueued", BaseTime::Enqueued},
                                                      {"claimed", BaseTime::Claimed},
                                                      {"finished", BaseTime::Finished}};
    for (const auto& [name, t] : times) {
        if (key == QLatin1String(name)) {
            return !f || f->storesTime(t);
        }
    }
    if (key == QLatin1String("concurrency")) {
        // From the first message of this queue that has one on.
        return m_concurrencyKeys;
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
            if (key == QLatin1String("lease")) {
                m_leaseTitle = t->text();
                m_leaseTip = t->toolTip();
            }
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

QString MessageDetailPane::fieldTitle(const QString& field) const {
    QLabel* l = m_titles.value(field);
    return l ? l->text() : QString();
}

QString MessageDetailPane::payloadText() const {
    return m_payload->toPlainText();
}

void MessageDetailPane::setBackend(std::shared_ptr<core::QueueBackend> backend) {
    m_backend = std::move(backend);
    m_concurrencyKeys = false;
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
    // In the table again: in the file; a read of the marked one is stale.
    const bool wasGone = std::exchange(m_gone, false);
    ++m_recheckGeneration;
    if (!row) {
        ++m_generation;
        m_row.reset();
        m_messageId.clear();
        m_fingerprint = 0;
        m_full.reset();
        m_loading = false;
        m_truncated = false;
        m_textBlob = false;
        m_text.clear();
        m_bytesText.clear();
        m_showBytes->setVisible(false);
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
        if (!m_payloadNote->toolTip().isEmpty()) {
            m_payloadNote->setToolTip({});
        }
        m_loadAll->setVisible(false);
        return;
    }
    const QString id = fromStd(row->msg.messageId);
    const bool same = id == m_messageId && row->fingerprint == m_fingerprint;
    if (id != m_messageId) {
        // Another message: its payload as text first, whatever the last one showed.
        const QSignalBlocker block(m_showBytes);
        m_showBytes->setChecked(false);
    }
    m_row = *row;
    m_messageId = id;
    m_fingerprint = row->fingerprint;
    refreshTimes();
    if (!same || wasMarked || wasGone) {
        loadPayload(false);
    }
}

QString MessageDetailPane::payloadNoteText() const {
    return m_payloadNote->text();
}

void MessageDetailPane::markNotShown(const QString& why) {
    if (m_messageId.isEmpty()) {
        return;
    }
    if (m_notShown != why) {
        m_notShown = why;
        refreshStatus();
        updatePayloadNote();
    }
    // Read it again each time the table says it is not there: moved to
    // another state, or deleted (by an action, by a worker).
    recheck();
}

void MessageDetailPane::recheck() {
    if (!m_row || !m_backend) {
        return;
    }
    // One read at a time (a payload can be large): a request meanwhile
    // reads again once it is back.
    if (m_recheckBusy) {
        m_recheckAgain = true;
        return;
    }
    m_recheckBusy = true;
    m_recheckAgain = false;
    const quint64 gen = m_recheckGeneration;
    struct Read {
        std::optional<core::Message> msg;
        bool failed = false;
    };
    auto work = [q = m_backend, id = m_row->msg.messageId]() -> Read {
        Read r;
        try {
            r.msg = q->get(id);
        } catch (const std::exception&) {
            r.failed = true; // unknown: the pane keeps what it showed
        }
        return r;
    };
    runAsync(this, std::move(work), [this, gen](Read r) {
        m_recheckBusy = false;
        if (std::exchange(m_recheckAgain, false) && !m_notShown.isEmpty()) {
            recheck();
        }
        // Only for the message still shown, still marked.
        if (gen != m_recheckGeneration || !m_row || m_notShown.isEmpty() || r.failed) {
            return;
        }
        if (!r.msg) {
            m_gone = true;
        } else {
            m_gone = false;
            // The fields as the file has them now; the payload is the
            // one read, shown again when the message comes back.
            m_row->dataBytes = qint64(r.msg->data.size());
            if (r.msg->data.size() > MessageModel::kCachedPayloadBytes) {
                r.msg->data.resize(MessageModel::kCachedPayloadBytes);
            }
            m_row->msg = std::move(*r.msg);
        }
        refreshTimes();
        updatePayloadNote();
    });
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
    // A concurrency key shows its row from the first message that has one.
    const QString concurrency = concurrencyKey(m);
    if (!concurrency.isEmpty() && !m_concurrencyKeys) {
        m_concurrencyKeys = true;
        m_fieldsStale = false;
        layoutFields();
    }
    setField(QStringLiteral("id"), fromStd(m.messageId));
    refreshStatus();
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
    instant(QStringLiteral("scheduled"), m.scheduledAt);
    instant(QStringLiteral("lease"), m.leaseExpiry);
    setField(QStringLiteral("concurrency"), concurrency);
    // The lease time of a job waiting in a state of the format's own (a
    // blocked job's block) is when that wait expires, not a claim's end.
    if (QLabel* t = m_titles.value(QStringLiteral("lease"))) {
        const bool waits =
            m.state == core::State::Unknown && !m.extraState.empty() && m.leaseExpiry.has_value();
        QString tip = m_leaseTip;
        if (waits && m_backend) {
            tip = tr("When this job's wait as %1 expires").arg(fromStd(m.extraState));
            for (const auto& x : core::QueueFormat::of(m_backend->info()).extraStates()) {
                if (x.name == m.extraState && !x.description.empty()) {
                    tip += QStringLiteral(": ") + fromStd(x.description);
                }
            }
        }
        const QString title = waits ? tr("Expires:") : m_leaseTitle;
        if (!title.isEmpty() && t->text() != title) {
            t->setText(title);
        }
        if (t->toolTip() != tip) {
            t->setToolTip(tip);
        }
    }
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

void MessageDetailPane::refreshStatus() {
    if (!m_row) {
        return;
    }
    const core::Message& m = m_row->msg;
    const QString state =
        stateLine(m, m_backend ? &core::QueueFormat::of(m_backend->info()) : nullptr,
                  core::systemNowNs(), m_stuckNs);
    const QString stored = tr("stored status value %1").arg(m.rawStatus);
    if (m_gone) {
        // Never the state it had: it has none now.
        setField(QStringLiteral("status"), tr("deleted from the file"),
                 tr("No longer in the file: deleted by an action or by a worker. Last read as "
                    "%1 (%2); the other fields are as last read.")
                     .arg(state, stored));
    } else if (!m_notShown.isEmpty()) {
        setField(QStringLiteral("status"), state + QStringLiteral("  \u2014 ") + m_notShown,
                 stored);
    } else {
        setField(QStringLiteral("status"), state, stored);
    }
}

} // namespace lq::ui
