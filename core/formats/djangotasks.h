// SPDX-License-Identifier: MIT
#pragma once

#include "queueformat.h"

namespace lq::core {

/// Django's Tasks framework with the database backend, django-tasks-db
/// (docs/FORMATS.md#django-tasks-db): one table
/// `django_tasks_database_dbtaskresult` (the model DBTaskResult, recognised
/// by its columns, also beside the app's own tables), a text status READY,
/// RUNNING, FAILED or SUCCESSFUL, a named queue `queue_name`, JSON
/// args_kwargs, Django's TEXT UTC datetimes, and run_after 9999-01-01 for
/// "no run_after". Finished tasks stay (SUCCESSFUL with their return value,
/// FAILED with the exception's class path and traceback). No heartbeat and
/// no retry: a task whose worker died stays RUNNING, so stuck is RUNNING
/// longer than the operator's threshold.
class DjangoTasksFormat final : public QueueFormat {
public:
    /// The model's table: app label django_tasks_database, model dbtaskresult.
    static constexpr const char* kTable = "django_tasks_database_dbtaskresult";
    /// get_date_max() as the SQLite backend stores it: "no run_after".
    static constexpr const char* kNoRunAfter = "9999-01-01 00:00:00";
    /// prune_db_task_results' --min-age-days default: 14 days.
    static constexpr std::int64_t kPruneMinAgeDays = 14;

    const char* id() const noexcept override { return "django-tasks-db"; }
    std::vector<State> states() const override;
    bool keepsHistory() const noexcept override { return true; }
    bool hasKeys(const FormatInfo&) const noexcept override { return false; }
    bool namedQueues() const noexcept override { return true; }
    std::string tokenLabel(const FormatInfo&) const override {
        return "status, started_at and finished_at as stored";
    }
    std::string timeUnits(const FormatInfo&) const override {
        return "TEXT UTC 'YYYY-MM-DD HH:MM:SS[.ffffff]' (Django datetime, USE_TZ); run_after "
               "9999-01-01 00:00:00 is \"none\"";
    }
    std::string unknownText() const override {
        return "status not READY, RUNNING, FAILED or SUCCESSFUL";
    }
    std::string stateDescription(State s) const override;
    std::vector<Field> fields() const override {
        return {Field::Queue, Field::Job,         Field::Priority, Field::Attempts,
                Field::Error, Field::ScheduledAt, Field::Token,    Field::StatusText};
    }
    std::string fieldLabel(Field f) const override;
    std::string fieldDescription(Field f) const override;
    std::vector<Action> rowActions() const override;
    Action retryAction() const noexcept override { return Action::Retry; }
    std::vector<ActionRule> actionRules(const FormatInfo& info) const override;
    std::vector<PruneRule> pruneRules() const override;
    std::string pruneText() const override;

    std::optional<FormatInfo> recognise(const SchemaFacts& s,
                                        const std::string& preferTable) const override;
    void explainNoMatch(const SchemaFacts& s) const override;
    std::unique_ptr<FormatDriver> driver(const FormatInfo& info,
                                         const std::string& path) const override;
};

/// The driver, in djangotasks_sql.cpp.
std::unique_ptr<FormatDriver> makeDjangoTasksDriver(const FormatInfo& info,
                                                    const std::string& path);

} // namespace lq::core
