// SPDX-License-Identifier: MIT
// lqadmin's main window on a queue over a real OpenSSH server:
// sshd on 127.0.0.1 with generated keys and its own config (as
// tst_remote_ssh), the built lqctl as the remote command. The window shows
// what it shows on the local copy, runs a retry with its claim and undoes
// it (the audit record written here, naming ssh://HOST/PATH), and when the
// ssh child is killed shows the "connection lost" banner, turns writes off,
// reconnects by itself and shows the data again with the view kept.
#include "core/audit.h"
#include "core/backend.h"
#include "core/queue.h"
#include "core/remote/client.h"
#include "support/fixtures.h"
#include "support/sshd.h"
#include "support/waits.h"
#include "ui/bannerbar.h"
#include "ui/dashboardwidget.h"
#include "ui/fleetmodel.h"
#include "ui/mainwindow.h"
#include "ui/messagemodel.h"
#include "ui/statusfilterbar.h"

#include <QAction>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QProcess>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

using lq::core::Queue;
using lq::core::State;
using lq::test::TestSshd;
using lq::test::waitFor;
using lq::ui::MainWindow;
using lq::ui::MessageModel;

namespace {

/// The ssh processes this test process started (the window's connection).
std::vector<pid_t> sshChildren() {
    std::vector<pid_t> out;
    const pid_t self = ::getpid();
    for (const auto& e : std::filesystem::directory_iterator("/proc")) {
        const std::string name = e.path().filename().string();
        if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos)
            continue;
        std::ifstream stat(e.path() / "stat");
        std::string line;
        std::getline(stat, line);
        const auto close = line.rfind(')');
        const auto open = line.find('(');
        if (close == std::string::npos || open == std::string::npos)
            continue;
        const std::string comm = line.substr(open + 1, close - open - 1);
        char state = 0;
        int ppid = 0;
        if (std::sscanf(line.c_str() + close + 1, " %c %d", &state, &ppid) != 2)
            continue;
        if (ppid == self && comm == "ssh" && state != 'Z')
            out.push_back(static_cast<pid_t>(std::stoi(name)));
    }
    return out;
}

QString bannerText(MainWindow& w) {
    QStringList texts;
    for (QLabel* l : w.bannerBar()->findChildren<QLabel*>())
        texts << l->text();
    return texts.join(QLatin1Char('\n'));
}

} // namespace

class TstRemoteGui : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    TestSshd m_sshd{m_dir};
    QString m_local;
    QString m_remote;
    QString m_url;

    QString path(const char* name) const { return m_dir.filePath(QString::fromUtf8(name)); }

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true); // recent remotes: not the user's settings
        QVERIFY(m_dir.isValid());
        const QString up = m_sshd.start();
        QVERIFY2(up.isEmpty(), qPrintable(up));
        m_url = m_sshd.url();
        // The window's ssh uses this config and the built lqctl; the audit
        // log is this test's.
        qputenv("LQ_SSH_OPTS", m_sshd.sshOpts().toUtf8());
        qputenv("LQ_REMOTE_LQCTL", QByteArrayLiteral(LQCTL_PATH));
        qputenv("LQ_AUDIT_DIR", path("audit").toUtf8());

        m_local = path("local.db");
        m_remote = path("remote.db");
        {
            auto q = Queue::create(m_local.toStdString());
            for (int i = 0; i < 30; ++i)
                q->put("{\"n\":" + std::to_string(i) + "}", "key-" + std::to_string(i));
            for (int i = 0; i < 5; ++i)
                (void)q->pop();
            for (int i = 0; i < 4; ++i) {
                const auto m = q->pop();
                QVERIFY(q->markFailed(m->messageId, m->claimId));
            }
        }
        QVERIFY(lq::test::copyDatabase(m_local, m_remote));
        m_url += m_remote;
    }

    void cleanupTestCase() { m_sshd.stop(); }

    /// The dashboard of a remote queue: its figures are computed on the
    /// host (`dashboard`) and equal the local copy's; the charts have data.
    void remoteDashboard() {
        lq::ui::DashboardWidget local;
        lq::core::BackendOptions readOnly;
        readOnly.readOnly = true;
        local.setBackend(lq::core::openBackend(m_local.toStdString(), readOnly));
        lq::ui::DashboardWidget remote;
        remote.setBackend(lq::core::openBackend(m_url.toStdString(), readOnly));
        local.show(); // a hidden dashboard computes nothing
        remote.show();
        QVERIFY(waitFor([&] { return local.hasData() && !local.isComputing(); }, 15000));
        QVERIFY2(waitFor([&] { return remote.hasData() && !remote.isComputing(); }, 30000),
                 qPrintable(remote.data().error));
        QVERIFY2(remote.data().error.isEmpty(), qPrintable(remote.data().error));
        QCOMPARE(remote.data().totalRows, local.data().totalRows);
        QCOMPARE(remote.data().counts.failed, local.data().counts.failed);
        QCOMPARE(remote.data().stats.wait.count, local.data().stats.wait.count);
        QVERIFY(remote.data().stats.wait.count > 0);
        QCOMPARE(remote.data().stats.waitHist.counts, local.data().stats.waitHist.counts);
        QVERIFY(!remote.data().series.empty());
    }

    /// `lqadmin --watch ssh://HOST/DIR`: the sidebar lists the queue files
    /// of the folder on the host, with their counts, as ssh:// URLs.
    void remoteFolderInTheSidebar() {
        const QString extra = path("sidebar.db"); // changed while watched
        {
            auto q = Queue::create(extra.toStdString());
            for (int i = 0; i < 3; ++i)
                q->put("{\"sidebar\":" + std::to_string(i) + "}");
        }
        MainWindow w;
        const QString folder = m_sshd.url() + m_dir.path();
        w.watchFolder(folder);
        lq::ui::FleetModel* fleet = w.fleetModel();
        QVERIFY(fleet->folders().contains(folder));
        const QString remoteUrl = m_url;
        QVERIFY2(
            waitFor([&] { return fleet->rowOf(remoteUrl) >= 0; }, 30000),
            qPrintable(fleet->rowCount() > 0
                           ? fleet->data(fleet->index(0), lq::ui::FleetModel::ReasonRole).toString()
                           : QStringLiteral("no rows")));
        const int row = fleet->rowOf(remoteUrl);
        const auto counts = Queue::open(m_remote.toStdString())->counts();
        QCOMPARE(fleet->data(fleet->index(row), lq::ui::FleetModel::FailedRole).toLongLong(),
                 counts.failed);
        QCOMPARE(fleet->data(fleet->index(row), lq::ui::FleetModel::ReadyRole).toLongLong(),
                 counts.ready);
        QVERIFY(fleet->rowOf(m_sshd.url() + m_local) >= 0);
        // A change on the host shows at a later scan (no local watcher).
        const QString extraUrl = m_sshd.url() + extra;
        QVERIFY(waitFor([&] { return fleet->rowOf(extraUrl) >= 0; }, 15000));
        (void)Queue::open(extra.toStdString())->put("{\"sidebar\":3}");
        fleet->setScanInterval(200);
        QVERIFY(waitFor(
            [&] {
                const int r = fleet->rowOf(extraUrl);
                return r >= 0 &&
                       fleet->data(fleet->index(r), lq::ui::FleetModel::ReadyRole).toLongLong() ==
                           4;
            },
            15000));
        // Clicking the row opens the queue over ssh.
        w.openQueue(remoteUrl, {});
        QVERIFY2(waitFor([&] { return w.isReady() && w.currentPath() == remoteUrl; }, 30000),
                 qPrintable(bannerText(w)));
    }

    void remoteWindow() {
        MainWindow local;
        local.openFile(m_local);
        QVERIFY(waitFor([&] { return local.isReady() && local.currentPath() == m_local; }, 15000));
        QVERIFY(waitFor([&] { return local.model()->rowCount() == 30; }, 10000));

        MainWindow w;
        w.setConfirmHandler([](const QString&, qint64) { return true; });
        w.setReportHandler([](const MainWindow::ActionReport&) {});
        w.resize(1100, 700);
        w.show();
        w.openFile(m_url);
        QVERIFY2(waitFor([&] { return w.isReady() && w.currentPath() == m_url; }, 30000),
                 qPrintable(bannerText(w)));
        // The same rows as the local copy, in the same order.
        QVERIFY(waitFor([&] { return w.model()->rowCount() == 30; }, 15000));
        QVERIFY(waitFor(
            [&] {
                for (int r = 0; r < 30; ++r) {
                    const QModelIndex a = w.model()->index(r, 0);
                    const QModelIndex b = local.model()->index(r, 0);
                    if (w.model()->data(a, MessageModel::MessageIdRole).toString().isEmpty() ||
                        w.model()->data(a, MessageModel::MessageIdRole) !=
                            local.model()->data(b, MessageModel::MessageIdRole))
                        return false;
                }
                return true;
            },
            15000));

        // The failed ones: retry one with its claim, then undo it.
        QTest::mouseClick(w.filterBar()->button(lq::ui::StatusFilterBar::Failed), Qt::LeftButton);
        QVERIFY(waitFor([&] { return w.model()->rowCount() == 4; }, 15000));
        QVERIFY(waitFor(
            [&] {
                return !w.model()
                            ->data(w.model()->index(1, 0), MessageModel::MessageIdRole)
                            .isNull();
            },
            10000));
        const QModelIndex idx = w.model()->index(1, 0);
        const QString id = w.model()->data(idx, MessageModel::MessageIdRole).toString();
        w.view()->selectionModel()->setCurrentIndex(idx, QItemSelectionModel::ClearAndSelect |
                                                             QItemSelectionModel::Rows);
        int reports = w.reportCount();
        w.retrySelected();
        QVERIFY(waitFor([&] { return w.reportCount() > reports && !w.isBusy(); }, 20000));
        QVERIFY2(w.lastReport().error.isEmpty(), qPrintable(w.lastReport().error));
        QCOMPARE(w.lastReport().applied, 1);
        QCOMPARE(Queue::open(m_remote.toStdString())->get(id.toStdString())->state, State::Ready);
        // The audit record is this machine's and names the URL.
        {
            lq::core::AuditLog log;
            QCOMPARE(
                log.entries(lq::core::remote::SshUrl::parse(m_url.toStdString()).display()).size(),
                std::size_t(1));
        }
        // The pushed change reaches the view: three failed left.
        QVERIFY(waitFor([&] { return w.model()->rowCount() == 3; }, 15000));
        reports = w.reportCount();
        w.undoLastAction();
        QVERIFY(waitFor([&] { return w.reportCount() > reports && !w.isBusy(); }, 20000));
        QVERIFY2(w.lastReport().error.isEmpty(), qPrintable(w.lastReport().error));
        QCOMPARE(w.lastReport().applied, 1);
        QCOMPARE(Queue::open(m_remote.toStdString())->get(id.toStdString())->state, State::Failed);
        QVERIFY(waitFor([&] { return w.model()->rowCount() == 4; }, 15000));

        // Cut the connection: the banner, writes off, then back by itself.
        const auto kids = sshChildren();
        QVERIFY(!kids.empty());
        for (pid_t p : kids)
            ::kill(p, SIGKILL);
        QVERIFY2(waitFor([&] { return bannerText(w).contains(QStringLiteral("lost")); }, 15000),
                 qPrintable(bannerText(w)));
        QVERIFY(bannerText(w).contains(QStringLiteral("Connection to 127.0.0.1 lost")));
        QVERIFY(!w.action(QStringLiteral("retryExpired"))->isEnabled());
        QVERIFY2(waitFor([&] { return !bannerText(w).contains(QStringLiteral("lost")); }, 30000),
                 qPrintable(bannerText(w)));
        QVERIFY(!sshChildren().empty());
        // The view was kept (the Failed filter) and shows data again,
        // including a change made while it was away.
        QCOMPARE(w.model()->rowCount(), 4);
        {
            auto q = Queue::open(m_remote.toStdString());
            const auto m = q->pop();
            QVERIFY(m && q->markFailed(m->messageId, m->claimId));
        }
        QVERIFY(waitFor([&] { return w.model()->rowCount() == 5; }, 15000));
        QVERIFY(w.action(QStringLiteral("retryExpired"))->isEnabled());
    }
};

QTEST_MAIN(TstRemoteGui)
#include "tst_remote_gui.moc"
