// SPDX-License-Identifier: MIT
#pragma once

// What Oban Lite (docs/FORMATS.md#oban-lite) and River's riversqlite (§5) share: one
// job table with a text `state`, named queues, a worker/kind name, JSON
// args/errors/meta, attempt/max_attempts, TEXT UTC timestamps and a claim
// token of (id, state, attempt, attempted_at). The library-specific writes
// (retry, release) live in oban.cpp and river.cpp.

#include "driver.h"
#include "queueformat.h"

#include <optional>
#include <string>
#include <vector>

namespace lq::core {

/// The error text of the last entry of a JSON errors array (Oban's and
/// River's `errors`; Oban's entries may be JSON strings holding the encoded
/// object), as the browser shows it: "attempt N at T: error\ntrace".
/// nullopt for an empty array. Throws for text that is not JSON.
std::optional<std::string> jobErrorText(const std::string& json);

struct JobTableSpec {
    std::string table;                   ///< "oban_jobs", "river_job"
    std::string kindCol;                 ///< "worker", "kind"
    std::string createdCol;              ///< "inserted_at", "created_at"
    std::string metaCol;                 ///< "meta", "metadata"
    std::string runningState;            ///< "executing", "running"
    std::vector<std::string> finishCols; ///< set when a job finished
    /// Extra states outside the canonical ones ("retryable", ...).
    std::vector<std::string> extraStates;
    bool jsonb = false;               ///< args, errors, meta, tags as JSONB blobs
    bool dueScheduledIsReady = false; ///< Oban: `scheduled` counts READY once due
    TimeNs stuckAfter = 0;            ///< the library's own rescue rule
};

class JobTableDriver : public FormatDriver {
public:
    JobTableDriver(const FormatInfo& fi, const std::string& path, JobTableSpec spec);

    std::string columns() const override { return m_cols; }
    Message readRow(const Statement& st, TimeNs now) const override;
    std::string idColumn() const override { return "id"; }
    std::string targetColumns() const override;
    Target readTarget(const Statement& st) const override;

    std::string stateCondition(State s, Binds& binds, TimeNs now) const override;
    std::string extraStateCondition(const std::string& name, Binds& binds,
                                    TimeNs now) const override;
    std::string stuckCondition(Binds& binds, TimeNs now, TimeNs stuckAfter) const override;
    std::vector<std::string> searchColumns() const override;
    std::vector<JsonField> jsonFields() const override;
    std::string queueColumn() const override { return "queue"; }
    std::string arrivalColumn() const override { return key(m_spec.createdCol); }
    TimeEncoding arrivalEncoding() const override { return TimeEncoding::Text; }
    std::string doneColumn() const override { return key(m_finish); }
    TimeEncoding doneEncoding() const override { return TimeEncoding::Text; }
    std::string metricCondition(Filter::Metric m, TimeNs lo, TimeNs hi,
                                Binds& binds) const override;
    SortColumns sortColumns() const override;
    Counts counts(Connection& c, TimeNs now, TimeNs stuckAfter, const std::string& where,
                  const Binds& binds) const override;
    std::string timingColumns() const override;
    void timingRow(const Statement& st, TimeNs now, TimingColumns& out) const override;
    Filter lockedFilter(TimeNs threshold) const override;

    std::string tokenWord() const override { return "claim (state, attempt, attempted_at)"; }
    std::string tokenShown(const Message& m) const override;
    std::string refusal(Action a, const Message& m, TimeNs now) const override;
    std::int64_t applyRow(Connection& c, Action a, const Message& m, TimeNs now,
                          const ActionOptions& o) const override;
    bool holdsWritten(const Message& current, const Message& wrote) const override;
    std::int64_t restoreRow(Connection& c, const Message& current, const Message& before,
                            TimeNs now) const override;
    std::string reinsert(Connection& c, const Message& before, TimeNs now) const override;

    /// The stored row as read, in the order of the undo record.
    struct Raw {
        std::vector<std::optional<std::string>> v;
        const std::optional<std::string>& operator[](std::size_t i) const { return v.at(i); }
    };
    /// Indexes into Raw (the finish columns follow kFinish0).
    enum Field : std::size_t {
        kState,
        kAttempt,
        kMaxAttempts,
        kAttemptedAt,
        kCreated,
        kScheduledAt,
        kArgs,
        kErrors,
        kMeta,
        kTags,
        kAttemptedBy,
        kFinish0,
    };
    /// The row's stored values (from Message::tokenText).
    static Raw rawOf(const Message& m);

protected:
    /// The library's retry of one row (the CAS is `cas()`'s).
    virtual std::int64_t retryRow(Connection& c, const Message& m, TimeNs now) const = 0;
    /// The library's rescue of an abandoned claim.
    virtual std::int64_t releaseRow(Connection& c, const Message& m, TimeNs now) const = 0;
    /// `t` as the library writes it.
    virtual std::string writeTime(TimeNs t) const = 0;
    /// The extra refusal of the library's retry ("" when it retries `m`).
    virtual std::string retryRefusal(const Message& m, TimeNs now) const = 0;

    /// " AND <the row is still as read>" with its binds from index `first`.
    std::string cas(int first) const;
    void bindCas(Statement& st, const Message& m, int first) const;
    /// Binds a JSON column value as stored (TEXT, or BLOB for JSONB files).
    void bindJson(Statement& st, int i, const std::optional<std::string>& v) const;
    bool abandoned(const Message& m, TimeNs now) const;
    /// `bytes` as a Raw JSON value of this file (BLOB for JSONB, else TEXT).
    std::optional<std::string> stored(const std::string& bytes) const;
    /// The bytes of a Raw JSON value.
    static std::string unstored(const std::string& raw);
    const JobTableSpec& spec() const noexcept { return m_spec; }
    const std::string& t() const noexcept { return m_t; }

private:
    static std::string key(const std::string& col) { return textTimeKey(col); }
    static std::string joinCols(const std::vector<std::string>& cols);
    void classify(Message& m, TimeNs now) const;
    std::string stateSql(State s, int nowParam) const;

    JobTableSpec m_spec;
    std::string m_t;
    std::string m_finish; ///< coalesce of the finish columns
    std::string m_cols;
};

/// What Oban Lite and River offer alike.
class JobTableFormat : public QueueFormat {
public:
    std::vector<State> states() const override;
    bool keepsHistory() const noexcept override { return true; }
    bool hasKeys(const FormatInfo&) const noexcept override { return false; }
    bool namedQueues() const noexcept override { return true; }
    std::string tokenLabel(const FormatInfo&) const override {
        return "state, attempt, attempted_at";
    }
    std::string fieldLabel(Field f) const override;
    /// What the library calls the job's name ("Worker", "Kind").
    virtual std::string jobLabel() const = 0;
    std::vector<Action> rowActions() const override;
    std::vector<Field> fields() const override {
        return {Field::Queue, Field::Job,         Field::Priority, Field::Attempts,
                Field::Error, Field::ScheduledAt, Field::Token,    Field::StatusText};
    }
    Action retryAction() const noexcept override { return Action::Retry; }
    std::string whyNoMetric(Filter::Metric m, const FormatInfo& info) const override;
};

} // namespace lq::core
