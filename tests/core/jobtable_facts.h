// SPDX-License-Identifier: MIT
#pragma once

// What tst_oban and tst_river add to formatfacts.h for a job-table format
// (docs/FORMATS.md#oban-lite, §5): the raw columns of a job, the samples' claim tokens
// and the stale-token refusal.
#include "core/formats/driver.h"
#include "formatfacts.h"

namespace lqtest::jobtable {

using namespace lq::core;

/// Every column of one job, as the sqlite3 shell shows it (BLOBs in hex).
inline std::vector<std::string> rawJob(const std::string& path, const std::string& table,
                                       const std::string& id) {
    Db db(path, /*readOnly=*/true);
    std::string cols;
    for (const auto& c : db.rows("SELECT name, type FROM pragma_table_info('" + table + "')"))
        cols += (cols.empty() ? "" : ", ") + std::string("hex(") + c.at(0) + ") || typeof(" +
                c.at(0) + ")";
    const auto rows = db.rows("SELECT " + cols + " FROM " + table + " WHERE id = " + id);
    return rows.empty() ? std::vector<std::string>{} : rows.front();
}

/// The samples' claim tokens: the columns as stored (compare-and-swap on them).
inline void checkSampleTokens(Queue& q, const QJsonObject& f) {
    for (const QJsonValue v : f.value(QStringLiteral("samples")).toArray()) {
        const QJsonObject s = v.toObject();
        const Message m = row(q, std::to_string(s.value(QStringLiteral("id")).toInteger()));
        const QJsonObject tok = s.value(QStringLiteral("token")).toObject();
        QCOMPARE(m.attempts, tok.value(QStringLiteral("attempt")).toInteger());
        const QJsonValue at = tok.value(QStringLiteral("attempted_at"));
        if (at.isNull())
            QVERIFY(!m.lockTime);
        else
            QCOMPARE(m.lockTime, parseTextTime(toStd(at.toString())));
        // The token text carries the stored spellings.
        if (!at.isNull())
            QVERIFY(m.tokenText->find(toStd(at.toString())) != std::string::npos);
        const QJsonValue created = tok.value(QStringLiteral("created_at"));
        if (created.isString())
            QCOMPARE(m.inTime, parseTextTime(toStd(created.toString())));
    }
}

/// A stale token (the row moved on since shown) is refused, nothing written.
inline void checkStaleTokenRefused(Queue& q, const std::string& table, const std::string& id,
                                   Action a, const std::string& moveOn) {
    const Target t = targetOf(q, id);
    {
        Db db(q.path());
        db.exec("UPDATE " + table + " SET " + moveOn + " WHERE id = " + id);
    }
    const auto before = rawJob(q.path(), table, id);
    const ActionResult r = q.apply(a, {t});
    QVERIFY(r.applied.empty());
    QCOMPARE(r.skipped.size(), std::size_t(1));
    QCOMPARE(r.skipped.front().kind, SkipKind::Changed);
    QCOMPARE(rawJob(q.path(), table, id), before);
}

} // namespace lqtest::jobtable
