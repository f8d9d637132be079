// SPDX-License-Identifier: MIT
#pragma once

// Text helpers shared by the widgets: every string that comes from a queue
// file goes through here on its way to the screen, so it is shown as plain
// text (docs/RELIABILITY.md#hostile-files) and in the tool's time conventions
// (docs/FORMATS.md#times).

#include "core/clock.h"
#include "core/message.h"
#include "core/query.h"

#include <QString>
#include <optional>
#include <string>
#include <string_view>

namespace lq::core {
class QueueFormat;
} // namespace lq::core

namespace lq::ui {

/// The settings group of one queue file ("files/<hash of the path>"): its
/// view, its library settings.
QString fileSettingsKey(const QString& path);

/// Bytes from the file as text; invalid UTF-8 becomes U+FFFD.
QString fromStd(const std::string& s);
std::string toStd(const QString& s);

/// A queue's key in the window, the sidebar and the settings: a local
/// file's absolute path; a URL (ssh://, postgresql://) as it is.
QString queueKey(const QString& path);

/// The one-line payload preview of the table: at most `maxChars`
/// characters, line breaks and tabs shown as visible marks, control
/// characters dropped. BLOB payloads are shown as a byte count plus hex.
QString payloadPreview(const std::string& data, bool isBlob, int maxChars = 200);
/// Whether `s` is UTF-8 text: valid UTF-8 with no control character but tab,
/// line feed and carriage return. `prefix`: `s` is the start of a longer
/// value, so a sequence cut at its end is not invalid.
bool isUtf8Text(std::string_view s, bool prefix);

/// An instant as "2025-03-14 09:00:09.777" in local time, or with a "Z" in
/// UTC; without the milliseconds when `millis` is false, without the year
/// when `year` is false (the table: exact values are in its tooltips).
QString formatInstant(core::TimeNs t, bool utc, bool millis = true, bool year = true);
QString formatInstant(const std::optional<core::TimeNs>& t, bool utc, bool millis = true,
                      bool year = true);
/// "2025-03-14T08:00:09.777704771Z\n1741939209777704771 ns": for tooltips.
QString exactInstant(core::TimeNs t);
/// A paused named queue, as the sidebar, the chips and the banner say it:
/// "paused since 2025-03-14 09:00: workers skip it".
QString pausedText(const std::optional<core::TimeNs>& since);
/// "850 ms", "3 h 12 m".
QString humanDuration(core::TimeNs ns);
QString humanDuration(const std::optional<core::TimeNs>& ns);
/// "2 400 000 000 ns" with the human form.
QString exactDuration(core::TimeNs ns);
QString humanBytes(qint64 bytes);
/// A count as the locale writes it; an estimate (Counts::estimated) to two
/// significant digits after "≈": "≈950,000".
QString countText(qint64 n, bool estimated = false);

/// A tooltip that shows `text` literally. Qt guesses whether a tooltip is
/// rich text, so the text is HTML-escaped and wrapped in an element that
/// forces rich-text parsing: the escapes are decoded on screen and a payload
/// such as `<b>x</b>` appears as typed.
QString plainToolTip(const QString& text);

/// A stored value for display: each run of control characters (the field
/// separators of a composite claim token, a stray byte) as " · ", so
/// nothing prints as an empty box.
QString visibleText(const std::string& s);

/// Localised state name: "READY", "LOCKED", ..., "UNKNOWN(7)"; with the
/// message's format, in that format's own word where it has one (goqite's
/// failed job is a "DEAD_LETTER", as its chip and lqctl say).
QString stateText(const core::Message& m, const core::QueueFormat* format = nullptr);
/// An error as stored, readable: a JSON error (an exception object, a list
/// of attempts) as "key: value" lines and indented lists, anything else as
/// it is. Plain text, never HTML.
QString readableError(const std::string& text);
/// One line of an error for the table: the exception and its message, or
/// the first line.
QString errorSummary(const std::string& text);
QString stateText(core::State s);
/// The caption of partition state `name` (core/statemodel.h): "Ready", ...,
/// "Unknown status", or the format's own word: "Dead letter", "Retryable".
QString stateTitle(const std::string& name);
/// A filter in words, for a confirmation: "state FAILED, queue "emails",
/// search "timeout"", or "every job in the file" for none.
QString filterInWords(const core::Filter& f);

} // namespace lq::ui
