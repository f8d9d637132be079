// SPDX-License-Identifier: MIT
#include "ui/uitext.h"
#include "ui/runasync.h"

#include "core/timefmt.h"

#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include <QDateTime>
#include <QLocale>

namespace lq::ui {

QSettings appSettings() {
    return QSettings(QStringLiteral("LiteQueue"), QStringLiteral("lqadmin"));
}

void saveSetting(const QString& key, const QVariant& value) {
    QSettings s = appSettings();
    s.setValue(key, value);
}

QString fromStd(const std::string& s) {
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

std::string toStd(const QString& s) {
    const QByteArray b = s.toUtf8();
    return std::string(b.constData(), static_cast<std::size_t>(b.size()));
}

QString payloadPreview(const std::string& data, bool isBlob, int maxChars) {
    if (isBlob) {
        QString hex = QString::fromLatin1(
            QByteArray(data.data(), static_cast<qsizetype>(std::min<std::size_t>(data.size(), 48)))
                .toHex(' '));
        return QStringLiteral("[BLOB %1] %2")
            .arg(humanBytes(static_cast<qint64>(data.size())), hex);
    }
    // Decode only what the preview can show (a 100 MB payload must not be
    // converted whole for one table cell).
    const std::size_t take =
        std::min<std::size_t>(data.size(), static_cast<std::size_t>(maxChars) * 4 + 4);
    const QString s = QString::fromUtf8(data.data(), static_cast<qsizetype>(take));
    QString out;
    out.reserve(std::min<qsizetype>(s.size(), maxChars) + 1);
    int n = 0;
    for (qsizetype i = 0; i < s.size() && n < maxChars; ++i) {
        const QChar c = s.at(i);
        if (c == u'\n') {
            out += QChar(0x21B5); // ↵
        } else if (c == u'\t') {
            out += QChar(0x2192); // →
        } else if (c == u'\r') {
            continue;
        } else if (c.category() == QChar::Other_Control || c.category() == QChar::Other_Format ||
                   c == QChar(0x2028) || c == QChar(0x2029)) {
            if (c == QChar(0x200D)) { // keep ZWJ: emoji sequences
                out += c;
            }
            continue;
        } else {
            out += c;
        }
        ++n;
    }
    if (n >= maxChars || take < data.size()) {
        out += QChar(0x2026); // …
    }
    return out;
}

static QDateTime toDateTime(core::TimeNs t, bool utc) {
    const qint64 ms = t / 1'000'000 - ((t % 1'000'000) < 0 ? 1 : 0);
    return utc ? QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC) : QDateTime::fromMSecsSinceEpoch(ms);
}

QString formatInstant(core::TimeNs t, bool utc, bool millis, bool year) {
    const QDateTime dt = toDateTime(t, utc);
    QString format =
        year ? QStringLiteral("yyyy-MM-dd HH:mm:ss") : QStringLiteral("MM-dd HH:mm:ss");
    if (millis) {
        format += QStringLiteral(".zzz");
    }
    QString s = dt.toString(format);
    if (utc) {
        s += u'Z';
    }
    return s;
}

QString formatInstant(const std::optional<core::TimeNs>& t, bool utc, bool millis, bool year) {
    return t ? formatInstant(*t, utc, millis, year) : QString();
}

QString exactInstant(core::TimeNs t) {
    return fromStd(core::isoUtc(t)) + u'\n' + QString::number(t) + QStringLiteral(" ns");
}

QString humanDuration(core::TimeNs ns) {
    return fromStd(core::humanDuration(ns));
}

QString humanDuration(const std::optional<core::TimeNs>& ns) {
    return ns ? humanDuration(*ns) : QString();
}

QString exactDuration(core::TimeNs ns) {
    return humanDuration(ns) + QStringLiteral(" (") + QLocale::c().toString(ns) +
           QStringLiteral(" ns)");
}

QString humanBytes(qint64 bytes) {
    return fromStd(core::humanBytes(bytes));
}

QString plainToolTip(const QString& text) {
    return QStringLiteral("<p style='white-space:pre-wrap'>") + text.toHtmlEscaped() +
           QStringLiteral("</p>");
}

QString stateText(core::State s) {
    return QString::fromLatin1(core::stateName(s));
}

QString stateText(const core::Message& m) {
    if (m.state == core::State::Unknown) {
        // A format state outside the canonical ones (Solid Queue "blocked",
        // Oban "retryable"): its own name, not UNKNOWN.
        if (!m.extraState.empty()) {
            return fromStd(m.extraState);
        }
        if (!m.statusText.empty()) {
            return QStringLiteral("UNKNOWN(%1)").arg(fromStd(m.statusText));
        }
        return QStringLiteral("UNKNOWN(%1)").arg(m.rawStatus);
    }
    return stateText(m.state);
}

void useBackgroundPriority() {
#ifdef __linux__
    thread_local bool done = false;
    if (!done) {
        done = true;
        // Per-thread on Linux: PRIO_PROCESS with a thread id.
        setpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)), 10);
    }
#endif
}

} // namespace lq::ui
