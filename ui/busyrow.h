// SPDX-License-Identifier: MIT
#pragma once

// BusyRow: "Filtering… [Cancel]" under the filter bar while a long read for
// a new filter runs (a JSON condition or a search reads every job: about a
// second on a million jobs). Shown only when the read takes longer than a
// moment, so a quick filter never flashes it; Cancel (or Esc) asks for the
// filter to be dropped, which stops the read (MessageLoader cancels the
// superseded ordering).

#include <QTimer>
#include <QWidget>

class QLabel;
class QShortcut;

namespace lq::ui {

class BusyRow : public QWidget {
    Q_OBJECT
public:
    explicit BusyRow(QWidget* parent = nullptr);

    /// A read started: shown after `delayMs` unless done() comes first.
    void started(const QString& text, int delayMs = 300);
    /// The read ended (finished, failed or superseded by no read).
    void done();

signals:
    void cancelRequested();

private:
    QLabel* m_label = nullptr;
    QShortcut* m_esc = nullptr;
    QTimer m_delay;
};

} // namespace lq::ui
