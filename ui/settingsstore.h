// SPDX-License-Identifier: MIT
#pragma once

// lqadmin's settings (window, recent files, per-file views and library
// settings) without file work on the UI thread (the UI thread never
// waits on the disk). The settings file is read once, at first use, into a
// copy the UI thread reads and changes; every change also goes, in order, to
// one background thread that writes it to the file (QSettings, the
// "LiteQueue/lqadmin" file) a moment later, a burst of changes in one sync. A change made by
// another lqadmin process after the first read is not seen until the next start; QSettings merges
// both processes' writes in the file, key by key.

#include <QString>
#include <QStringList>
#include <QVariant>

namespace lq::ui::settings {

/// The stored value of `key` ("group/sub/name"), or `fallback`.
QVariant value(const QString& key, const QVariant& fallback = {});
/// Sets `key`: seen by value() at once, written to the file in the background.
void setValue(const QString& key, const QVariant& value);
/// Removes `key` and every key under it (a group).
void remove(const QString& key);
/// The direct child groups of `group` ("files" → the hashes).
QStringList childGroups(const QString& group);
/// Waits until every change so far is in the file (at exit; tests).
void flush();
/// Puts `item` first in the string list at `key`, keeping at most `max`.
void remember(const QString& key, const QString& item, int max);

} // namespace lq::ui::settings
