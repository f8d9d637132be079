// SPDX-License-Identifier: MIT
// One truth per queue: on every fixture of tests/data (every format), for the
// whole file and each named queue, the window's chips, its sidebar row and
// its dashboard cards, `lqctl stats --json`, `stats --prometheus`,
// `fleet --json` and the same stats over ssh (the remote protocol, through a
// real sshd on 127.0.0.1) tell the same counts, by the same state names, and
// each partition sums to the rows stored (core/statemodel.h). The same for
// the six libraries on a private PostgreSQL 15 server (no ssh leg there).
#include "support/fixtures.h"
#include "support/lqctlrun.h"
#include "support/pgcopy.h"
#include "support/pgserver.h"
#include "support/sshd.h"
#include "testhelpers.h"
#include "ui/dashboardwidget.h"
#include "ui/fleetmodel.h"
#include "ui/mainwindow.h"
#include "ui/messagespage.h"
#include "ui/statusfilterbar.h"
#include "windowharness.h"

#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLocale>
#include <QMap>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

using namespace lq::test;
using lq::ui::StatusFilterBar;

namespace {

using Partition = QMap<QString, qint64>;

QString dump(const Partition& p) {
    QStringList parts;
    for (auto it = p.begin(); it != p.end(); ++it) {
        parts << it.key() + QLatin1Char('=') + QString::number(it.value());
    }
    return parts.join(QLatin1Char(' '));
}

/// The partition of a --json counts object: every key but active and
/// stored, and every key of extra.
Partition partitionOf(const QJsonObject& counts) {
    Partition p;
    for (auto it = counts.begin(); it != counts.end(); ++it) {
        if (it.key() == QLatin1String("active") || it.key() == QLatin1String("stored")) {
            continue;
        }
        if (it.key() == QLatin1String("extra")) {
            const QJsonObject extra = it.value().toObject();
            for (auto x = extra.begin(); x != extra.end(); ++x) {
                p.insert(x.key(), x.value().toInteger());
            }
            continue;
        }
        p.insert(it.key(), it.value().toInteger());
    }
    return p;
}

qint64 sum(const Partition& p) {
    qint64 n = 0;
    for (qint64 v : p) {
        n += v;
    }
    return n;
}

/// "Ready 1,234" -> 1234.
qint64 chipNumber(const QString& text) {
    const QString n = text.section(u' ', -1);
    bool ok = false;
    const qint64 v = QLocale().toLongLong(n, &ok);
    return ok ? v : -1;
}

/// The samples of one Prometheus family with `match` among their labels,
/// by their status label.
Partition promFamily(const QByteArray& text, const QString& family, const QString& match,
                     qint64* stored = nullptr) {
    Partition p;
    const QRegularExpression status(QStringLiteral("status=\"([^\"]*)\""));
    for (const QByteArray& raw : text.split('\n')) {
        const QString line = QString::fromUtf8(raw);
        if (stored && line.startsWith(QStringLiteral("lq_stored_messages{"))) {
            *stored = line.section(u' ', -1).toLongLong();
        }
        if (!line.startsWith(family + u'{') || (!match.isEmpty() && !line.contains(match))) {
            continue;
        }
        const auto m = status.match(line);
        if (m.hasMatch()) {
            p.insert(m.captured(1), line.section(u' ', -1).toLongLong());
        }
    }
    return p;
}

} // namespace

class TestOneTruth : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void cleanupTestCase();
    void everyViewTellsTheSameCounts_data();
    void everyViewTellsTheSameCounts();
    void everyViewTellsTheSameCountsOnPostgres_data();
    void everyViewTellsTheSameCountsOnPostgres();

private:
    /// The comparison for the queue at `path` (a file or a database URL),
    /// `fleetEntry` its entry of `lqctl fleet --json`; `overSsh`: its stats
    /// over ssh too.
    void checkEveryView(const QString& path, const QJsonObject& fleetEntry, bool overSsh);
    QJsonObject json(const QStringList& args, const QString& file) {
        const LqctlResult r = lqctl(args);
        if (r.code != 0) {
            qWarning("lqctl %s (%d): %s", qPrintable(args.join(u' ')), r.code, r.err.constData());
        }
        const QJsonObject o = QJsonDocument::fromJson(r.out).object();
        (void)file;
        return o;
    }
    LqctlResult lqctl(const QStringList& args) const {
        return runLqctl(lqctlPath(), args, m_tmp.filePath(QStringLiteral("audit")));
    }

    QTemporaryDir m_tmp;
    TestSshd m_sshd{m_tmp};
    QString m_sshdError;
    std::unique_ptr<PgServer> m_pg;
};

void TestOneTruth::initTestCase() {
    QVERIFY(m_tmp.isValid());
    QStandardPaths::setTestModeEnabled(true);
    qputenv("LQ_AUDIT_DIR", m_tmp.filePath(QStringLiteral("audit")).toUtf8());
    m_sshdError = m_sshd.start();
    // lqctl reaches ssh:// queues through this sshd, and runs itself there.
    qputenv("LQ_SSH_OPTS", m_sshd.sshOpts().toUtf8());
    qputenv("LQ_REMOTE_LQCTL", lqctlPath().toUtf8());
}

void TestOneTruth::cleanupTestCase() {
    m_sshd.stop();
}

void TestOneTruth::everyViewTellsTheSameCounts_data() {
    QTest::addColumn<QString>("fixture");
    for (const char* f :
         {"litequeue-head-mixed.sqlite3", "litequeue-head-maxsize.sqlite3",
          "seed-jobs-leases.sqlite3", "formats/solid-queue.sqlite3",
          "formats/laravel-database.sqlite3", "formats/oban-lite.sqlite3",
          "formats/river-v7.sqlite3", "formats/liteque-queue.db", "formats/goqite.sqlite3",
          "formats/backlite.sqlite3", "formats/plainjob.sqlite3", "formats/delayed-job.sqlite3",
          "formats/symfony-messenger.sqlite3", "formats/django-tasks-db.sqlite3",
          "formats/hangfire-sqlite.sqlite3"}) {
        QTest::newRow(f) << QString::fromLatin1(f);
    }
}

void TestOneTruth::everyViewTellsTheSameCounts() {
    QFETCH(QString, fixture);
    QTemporaryDir dir;
    const QString path = QFileInfo(copyFixture(dir, fixture)).absoluteFilePath();
    QVERIFY(QFileInfo::exists(path));

    // lqctl fleet over the folder, once.
    const QJsonObject fleet =
        json({QStringLiteral("fleet"), dir.path(), QStringLiteral("--json")}, path);
    QJsonObject fleetEntry;
    for (const auto& e : fleet.value(QStringLiteral("queues")).toArray()) {
        if (QFileInfo(e.toObject().value(QStringLiteral("path")).toString()).absoluteFilePath() ==
            path) {
            fleetEntry = e.toObject();
        }
    }
    QVERIFY2(!fleetEntry.isEmpty(), fleet.isEmpty() ? "no fleet output" : "file not in fleet");
    checkEveryView(path, fleetEntry, true);
}

void TestOneTruth::everyViewTellsTheSameCountsOnPostgres_data() {
    QTest::addColumn<QString>("url");
    if (!m_pg) {
        m_pg = std::make_unique<PgServer>();
        if (!m_pg->ok()) {
            QSKIP(qPrintable(m_pg->error()));
        }
        // Solid Queue, Oban and River: their SQLite fixtures copied over;
        // GoodJob: its rows; pg-boss and Graphile Worker: the schemas and
        // jobs their own npm packages made (tests/data/FIXTURES.md), each
        // in a database of its own.
        QTemporaryDir tmp;
        for (const auto& fc : pgFormatCases()) {
            const QString err = loadPgFormat(*m_pg, fc, tmp);
            QVERIFY2(err.isEmpty(), qPrintable(err));
        }
        const QString dir = dataDir() + QStringLiteral("/pg/");
        const auto script = [&](const QString& file) {
            QFile f(dir + file);
            return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
        };
        QString err =
            m_pg->execScript(script(QStringLiteral("good-job.sql")), QStringLiteral("gj"));
        QVERIFY2(err.isEmpty(), qPrintable(err));
        err = m_pg->execScript(script(QStringLiteral("good-job-rows.sql")), QStringLiteral("gj"));
        QVERIFY2(err.isEmpty(), qPrintable(err));
        for (const auto& [db, file] :
             {std::pair<const char*, const char*>{"pgboss", "pg-boss-npm.sql"},
              {"graphile", "graphile-worker-npm.sql"}}) {
            QVERIFY(m_pg->createDatabase(QLatin1String(db)));
            err = m_pg->execScript(script(QLatin1String(file)), {}, QLatin1String(db));
            QVERIFY2(err.isEmpty(), qPrintable(err));
        }
    }
    for (const auto& fc : pgFormatCases()) {
        QTest::newRow(fc.library) << m_pg->url() + QStringLiteral("?schema=") +
                                         QLatin1String(fc.schema);
    }
    QTest::newRow("good-job") << m_pg->url() + QStringLiteral("?schema=gj");
    QTest::newRow("pg-boss") << m_pg->url(QStringLiteral("pgboss"));
    QTest::newRow("graphile-worker") << m_pg->url(QStringLiteral("graphile"));
}

/// The same on PostgreSQL: the window, --json, Prometheus and the fleet
/// (a database has no ssh leg: libpq reaches it).
void TestOneTruth::everyViewTellsTheSameCountsOnPostgres() {
    QFETCH(QString, url);
    const QJsonObject fleet = json({QStringLiteral("fleet"), url, QStringLiteral("--json")}, url);
    const QJsonArray entries = fleet.value(QStringLiteral("queues")).toArray();
    QCOMPARE(entries.size(), 1);
    checkEveryView(url, entries.first().toObject(), false);
}

void TestOneTruth::checkEveryView(const QString& path, const QJsonObject& fleetEntry,
                                  bool overSsh) {
    // The queue's named queues, and the file as a whole ("").
    const QJsonObject info = json({QStringLiteral("info"), path, QStringLiteral("--json")}, path);
    QVERIFY2(!info.isEmpty(), qPrintable(path));
    QStringList queues{QString()};
    for (const auto& q : info.value(QStringLiteral("queues")).toArray()) {
        queues << q.toObject().value(QStringLiteral("name")).toString();
    }

    const QByteArray prom =
        lqctl({QStringLiteral("stats"), path, QStringLiteral("--prometheus")}).out;

    WindowHarness h;
    QVERIFY(h.openAndWait(path));

    for (const QString& queue : queues) {
        const QString what = queue.isEmpty() ? QStringLiteral("whole file") : queue;
        QStringList args{QStringLiteral("stats"), path, QStringLiteral("--json")};
        if (!queue.isEmpty()) {
            args << QStringLiteral("--queue") << queue;
        }
        const QJsonObject counts = json(args, path).value(QStringLiteral("counts")).toObject();
        const Partition truth = partitionOf(counts);
        const qint64 stored = counts.value(QStringLiteral("stored")).toInteger();
        QVERIFY2(!truth.isEmpty(), qPrintable(what));
        QVERIFY2(sum(truth) == stored,
                 qPrintable(what + QStringLiteral(": ") + dump(truth) + QStringLiteral(" stored=") +
                            QString::number(stored)));

        // Prometheus: the same states, none dropped; the file's sum is stored.
        if (queue.isEmpty()) {
            qint64 promStored = -1;
            const Partition p = promFamily(prom, QStringLiteral("lq_messages"), {}, &promStored);
            QVERIFY2(p == truth, qPrintable(QStringLiteral("prometheus ") + dump(p) +
                                            QStringLiteral(" vs --json ") + dump(truth)));
            QCOMPARE(promStored, stored);
        } else {
            const Partition p = promFamily(prom, QStringLiteral("lq_named_queue_messages"),
                                           QStringLiteral("queue_name=\"%1\"").arg(queue));
            QVERIFY2(p == truth, qPrintable(what + QStringLiteral(": prometheus ") + dump(p) +
                                            QStringLiteral(" vs --json ") + dump(truth)));
        }

        // lqctl fleet --json.
        QJsonObject f = fleetEntry;
        if (!queue.isEmpty()) {
            f = {};
            for (const auto& q : fleetEntry.value(QStringLiteral("queues")).toArray()) {
                if (q.toObject().value(QStringLiteral("name")).toString() == queue) {
                    f = q.toObject();
                }
            }
        }
        QJsonObject fleetCounts;
        for (const QString& k : truth.keys()) {
            if (f.contains(k)) {
                fleetCounts.insert(k, f.value(k));
            }
        }
        fleetCounts.insert(QStringLiteral("extra"), f.value(QStringLiteral("extra")));
        const Partition fp = partitionOf(fleetCounts);
        QVERIFY2(fp == truth, qPrintable(what + QStringLiteral(": fleet ") + dump(fp) +
                                         QStringLiteral(" vs --json ") + dump(truth)));

        // The remote protocol, over ssh.
        if (!overSsh) {
            // a database: libpq's own reach
        } else if (m_sshdError.isEmpty()) {
            QStringList remote{QStringLiteral("stats"), m_sshd.url() + path,
                               QStringLiteral("--json")};
            if (!queue.isEmpty()) {
                remote << QStringLiteral("--queue") << queue;
            }
            const Partition rp =
                partitionOf(json(remote, path).value(QStringLiteral("counts")).toObject());
            QVERIFY2(rp == truth, qPrintable(what + QStringLiteral(": over ssh ") + dump(rp) +
                                             QStringLiteral(" vs --json ") + dump(truth)));
        } else {
            qWarning("sshd: %s; the remote protocol is not compared", qPrintable(m_sshdError));
        }

        // The window: the queue chosen, its chips.
        if (!queue.isEmpty()) {
            QComboBox* combo = h.w.findChild<QComboBox*>(QStringLiteral("queueFilter"));
            QVERIFY(combo);
            // The names are read in a worker after the open.
            QTRY_VERIFY2_WITH_TIMEOUT(combo->findData(queue) >= 0, qPrintable(queue),
                                      WindowHarness::kWaitMs);
            combo->setCurrentIndex(combo->findData(queue));
        } else if (QComboBox* combo = h.w.findChild<QComboBox*>(QStringLiteral("queueFilter"));
                   combo && combo->count() > 0) {
            combo->setCurrentIndex(0);
        }
        StatusFilterBar* bar = h.w.filterBar();
        // Each chip carries the state model's name of its state ("lqState").
        const auto chip = [&](const QString& name) -> QToolButton* {
            for (QToolButton* b : bar->findChildren<QToolButton*>()) {
                if (b->isVisible() && b->property("lqState").toString() == name) {
                    return b;
                }
            }
            return nullptr;
        };
        QTRY_COMPARE_WITH_TIMEOUT(chipNumber(bar->button(StatusFilterBar::All)->text()), stored,
                                  WindowHarness::kWaitMs);
        for (auto it = truth.begin(); it != truth.end(); ++it) {
            QToolButton* b = chip(it.key());
            if (!b) {
                // No chip: a state the format does not have holds nothing.
                QVERIFY2(it.value() == 0,
                         qPrintable(what + QStringLiteral(": no chip for ") + it.key() +
                                    QLatin1Char(' ') + QString::number(it.value())));
                continue;
            }
            QTRY_VERIFY2_WITH_TIMEOUT(chipNumber(b->text()) == it.value(),
                                      qPrintable(what + QStringLiteral(": chip ") + b->text() +
                                                 QStringLiteral(" vs --json ") + it.key() +
                                                 QLatin1Char('=') + QString::number(it.value())),
                                      WindowHarness::kWaitMs);
        }

        // The sidebar row of the file or of the named queue: "N name · ...".
        lq::ui::FleetModel* fm = h.w.fleetModel();
        const int row = fm->rowOf(path, QString(), queue);
        if (row >= 0) {
            QTRY_VERIFY_WITH_TIMEOUT(
                !fm->data(fm->index(row), lq::ui::FleetModel::SummaryRole).toString().isEmpty(),
                WindowHarness::kWaitMs);
            const QString summary =
                fm->data(fm->index(row), lq::ui::FleetModel::SummaryRole).toString();
            for (const QString& part : summary.split(QStringLiteral(" \u00b7 "))) {
                const QString name = part.section(u' ', 1);
                if (!truth.contains(name)) {
                    continue; // "3 stuck", "read-only"
                }
                QVERIFY2(QLocale().toLongLong(part.section(u' ', 0, 0)) == truth.value(name),
                         qPrintable(what + QStringLiteral(": sidebar ") + summary +
                                    QStringLiteral(" vs --json ") + dump(truth)));
            }
            for (auto it = truth.begin(); it != truth.end(); ++it) {
                if (it.value() > 0) {
                    QVERIFY2(summary.contains(QLocale().toString(it.value()) + u' ' + it.key()),
                             qPrintable(what + QStringLiteral(": sidebar ") + summary +
                                        QStringLiteral(" lacks ") + it.key()));
                }
            }
        }
    }

    // The dashboard's cards: the whole file.
    if (QComboBox* combo = h.w.findChild<QComboBox*>(QStringLiteral("queueFilter"));
        combo && combo->count() > 0) {
        combo->setCurrentIndex(0);
    }
    const Partition truth =
        partitionOf(json({QStringLiteral("stats"), path, QStringLiteral("--json")}, path)
                        .value(QStringLiteral("counts"))
                        .toObject());
    h.w.tabs()->setCurrentWidget(h.w.dashboard());
    QTRY_VERIFY_WITH_TIMEOUT(h.w.dashboard()->hasData(), WindowHarness::kWaitMs);
    int shown = 0;
    for (QFrame* card : h.w.dashboard()->findChildren<QFrame*>(QStringLiteral("stateCard"))) {
        const QString name = card->property("lqState").toString();
        if (name.isEmpty() || !card->isVisible()) {
            continue;
        }
        auto* value = card->findChild<QLabel*>(QStringLiteral("cardValue"));
        QVERIFY(value);
        QTRY_VERIFY2(QLocale().toLongLong(value->text()) == truth.value(name),
                     qPrintable(QStringLiteral("dashboard card ") + name + QLatin1Char(' ') +
                                value->text() + QStringLiteral(" vs --json ") + dump(truth)));
        ++shown;
    }
    QVERIFY(shown > 0);
    for (auto it = truth.begin(); it != truth.end(); ++it) {
        if (it.value() > 0) {
            bool carded = false;
            for (QFrame* card :
                 h.w.dashboard()->findChildren<QFrame*>(QStringLiteral("stateCard"))) {
                carded |= card->isVisible() && card->property("lqState").toString() == it.key();
            }
            QVERIFY2(carded, qPrintable(QStringLiteral("no dashboard card for ") + it.key()));
        }
    }
}

QTEST_MAIN(TestOneTruth)
#include "tst_onetruth.moc"
