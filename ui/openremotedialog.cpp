// SPDX-License-Identifier: MIT
#include "ui/openremotedialog.h"

#include "ui/settingsstore.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QUrl>

namespace lq::ui {

namespace {
constexpr int kMaxRecent = 10;
const char* const kRecentKey = "remote/recent";
} // namespace

OpenRemoteDialog::OpenRemoteDialog(QWidget* parent)
    : QDialog(parent)
    , m_recent(new QComboBox(this))
    , m_host(new QLineEdit(this))
    , m_user(new QLineEdit(this))
    , m_port(new QSpinBox(this))
    , m_path(new QLineEdit(this)) {
    setWindowTitle(tr("Open Remote Queue"));
    auto* form = new QFormLayout(this);
    m_recent->addItem(tr("(new)"));
    m_recent->addItems(recent());
    form->addRow(tr("Recent:"), m_recent);
    m_host->setPlaceholderText(tr("host or ~/.ssh/config alias"));
    form->addRow(tr("&Host:"), m_host);
    m_user->setPlaceholderText(tr("optional"));
    form->addRow(tr("&User:"), m_user);
    m_port->setRange(0, 65535);
    m_port->setSpecialValueText(tr("default"));
    form->addRow(tr("&Port:"), m_port);
    m_path->setPlaceholderText(tr("/absolute/path/on/the/host/queue.sqlite3"));
    form->addRow(tr("&Path:"), m_path);
    auto* note = new QLabel(tr("Runs the system's ssh (your keys, agent and ~/.ssh/config) and "
                               "`lqctl serve --stdio` on the host."),
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
    for (QLineEdit* e : {m_host, m_user, m_path}) {
        connect(e, &QLineEdit::textChanged, this, update);
    }
    connect(m_recent, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (i > 0) {
            fill(m_recent->itemText(i));
        }
    });
    if (m_recent->count() > 1) {
        m_recent->setCurrentIndex(1);
    }
    update();
}

void OpenRemoteDialog::fill(const QString& url) {
    const QUrl u(url);
    m_host->setText(u.host());
    m_user->setText(u.userName());
    m_port->setValue(u.port(0));
    m_path->setText(u.path());
}

QString OpenRemoteDialog::url() const {
    const QString host = m_host->text().trimmed();
    const QString path = m_path->text().trimmed();
    if (host.isEmpty() || !path.startsWith(QLatin1Char('/'))) {
        return {};
    }
    QString s = QStringLiteral("ssh://");
    if (!m_user->text().trimmed().isEmpty()) {
        s += m_user->text().trimmed() + QLatin1Char('@');
    }
    s += host;
    if (m_port->value() > 0) {
        s += QLatin1Char(':') + QString::number(m_port->value());
    }
    return s + path;
}

QStringList OpenRemoteDialog::recent() {
    return settings::value(QString::fromLatin1(kRecentKey)).toStringList();
}

void OpenRemoteDialog::remember(const QString& url) {
    settings::remember(QString::fromLatin1(kRecentKey), url, kMaxRecent);
}

} // namespace lq::ui
