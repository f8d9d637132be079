// SPDX-License-Identifier: MIT
#pragma once

// A real OpenSSH server on 127.0.0.1 for the remote suites: a generated
// host key and client key, sshd's own config and a client config (passed
// with -F, as $LQ_SSH_OPTS) in the test's temporary folder, a free port,
// and teardown when the suite ends. Header-only, POSIX only; QtTest for
// the wait while sshd comes up.

#include "support/net.h"

#include <QByteArray>
#include <QFile>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <QTest>

#include <unistd.h>

#include <filesystem>

namespace lq::test {

class TestSshd {
public:
    struct Result {
        int code = -1; ///< -1: crashed or timed out
        QByteArray out, err;
    };

    /// Keys and configs go to `dir`, which must outlive this server.
    explicit TestSshd(const QTemporaryDir& dir)
        : m_folder(dir.isValid() ? dir.path() : QString()) {}
    ~TestSshd() { stop(); }
    TestSshd(const TestSshd&) = delete;
    TestSshd& operator=(const TestSshd&) = delete;
    TestSshd(TestSshd&&) = delete;
    TestSshd& operator=(TestSshd&&) = delete;

    /// Generates the keys, writes the configs, starts sshd and waits until a
    /// command goes through with the client config. Empty when it is up,
    /// else what went wrong.
    QString start() {
        if (m_folder.isEmpty())
            return QStringLiteral("no temporary folder for sshd");
        if (!QFile::exists(QStringLiteral("/usr/sbin/sshd")))
            return QStringLiteral(
                "/usr/sbin/sshd is missing: install openssh-server (scripts/test does)");
        for (const char* key : {"host_key", "id"}) {
            const Result k =
                run(QStringLiteral("ssh-keygen"),
                    {QStringLiteral("-q"), QStringLiteral("-t"), QStringLiteral("ed25519"),
                     QStringLiteral("-N"), QString(), QStringLiteral("-f"), path(key)});
            if (k.code != 0)
                return QStringLiteral("ssh-keygen failed: ") + QString::fromUtf8(k.err);
        }
        if (!QFile::copy(path("id.pub"), path("authorized_keys")))
            return QStringLiteral("cannot write authorized_keys");
        m_port = freePort();
        if (m_port <= 0)
            return QStringLiteral("no free port on 127.0.0.1");
        const QString sshdConfig = path("sshd_config");
        if (!write(sshdConfig,
                   QStringLiteral("Port %1\nListenAddress 127.0.0.1\nHostKey %2\nPidFile %3\n"
                                  "AuthorizedKeysFile %4\nUsePAM no\nStrictModes no\n"
                                  "PermitRootLogin prohibit-password\nPasswordAuthentication no\n"
                                  "KbdInteractiveAuthentication no\nPubkeyAuthentication yes\n"
                                  "LogLevel ERROR\n")
                       .arg(m_port)
                       .arg(path("host_key"), path("sshd.pid"), path("authorized_keys"))))
            return QStringLiteral("cannot write ") + sshdConfig;
        if (!write(clientConfig(),
                   QStringLiteral("Host *\n  IdentityFile %1\n  IdentitiesOnly yes\n"
                                  "  UserKnownHostsFile %2\n  StrictHostKeyChecking accept-new\n"
                                  "  LogLevel ERROR\n")
                       .arg(path("id"), path("known_hosts"))))
            return QStringLiteral("cannot write ") + clientConfig();
        // sshd running as root wants its privilege separation folder.
        if (::geteuid() == 0)
            std::filesystem::create_directories("/run/sshd");
        m_sshd.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        m_sshd.start(
            QStringLiteral("/usr/sbin/sshd"),
            {QStringLiteral("-f"), sshdConfig, QStringLiteral("-D"), QStringLiteral("-e")});
        if (!m_sshd.waitForStarted())
            return QStringLiteral("sshd did not start: ") + m_sshd.errorString();
        m_user = userName();
        // Ready when a command goes through.
        for (int i = 0; i < 100; ++i) {
            const Result r = run(QStringLiteral("ssh"),
                                 {QStringLiteral("-F"), clientConfig(), QStringLiteral("-p"),
                                  QString::number(m_port), m_user + QStringLiteral("@127.0.0.1"),
                                  QStringLiteral("true")});
            if (r.code == 0)
                return {};
            QTest::qWait(100);
        }
        return QStringLiteral("sshd did not accept the test key on 127.0.0.1");
    }

    /// Stops sshd (the suite's cleanupTestCase; the destructor does it too).
    void stop() {
        if (m_sshd.state() != QProcess::NotRunning) {
            m_sshd.terminate();
            m_sshd.waitForFinished(5000);
        }
    }

    int port() const { return m_port; }
    /// The client config for ssh -F.
    QString clientConfig() const { return path("ssh_config"); }
    /// What $LQ_SSH_OPTS holds for lqctl and lqadmin's ssh.
    QString sshOpts() const { return QStringLiteral("-F ") + clientConfig(); }
    /// ssh://USER@127.0.0.1:PORT (append the remote path).
    QString url() const { return QStringLiteral("ssh://%1@127.0.0.1:%2").arg(m_user).arg(m_port); }

    /// Runs `program` with `args`, stdin closed, in `env`.
    static Result run(const QString& program, const QStringList& args, int timeoutMs = 30000,
                      const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment()) {
        QProcess p;
        p.setProcessEnvironment(env);
        p.start(program, args);
        p.closeWriteChannel();
        if (!p.waitForFinished(timeoutMs)) {
            p.kill();
            p.waitForFinished();
            return {};
        }
        return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
                p.readAllStandardOutput(), p.readAllStandardError()};
    }

private:
    QString path(const char* name) const { return m_folder + u'/' + QString::fromUtf8(name); }

    static bool write(const QString& file, const QString& text) {
        QFile f(file);
        return f.open(QIODevice::WriteOnly) && f.write(text.toUtf8()) >= 0;
    }

    static QString userName() {
        const Result r = run(QStringLiteral("id"), {QStringLiteral("-un")});
        return QString::fromUtf8(r.out).trimmed();
    }

    QString m_folder;
    QProcess m_sshd;
    int m_port = 0;
    QString m_user;
};

} // namespace lq::test
