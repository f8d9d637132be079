// SPDX-License-Identifier: MIT
#include "ui/uitext.h"

#include "core/backend.h"
#include "core/formats/queueformat.h"

#include "core/json.h"
#include "core/timefmt.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDateTime>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QObject>
#include <QStringList>

#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>

namespace lq::ui {

QString fileSettingsKey(const QString& path) {
    return QStringLiteral("files/") +
           QString::fromLatin1(
               QCryptographicHash::hash(path.toUtf8(), QCryptographicHash::Sha1).toHex().left(16));
}

QString fromStd(const std::string& s) {
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

std::string toStd(const QString& s) {
    const QByteArray b = s.toUtf8();
    return std::string(b.constData(), static_cast<std::size_t>(b.size()));
}

QString queueKey(const QString& path) {
    return core::isLocalPath(toStd(path)) ? QFileInfo(path).absoluteFilePath() : path;
}

/// Whether `s` is UTF-8 text: valid UTF-8 (no overlong forms, surrogates or
/// values past U+10FFFF) with no control character but tab, line feed and
/// carriage return. `prefix`: `s` is the start of a longer value, so a
/// sequence cut at its end is not invalid.
bool isUtf8Text(std::string_view s, bool prefix) {
    if (prefix && !s.empty()) {
        std::size_t lead = s.size() - 1;
        while (lead > 0 && s.size() - lead < 4 &&
               (static_cast<unsigned char>(s[lead]) & 0xc0) == 0x80) {
            --lead;
        }
        const auto c = static_cast<unsigned char>(s[lead]);
        const std::size_t want = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
        if (s.size() - lead < want) {
            s = s.substr(0, lead);
        }
    }
    for (std::size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x80) {
            if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) {
                return false;
            }
            ++i;
            continue;
        }
        const std::size_t n = core::utf8SequenceLength(s, i);
        if (n == 0) {
            return false;
        }
        i += n;
    }
    return true;
}

QString payloadPreview(const std::string& data, bool isBlob, int maxChars) {
    // A BLOB that is UTF-8 text (goqite's and backlite's JSON bodies) is
    // previewed as text; other bytes in hex.
    constexpr std::size_t kLook = 4096;
    if (isBlob && !isUtf8Text(std::string_view(data).substr(0, kLook), data.size() > kLook)) {
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

namespace {

/// The local zone's offset from UTC at `ms` (seconds). QDateTime's local
/// time calls tzset(), which stats /etc/localtime: a system call for every
/// time cell painted. The offset is kept per quarter hour when it is the
/// same at both ends of it (no zone changes twice in 15 minutes), and asked
/// anew after a minute, so a change of the system's zone still shows (a
/// change of TZ at once).
int localOffsetSeconds(qint64 ms) {
    constexpr qint64 kQuarter = qint64(15) * 60 * 1000;
    constexpr qint64 kKeepMs = qint64(60) * 1000;
    struct Cache {
        QHash<qint64, int> offsets;
        QElapsedTimer age;
        std::string tz;
    };
    thread_local Cache cache;
    const char* tz = std::getenv("TZ"); // NOLINT(concurrency-mt-unsafe): read only
    const std::string_view zone = tz ? std::string_view(tz) : std::string_view();
    if (!cache.age.isValid() || cache.age.elapsed() > kKeepMs || cache.offsets.size() > 4096 ||
        zone != cache.tz) {
        cache.offsets.clear();
        cache.age.start();
        cache.tz = zone;
    }
    const qint64 quarter = ms >= 0 ? ms / kQuarter : (ms - kQuarter + 1) / kQuarter;
    if (auto it = cache.offsets.constFind(quarter); it != cache.offsets.cend()) {
        return *it;
    }
    const int first = QDateTime::fromMSecsSinceEpoch(quarter * kQuarter).offsetFromUtc();
    const int last =
        QDateTime::fromMSecsSinceEpoch(quarter * kQuarter + kQuarter - 1).offsetFromUtc();
    if (first != last) {
        return QDateTime::fromMSecsSinceEpoch(ms).offsetFromUtc(); // a change inside it
    }
    cache.offsets.insert(quarter, first);
    return first;
}

} // namespace

static QDateTime toDateTime(core::TimeNs t, bool utc) {
    const qint64 ms = t / 1'000'000 - ((t % 1'000'000) < 0 ? 1 : 0);
    if (utc) {
        return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC);
    }
    // The local wall clock as a UTC time shifted by the zone's offset: the
    // same fields as QDateTime's local time, without its tzset() per call.
    return QDateTime::fromMSecsSinceEpoch(ms + qint64(localOffsetSeconds(ms)) * 1000, Qt::UTC);
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

QString pausedText(const std::optional<core::TimeNs>& since) {
    if (!since)
        return QObject::tr("paused: workers skip it");
    return QObject::tr("paused since %1: workers skip it")
        .arg(formatInstant(*since, false, false, true));
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

QString countText(qint64 n, bool estimated) {
    const QLocale locale;
    if (!estimated) {
        return locale.toString(n);
    }
    qint64 unit = 1;
    while (n / unit >= 100) {
        unit *= 10;
    }
    return QChar(0x2248) + locale.toString((n + unit / 2) / unit * unit);
}

QString humanBytes(qint64 bytes) {
    return fromStd(core::humanBytes(bytes));
}

QString visibleText(const std::string& s) {
    QStringList parts;
    QString part;
    const QString text = fromStd(s);
    for (const QChar c : text) {
        if (c.category() != QChar::Other_Control) {
            part += c;
        } else if (!part.isEmpty()) {
            parts << std::exchange(part, QString());
        }
    }
    if (!part.isEmpty()) {
        parts << part;
    }
    return parts.join(QStringLiteral(" \u00b7 "));
}

QString plainToolTip(const QString& text) {
    return QStringLiteral("<p style='white-space:pre-wrap'>") + text.toHtmlEscaped() +
           QStringLiteral("</p>");
}

QString stateTitle(const std::string& name) {
    static const std::pair<const char*, const char*> canonical[] = {
        {"ready", QT_TRANSLATE_NOOP("lq::ui", "Ready")},
        {"scheduled", QT_TRANSLATE_NOOP("lq::ui", "Scheduled")},
        {"locked", QT_TRANSLATE_NOOP("lq::ui", "Locked")},
        {"done", QT_TRANSLATE_NOOP("lq::ui", "Done")},
        {"failed", QT_TRANSLATE_NOOP("lq::ui", "Failed")},
        {"unknown", QT_TRANSLATE_NOOP("lq::ui", "Unknown status")}};
    for (const auto& [key, title] : canonical) {
        if (name == key) {
            return QCoreApplication::translate("lq::ui", title);
        }
    }
    // The format's own word, as the chips and lqctl say it.
    QString t = fromStd(name);
    t.replace(u'_', u' ');
    if (!t.isEmpty()) {
        t[0] = t[0].toUpper();
    }
    return t;
}

QString filterInWords(const core::Filter& f) {
    QStringList parts;
    QStringList states;
    for (core::State st : f.states) {
        states << stateText(st);
    }
    for (const std::string& x : f.extraStates) {
        states << fromStd(x);
    }
    if (f.stuckOnly) {
        states << QObject::tr("stuck (locked longer than %1)").arg(humanDuration(f.stuckAfterNs));
    }
    if (!states.isEmpty()) {
        parts << QObject::tr("state %1").arg(states.join(QObject::tr(" or ")));
    }
    if (!f.queue.empty()) {
        parts << QObject::tr("queue \u201c%1\u201d").arg(visibleText(f.queue));
    }
    if (!f.search.empty()) {
        parts << QObject::tr("search \u201c%1\u201d").arg(visibleText(f.search));
    }
    if (f.olderThan) {
        parts << QObject::tr("older than %1").arg(humanDuration(f.olderThan->count()));
    }
    if (f.inTimeFrom || f.inTimeTo) {
        parts << QObject::tr("enqueued %1 to %2")
                     .arg(formatInstant(f.inTimeFrom, false), formatInstant(f.inTimeTo, false));
    }
    if (f.metric != core::Filter::Metric::None) {
        parts << QObject::tr("latency %1 to %2")
                     .arg(humanDuration(f.metricLo), humanDuration(f.metricHi));
    }
    return parts.isEmpty() ? QObject::tr("every job in the file")
                           : parts.join(QStringLiteral(", "));
}

QString stateText(core::State s) {
    return QString::fromLatin1(core::stateName(s));
}

QString stateText(const core::Message& m, const core::QueueFormat* format) {
    if (format && m.state != core::State::Unknown) {
        if (const std::string word = format->stateWord(m.state); !word.empty()) {
            return fromStd(word).toUpper();
        }
    }
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

namespace {

void appendReadable(QStringList& out, const QJsonValue& v, const QString& indent);

/// A JSON object as "key: value" lines, scalars first (the exception and
/// its message), then lists (a backtrace, one frame a line).
void appendObject(QStringList& out, const QJsonObject& o, const QString& indent) {
    for (auto it = o.begin(); it != o.end(); ++it) {
        if (!it.value().isArray() && !it.value().isObject()) {
            const QJsonValue v = it.value();
            out << indent + it.key() + QStringLiteral(": ") +
                       (v.isString() ? v.toString() : v.toVariant().toString());
        }
    }
    for (auto it = o.begin(); it != o.end(); ++it) {
        if (it.value().isArray() || it.value().isObject()) {
            out << indent + it.key() + u':';
            appendReadable(out, it.value(), indent + QStringLiteral("  "));
        }
    }
}

void appendReadable(QStringList& out, const QJsonValue& v, const QString& indent) {
    if (v.isObject()) {
        appendObject(out, v.toObject(), indent);
    } else if (v.isArray()) {
        const QJsonArray a = v.toArray();
        for (const auto& e : a) {
            appendReadable(out, e, indent);
        }
    } else if (v.isString()) {
        out << indent + v.toString();
    } else {
        out << indent + v.toVariant().toString();
    }
}

/// An error as stored, readable: JSON (Solid Queue's exception object)
/// as lines, anything else as it is. Plain text, never HTML.
} // namespace

QString readableError(const std::string& text) {
    const QByteArray bytes = QByteArray::fromRawData(text.data(), qsizetype(text.size()));
    QJsonParseError err{};
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &err);
    if (err.error != QJsonParseError::NoError || !(doc.isObject() || doc.isArray())) {
        return fromStd(text);
    }
    QStringList lines;
    appendReadable(lines, doc.isObject() ? QJsonValue(doc.object()) : QJsonValue(doc.array()),
                   QString());
    return lines.join(u'\n');
}

QString errorSummary(const std::string& text) {
    // The leading "key: value" lines of a JSON error (the exception and its
    // message), or the first line of a plain one.
    const QStringList lines = readableError(text).split(u'\n');
    QStringList head;
    for (const QString& l : lines) {
        if (l.trimmed().isEmpty()) {
            continue;
        }
        if (!head.isEmpty() && (l.endsWith(u':') || l.startsWith(u' '))) {
            break;
        }
        head << l.trimmed();
        if (lines.size() > 1 && !l.contains(QStringLiteral(": "))) {
            break; // a plain text error: its first line
        }
    }
    QString s = head.join(QStringLiteral(" \u00b7 "));
    constexpr qsizetype kMax = 200;
    if (s.size() > kMax) {
        s = s.left(kMax) + QChar(0x2026);
    }
    return s;
}

} // namespace lq::ui
