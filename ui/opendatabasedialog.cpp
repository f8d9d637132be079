// SPDX-License-Identifier: MIT
#include "ui/opendatabasedialog.h"

#include "core/pg/connection.h"
#include "ui/settingsstore.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QUrl>

namespace lq::ui {

namespace {
constexpr int kMaxRecent = 10;
const char* const kRecentKey = "database/recent";
} // namespace

OpenDatabaseDialog::OpenDatabaseDialog(QWidget* parent)
    : QDialog(parent)
    , m_uri(new QComboBox(this))
    , m_schema(new QLineEdit(this)) {
    setWindowTitle(tr("Open Database Queue"));
    auto* form = new QFormLayout(this);
    m_uri->setEditable(true);
    m_uri->addItems(recent());
    m_uri->setMinimumContentsLength(48);
    m_uri->lineEdit()->setPlaceholderText(tr("postgresql://USER@HOST:5432/DB?sslmode=prefer"));
    form->addRow(tr("&URI:"), m_uri);
    m_schema->setPlaceholderText(tr("optional: public first, then every schema"));
    form->addRow(tr("&Schema:"), m_schema);
    auto* note = new QLabel(
        tr("Solid Queue, Oban, River, GoodJob, pg-boss or Graphile Worker on PostgreSQL. "
           "The password comes from ~/.pgpass, PGPASSWORD or a PGSERVICE entry; one typed "
           "into the URI is used once and never saved. Another network: an ssh tunnel "
           "(ssh -L 5433:localhost:5432 HOST) and 127.0.0.1:5433 here."),
        this);
    note->setWordWrap(true);
    form->addRow(note);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Open | QDialogButtonBox::Cancel, this);
    form->addRow(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto update = [this, buttons] {
        buttons->button(QDialogButtonBox::Open)->setEnabled(!url().isEmpty());
    };
    connect(m_uri, &QComboBox::currentTextChanged, this, update);
    connect(m_schema, &QLineEdit::textChanged, this, update);
    update();
}

QString OpenDatabaseDialog::url() const {
    QString uri = m_uri->currentText().trimmed();
    if (!core::pg::isPostgresUrl(uri.toStdString()))
        return {};
    const QString schema = m_schema->text().trimmed();
    if (!schema.isEmpty())
        uri += (uri.contains(QLatin1Char('?')) ? QLatin1Char('&') : QLatin1Char('?')) +
               QStringLiteral("schema=") + QString::fromLatin1(QUrl::toPercentEncoding(schema));
    return uri;
}

QStringList OpenDatabaseDialog::recent() {
    return settings::value(QString::fromLatin1(kRecentKey)).toStringList();
}

void OpenDatabaseDialog::remember(const QString& url) {
    settings::remember(QString::fromLatin1(kRecentKey),
                       QString::fromStdString(core::pg::redactedUrl(url.toStdString())),
                       kMaxRecent);
}

} // namespace lq::ui
