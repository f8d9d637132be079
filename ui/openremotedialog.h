// SPDX-License-Identifier: MIT
#pragma once

#include <QDialog>

class QComboBox;
class QLineEdit;
class QSpinBox;

namespace lq::ui {

/// File › Open Remote…: host, optional user and port, absolute path on the
/// host; the recent remotes (QSettings "remote/recent") fill the form.
class OpenRemoteDialog : public QDialog {
    Q_OBJECT
public:
    explicit OpenRemoteDialog(QWidget* parent = nullptr);

    /// ssh://[USER@]HOST[:PORT]/PATH from the form ("" while incomplete).
    QString url() const;
    /// Puts `url` first in the recent remotes.
    static void remember(const QString& url);
    static QStringList recent();

private:
    void fill(const QString& url);

    QComboBox* m_recent;
    QLineEdit* m_host;
    QLineEdit* m_user;
    QSpinBox* m_port;
    QLineEdit* m_path;
};

} // namespace lq::ui
