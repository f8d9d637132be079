// SPDX-License-Identifier: MIT
// MessageModel: the columns of the fields a format declares
// (QueueFormat::fields()): queue, job, priority, attempts, error, scheduled
// time and lease expiry, and the claim token as the format stores it. The
// column set and the labels come from the format, never from its id.
#include "ui/messagemodel.h"

#include "core/errors.h"
#include "ui/uitext.h"

#include <algorithm>

namespace lq::ui {

using core::Message;
using core::TimeNs;
using Field = core::QueueFormat::Field;

std::optional<Field> MessageModel::fieldOf(int column) {
    switch (column) {
    case Queue:
        return Field::Queue;
    case Job:
        return Field::Job;
    case Priority:
        return Field::Priority;
    case Attempts:
        return Field::Attempts;
    case Error:
        return Field::Error;
    case ScheduledAt:
        return Field::ScheduledAt;
    case LeaseExpiry:
        return Field::LeaseExpiry;
    default:
        return std::nullopt;
    }
}

bool MessageModel::hasField(Field f) const {
    return std::find(m_fields.begin(), m_fields.end(), f) != m_fields.end();
}

bool MessageModel::hasColumn(int column) const {
    if (const auto f = fieldOf(column)) {
        return hasField(*f);
    }
    return column >= 0 && column < ColumnCount;
}

QVariant MessageModel::fieldDisplayData(const Message& m, int column) const {
    switch (column) {
    case Claim:
        return m.tokenText ? visibleText(*m.tokenText) : QString::number(m.token);
    case Queue:
        return m.queueName ? fromStd(*m.queueName) : QString();
    case Job:
        return m.jobName ? fromStd(*m.jobName) : QString();
    case Priority:
        return m.priority ? QString::number(*m.priority) : QString();
    case Attempts:
        if (m.maxAttempts) {
            return QStringLiteral("%1 / %2").arg(m.attempts).arg(*m.maxAttempts);
        }
        return QString::number(m.attempts);
    case Error:
        // The error's class, in the words the Failures tab and `lqctl
        // errors` group by (core::errorClassOf); the whole text in the tip.
        return m.lastError ? fromStd(core::errorClassOf(*m.lastError)) : QString();
    case ScheduledAt:
        return formatInstant(m.scheduledAt, m_utc, false, false);
    case LeaseExpiry:
        return formatInstant(m.leaseExpiry, m_utc, false, false);
    default:
        return {};
    }
}

QVariant MessageModel::fieldToolTip(const Message& m, int column) const {
    auto instant = [](const std::optional<TimeNs>& t) {
        return t ? plainToolTip(exactInstant(*t)) : QVariant();
    };
    switch (column) {
    case Claim:
        if (m.tokenText && m_format) {
            return plainToolTip(
                tr("%1: %2 (the claim token actions compare against)")
                    .arg(fromStd(m_format->fieldLabel(Field::Token)), visibleText(*m.tokenText)));
        }
        return {};
    case Queue:
    case Job:
        return plainToolTip(fieldDisplayData(m, column).toString());
    case Error: {
        if (!m.lastError) {
            return {};
        }
        constexpr std::size_t kMax = 2000;
        QString t = fromStd(m.lastError->substr(0, kMax));
        if (m.lastError->size() > kMax) {
            t += QChar(0x2026);
        }
        return plainToolTip(t);
    }
    case ScheduledAt:
        return instant(m.scheduledAt);
    case LeaseExpiry:
        return instant(m.leaseExpiry);
    default:
        return {};
    }
}

QVariant MessageModel::fieldHeader(int section, int role) const {
    const auto f = section == Claim ? std::optional<Field>(Field::Token) : fieldOf(section);
    if (!f) {
        return {};
    }
    if (!m_format || !hasField(*f)) {
        if (section == Claim) {
            return {}; // litequeue's own header
        }
        return role == Qt::DisplayRole ? fromStd(core::QueueFormat::defaultFieldLabel(*f))
                                       : QVariant();
    }
    if (role == Qt::DisplayRole) {
        return fromStd(m_format->fieldLabel(*f));
    }
    if (role == Qt::ToolTipRole) {
        return fromStd(m_format->fieldDescription(*f));
    }
    return {};
}

} // namespace lq::ui
