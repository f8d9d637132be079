// SPDX-License-Identifier: MIT
// MessageModel: exact counts, block loading, live merge under a concurrent
// writer (QAbstractItemModelTester watches every signal), plain-text
// tooltips.

#include "core/queue.h"
#include "testhelpers.h"
#include "ui/messagemodel.h"

#include <QAbstractItemModelTester>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>

#include <atomic>
#include <random>
#include <thread>

using lq::core::Filter;
using lq::core::Queue;
using lq::core::State;
using lq::ui::MessageModel;
using namespace lq::test;

class TestMessageModel : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void fixtureCountsAndFilter();
    void blocksLoadOnDemand();
    void appendIsAnInsertNotAReset();
    void concurrentWriter_data();
    void concurrentWriter();
    void htmlPayloadIsEscapedInToolTip();
    void sortByTimeColumns();

private:
    QTemporaryDir m_tmp;
};

void TestMessageModel::initTestCase() {
    QVERIFY(m_tmp.isValid());
    qputenv("LQ_AUDIT_DIR", m_tmp.filePath(QStringLiteral("audit")).toUtf8());
}

void TestMessageModel::fixtureCountsAndFilter() {
    QTemporaryDir dir;
    const QString path = copyFixture(dir, QStringLiteral("litequeue-head-mixed.sqlite3"));
    MessageModel model;
    QAbstractItemModelTester tester(&model);
    std::shared_ptr<Queue> q = Queue::open(path.toStdString());
    QSignalSpy counts(&model, &MessageModel::countsChanged);
    model.setQueue(q, path);
    QTRY_COMPARE(model.rowCount(), 400);
    QTRY_COMPARE(model.counts().failed, 20);
    QCOMPARE(model.counts().ready, 58);
    QCOMPARE(model.counts().locked, 14);
    QCOMPARE(model.counts().done, 308);
    QVERIFY(counts.count() >= 1);

    Filter f;
    f.states = {State::Failed};
    model.setFilter(f);
    QTRY_COMPARE(model.rowCount(), 20);
    QTRY_VERIFY(allLoaded(&model));
    for (int r = 0; r < model.rowCount(); ++r) {
        QCOMPARE(model.data(model.index(r, MessageModel::Status), MessageModel::StateRole).toInt(),
                 int(State::Failed));
    }
    f.states.clear();
    f.search = "019593ca-78ca-7241-b227-738b3bec0225";
    model.setFilter(f);
    QTRY_COMPARE(model.rowCount(), 1);
    QTRY_VERIFY(rowLoaded(&model, 0));
    QCOMPARE(idAt(&model, 0), QStringLiteral("019593ca-78ca-7241-b227-738b3bec0225"));
    // Tooltips carry the exact ns and UTC of the times.
    const QString tip =
        model.data(model.index(0, MessageModel::Enqueued), Qt::ToolTipRole).toString();
    QVERIFY2(tip.contains(QStringLiteral("1741941274826866112")), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("2025-03-14T08:34:34.826866112Z")), qPrintable(tip));
}

void TestMessageModel::blocksLoadOnDemand() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("big.sqlite3"));
    {
        auto q = Queue::create(path.toStdString());
        std::vector<lq::core::PutItem> items(3000);
        for (std::size_t i = 0; i < items.size(); ++i) {
            items[i].data = "payload " + std::to_string(i);
        }
        q->putMany(items);
    }
    MessageModel model;
    QAbstractItemModelTester tester(&model);
    model.setQueue(Queue::open(path.toStdString()), path);
    QTRY_COMPARE(model.rowCount(), 3000);
    // Nothing asked yet in the middle: nothing loaded there (the tester
    // probes the first rows).
    QVERIFY(model.rowAt(2000) == nullptr);
    QCOMPARE(model.data(model.index(2000, MessageModel::Payload)).toString(),
             QStringLiteral("\u2026"));
    QTRY_VERIFY(model.rowAt(2000) != nullptr);
    QCOMPARE(model.data(model.index(2000, MessageModel::Payload)).toString(),
             QStringLiteral("payload 2000"));
    // Only the block of the asked row came in.
    QVERIFY(model.rowAt(1500) == nullptr);
    QVERIFY(model.rowAt(2000 + MessageModel::kBlockSize) == nullptr);
}

void TestMessageModel::appendIsAnInsertNotAReset() {
    QTemporaryDir dir;
    const QString path = copyFixture(dir, QStringLiteral("litequeue-head-mixed.sqlite3"));
    MessageModel model;
    QAbstractItemModelTester tester(&model);
    model.setQueue(Queue::open(path.toStdString()), path);
    QTRY_COMPARE(model.rowCount(), 400);
    QTRY_VERIFY(allLoaded(&model));
    QTRY_VERIFY(model.isIdle());

    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
    QSignalSpy inserts(&model, &QAbstractItemModel::rowsInserted);
    QSignalSpy changes(&model, &QAbstractItemModel::dataChanged);
    auto writer = Queue::open(path.toStdString());
    writer->put("appended by another connection");
    const auto popped = writer->pop(); // changes one row in place
    QVERIFY(popped);
    QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 401, 3000);
    QCOMPARE(resets.count(), 0);
    QCOMPARE(inserts.count(), 1);
    QCOMPARE(inserts.first().at(1).toInt(), 400);
    QTRY_VERIFY(rowLoaded(&model, 400));
    QCOMPARE(model.data(model.index(400, MessageModel::Payload)).toString(),
             QStringLiteral("appended by another connection"));
    // The popped row was cached: it changed in place.
    int row = -1;
    for (int r = 0; r < model.rowCount(); ++r) {
        if (idAt(&model, r) == QString::fromStdString(popped->messageId)) {
            row = r;
        }
    }
    QVERIFY(row >= 0);
    QTRY_COMPARE(
        model.data(model.index(row, MessageModel::Status), MessageModel::StateRole).toInt(),
        int(State::Locked));
    QVERIFY(changes.count() > 0);
}

void TestMessageModel::concurrentWriter_data() {
    QTest::addColumn<int>("mode");
    QTest::newRow("all, arrival order") << 0;
    QTest::newRow("ready only") << 1;
    QTest::newRow("done, by finish time descending") << 2;
    QTest::newRow("search, with prunes") << 3;
}

void TestMessageModel::concurrentWriter() {
    QFETCH(int, mode);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("live.sqlite3"));
    {
        auto q = Queue::create(path.toStdString());
        std::vector<lq::core::PutItem> items(600);
        for (std::size_t i = 0; i < items.size(); ++i) {
            items[i].data = (i % 3 ? "job " : "mail ") + std::to_string(i);
        }
        q->putMany(items);
    }

    MessageModel model;
    QAbstractItemModelTester tester(&model); // before the model is filled
    Filter f;
    if (mode == 1) {
        f.states = {State::Ready};
    } else if (mode == 2) {
        f.states = {State::Done};
    } else if (mode == 3) {
        f.search = "mail";
    }
    model.setFilter(f);
    if (mode == 2) {
        model.sort(MessageModel::Finished, Qt::DescendingOrder);
    }
    model.setQueue(Queue::open(path.toStdString()), path);
    QTRY_VERIFY(model.hasOrdering());

    // A "view": keeps asking for the first rows, as painting would.
    QTimer painter;
    connect(&painter, &QTimer::timeout, &model, [&model] {
        const int n = std::min(model.rowCount(), 700);
        for (int r = 0; r < n; ++r) {
            model.data(model.index(r, MessageModel::Status));
        }
    });
    painter.start(30);

    std::atomic_bool stop = false;
    std::atomic_bool finished = false;
    std::atomic_int ops = 0;
    std::string failure;
    std::thread writer([&] {
        try {
            auto q = Queue::open(path.toStdString());
            std::mt19937 rng(unsigned(mode) + 7);
            int i = 0;
            while (!stop) {
                const unsigned r = rng() % 10;
                if (r < 4) {
                    q->put((i % 3 ? "job w" : "mail w") + std::to_string(i));
                } else if (auto m = q->pop()) {
                    if (r < 7) {
                        q->done(m->messageId, m->claimId);
                    } else if (r < 8) {
                        q->retry(m->messageId, m->claimId);
                    } else if (r < 9) {
                        q->markFailed(m->messageId, m->claimId);
                    }
                }
                if (mode == 3 && i % 150 == 149) {
                    q->prune(true);
                }
                ++i;
                ++ops;
                std::this_thread::sleep_for(std::chrono::milliseconds(2));
            }
        } catch (const std::exception& e) {
            failure = e.what();
        }
        finished = true;
    });
    QTimer::singleShot(2000, this, [&stop] { stop = true; });
    QTRY_VERIFY_WITH_TIMEOUT(finished.load(), 20000);
    writer.join();
    QVERIFY2(failure.empty(), failure.c_str());
    QVERIFY(ops > 100);

    // Once the writer is done, the model converges on the file exactly.
    auto check = Queue::open(path.toStdString());
    const std::vector<std::int64_t> expected =
        check->orderedRowids(model.filter(), model.sortOrder());
    auto matches = [&] {
        if (model.rowCount() != int(expected.size())) {
            return false;
        }
        for (int r = 0; r < model.rowCount(); ++r) {
            if (model.rowIdAt(r) != expected[std::size_t(r)]) {
                return false;
            }
        }
        return true;
    };
    QTRY_VERIFY_WITH_TIMEOUT(matches(), 6000);
    const int n = std::min(model.rowCount(), 700);
    std::vector<std::int64_t> ids(expected.begin(), expected.begin() + n);
    const auto rows = check->fetchRowids(ids);
    auto contentMatches = [&] {
        for (int r = 0; r < n; ++r) {
            const lq::ui::MessageRow* row = model.rowAt(r);
            if (!row || row->msg.state != rows[std::size_t(r)].state ||
                row->msg.token != rows[std::size_t(r)].token) {
                model.data(model.index(r, 0));
                return false;
            }
        }
        return true;
    };
    QTRY_VERIFY_WITH_TIMEOUT(contentMatches(), 6000);
}

void TestMessageModel::htmlPayloadIsEscapedInToolTip() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("html.sqlite3"));
    const std::string html = "<b>x</b><img src=x>";
    Queue::create(path.toStdString())->put(html, std::string("<i>key</i>"));
    MessageModel model;
    QAbstractItemModelTester tester(&model);
    model.setQueue(Queue::open(path.toStdString()), path);
    QTRY_COMPARE(model.rowCount(), 1);
    QTRY_VERIFY(rowLoaded(&model, 0));
    QCOMPARE(model.data(model.index(0, MessageModel::Payload)).toString(),
             QString::fromStdString(html));
    const QString tip =
        model.data(model.index(0, MessageModel::Payload), Qt::ToolTipRole).toString();
    QVERIFY2(tip.contains(QStringLiteral("&lt;b&gt;x&lt;/b&gt;&lt;img src=x&gt;")),
             qPrintable(tip));
    QVERIFY2(!tip.contains(QStringLiteral("<b>")), qPrintable(tip));
    QVERIFY2(!tip.contains(QStringLiteral("<img")), qPrintable(tip));
    const QString keyTip =
        model.data(model.index(0, MessageModel::IdempotencyKey), Qt::ToolTipRole).toString();
    QVERIFY(keyTip.contains(QStringLiteral("&lt;i&gt;key&lt;/i&gt;")));
}

void TestMessageModel::sortByTimeColumns() {
    QTemporaryDir dir;
    const QString path = copyFixture(dir, QStringLiteral("litequeue-head-mixed.sqlite3"));
    MessageModel model;
    QAbstractItemModelTester tester(&model);
    model.setQueue(Queue::open(path.toStdString()), path);
    QTRY_COMPARE(model.rowCount(), 400);
    for (int col :
         {int(MessageModel::Enqueued), int(MessageModel::Processing), int(MessageModel::Wait)}) {
        for (Qt::SortOrder order : {Qt::AscendingOrder, Qt::DescendingOrder}) {
            model.sort(col, order);
            QTRY_VERIFY(model.isIdle());
            QTRY_VERIFY(allLoaded(&model));
            std::optional<qint64> prev;
            for (int r = 0; r < model.rowCount(); ++r) {
                const QVariant v = model.data(model.index(r, col), MessageModel::SortValueRole);
                if (!v.isValid()) {
                    continue; // NULLs sort to one end; only the values are ordered
                }
                if (prev) {
                    if (order == Qt::AscendingOrder) {
                        QVERIFY(v.toLongLong() >= *prev);
                    } else {
                        QVERIFY(v.toLongLong() <= *prev);
                    }
                }
                prev = v.toLongLong();
            }
        }
    }
}

QTEST_MAIN(TestMessageModel)
#include "tst_messagemodel.moc"
