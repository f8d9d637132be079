// SPDX-License-Identifier: MIT
#pragma once

#include <QDialog>

class QComboBox;
class QLineEdit;

namespace lq::ui {

/// File › Open Database…: a queue kept in PostgreSQL, by its libpq URI
/// (postgresql://USER@HOST:PORT/DB?sslmode=…) and an optional schema. The
/// password comes from libpq's own means (~/.pgpass, PGPASSWORD,
/// PGSERVICE); one typed into the URI is used for this connection and
/// never saved: the recent databases (QSettings "database/recent") keep
/// each URI without it.
class OpenDatabaseDialog : public QDialog {
    Q_OBJECT
public:
    explicit OpenDatabaseDialog(QWidget* parent = nullptr);

    /// The URI with `schema=` from the form ("" while it is not a
    /// postgresql:// URI).
    QString url() const;
    /// Puts `url`, without its password, first in the recent databases.
    static void remember(const QString& url);
    static QStringList recent();

private:
    QComboBox* m_uri;
    QLineEdit* m_schema;
};

} // namespace lq::ui
