// SPDX-License-Identifier: MIT
#pragma once

#include <QDialog>

class QLineEdit;
class QPlainTextEdit;

namespace lq::ui {

/// Asks for the payload and the optional idempotency key of a new message.
class EnqueueDialog : public QDialog {
    Q_OBJECT
public:
    explicit EnqueueDialog(QWidget* parent = nullptr);
    QString data() const;
    /// Empty: no key.
    QString idempotencyKey() const;

private:
    QPlainTextEdit* m_data;
    QLineEdit* m_key;
};

} // namespace lq::ui
