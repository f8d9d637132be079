// SPDX-License-Identifier: MIT
#pragma once

// A fleet of helper processes for the stress runs (litequeue and jobs-lease):
// started with their own log, killed with SIGKILL and restarted with a new
// log, checked for early exits, stopped and reaped. No process outlives the
// test: the destructor kills what still runs. Methods return "" or what went
// wrong, for the test to QVERIFY2.

#include <QFile>
#include <QProcess>
#include <QRandomGenerator>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>
#include <vector>

namespace lqstress {

inline QString lastLine(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    const auto lines = f.readAll().trimmed().split('\n');
    return QString::fromUtf8(lines.isEmpty() ? QByteArray() : lines.last());
}

class Fleet {
public:
    struct Proc {
        QString role;
        QString log;
        QStringList args; ///< as started; "--log" followed by `log`
        std::unique_ptr<QProcess> p;
        bool killed = false;
    };

    explicit Fleet(QString program)
        : m_program(std::move(program)) {}
    Fleet(const Fleet&) = delete;
    Fleet& operator=(const Fleet&) = delete;
    ~Fleet() {
        for (auto& pr : m_procs)
            if (pr.p->state() != QProcess::NotRunning) {
                pr.p->kill();
                pr.p->waitForFinished(5000);
            }
    }

    /// Starts `program args...`; `args` holds "--log" and the log path.
    std::size_t start(const QString& role, const QStringList& args) {
        Proc pr;
        pr.role = role;
        pr.args = args;
        const auto at = args.indexOf(QStringLiteral("--log"));
        pr.log = at >= 0 && at + 1 < args.size() ? args.at(at + 1) : QString();
        pr.p = std::make_unique<QProcess>();
        pr.p->setProcessChannelMode(QProcess::ForwardedErrorChannel);
        pr.p->setStandardOutputFile(QProcess::nullDevice());
        pr.p->start(m_program, args);
        m_procs.push_back(std::move(pr));
        return m_procs.size() - 1;
    }

    QString waitStarted() const {
        for (const auto& pr : m_procs)
            if (!pr.p->waitForStarted(10000))
                return pr.role + QStringLiteral(" did not start");
        return {};
    }

    /// SIGKILLs process `i` (it must still run) and starts it again with the
    /// same arguments and the log `newLog`; returns the new index in `*now`.
    QString killAndRestart(std::size_t i, const QString& newLog, std::size_t* now) {
        Proc& victim = m_procs[i];
        if (victim.p->state() != QProcess::Running)
            return QStringLiteral("a ") + victim.role + QStringLiteral(" stopped on its own: ") +
                   lastLine(victim.log);
        victim.p->kill();
        if (!victim.p->waitForFinished(10000))
            return victim.role + QStringLiteral(" did not die of SIGKILL within 10 s");
        victim.killed = true;
        QStringList args = victim.args;
        args[args.indexOf(QStringLiteral("--log")) + 1] = newLog;
        const QString role = victim.role;
        *now = start(role, args);
        if (!m_procs.back().p->waitForStarted(10000))
            return role + QStringLiteral(" did not restart");
        return {};
    }

    /// Every process not killed still runs, except those `mayStop` allows.
    QString checkRunning(const std::function<bool(const Proc&)>& mayStop = {}) const {
        for (const auto& pr : m_procs)
            if (!pr.killed && pr.p->state() != QProcess::Running && !(mayStop && mayStop(pr)))
                return pr.role + QStringLiteral(" exited early with code ") +
                       QString::number(pr.p->exitCode()) + QStringLiteral(": ") + lastLine(pr.log);
        return {};
    }

    /// After the stop file: every process not killed ends by itself, with 0.
    QString waitStopped(int ms = 60000) const {
        for (const auto& pr : m_procs) {
            if (pr.killed)
                continue;
            if (pr.p->state() != QProcess::NotRunning && !pr.p->waitForFinished(ms))
                return pr.role + QStringLiteral(" did not stop within %1 s").arg(ms / 1000);
            if (pr.p->exitStatus() != QProcess::NormalExit || pr.p->exitCode() != 0)
                return pr.role + QStringLiteral(" exited with code ") +
                       QString::number(pr.p->exitCode()) + QStringLiteral(": ") + lastLine(pr.log);
        }
        return {};
    }

    std::vector<Proc>& procs() { return m_procs; }
    const std::vector<Proc>& procs() const { return m_procs; }

private:
    QString m_program;
    std::vector<Proc> m_procs;
};

} // namespace lqstress
