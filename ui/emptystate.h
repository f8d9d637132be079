// SPDX-License-Identifier: MIT
#pragma once

#include <QObject>
#include <QString>

class QAbstractScrollArea;
class QLabel;

namespace lq::ui {

/// What an empty view says instead of a blank area: a centred, wrapped,
/// plain-text line over the view's viewport ("No queue open", "Cannot open
/// …", "No messages match this filter"). Never rich text: the text may hold
/// a file name or an error from the file.
class EmptyState : public QObject {
    Q_OBJECT

public:
    explicit EmptyState(QAbstractScrollArea* view);
    /// Shows `text` over the view; "" hides it.
    void setText(const QString& text);
    QString text() const;

private:
    QLabel* m_label;
};

} // namespace lq::ui
