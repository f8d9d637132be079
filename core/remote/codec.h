// SPDX-License-Identifier: MIT
#pragma once

// Lossless JSON for the values the remote protocol carries (docs/PROTOCOL.md):
// what a Queue answers (FormatInfo, Counts, QueueStats, messages), what it is
// asked (Filter, Sort, Target) and what an action did (ActionResult, Plan),
// and lq::core::Error with its kind, so a remote error reads like a local one.

#include "../actions.h"
#include "../dashboard.h"
#include "../error.h"
#include "../format.h"
#include "../json.h"
#include "../operator.h"
#include "../processes.h"
#include "../query.h"
#include "../recurring.h"
#include "../stats.h"

#include <vector>

namespace lq::core::remote {

Json toJson(const FormatInfo& i);
FormatInfo formatInfoFromJson(const Json& j);
/// {"max_receive": N, "max_receive_by_queue": {"emails": N}, "release_after": S,
/// "retry_after": S}: only the values set.
Json toJson(const FormatSettings& s);
/// Unknown keys are ignored (a newer client's settings on an older server).
FormatSettings settingsFromJson(const Json& j);
/// The processes a file records (lqctl processes, issue 39).
Json toJson(const ProcessList& p);
ProcessList processesFromJson(const Json& j);
/// The recurring tasks a file records (lqctl recurring, issue 39).
Json toJson(const RecurringList& r);
RecurringList recurringFromJson(const Json& j);
Json toJson(const std::vector<PausedQueue>& paused);
std::vector<PausedQueue> pausedFromJson(const Json& j);
Json toJson(const Counts& c);
Counts countsFromJson(const Json& j);
Json toJson(const QueueStats& s);
QueueStats statsFromJson(const Json& j);
Json toJson(const Filter& f);
Filter filterFromJson(const Json& j);
Json toJson(const Sort& s);
Sort sortFromJson(const Json& j);
Json toJson(const std::vector<Target>& t);
std::vector<Target> targetsFromJson(const Json& j);
Json toJson(const std::vector<AppliedRow>& rows);
std::vector<AppliedRow> appliedFromJson(const Json& j);
Json toJson(const ActionResult& r);
ActionResult actionResultFromJson(const Json& j);
Json toJson(const Plan& p);
Plan planFromJson(const Json& j);
Json toJson(const std::vector<TimeBucket>& series);
std::vector<TimeBucket> seriesFromJson(const Json& j);
/// The `dashboard` method's params and result (core/dashboard.h).
Json toJson(const DashboardQuery& q);
DashboardQuery dashboardQueryFromJson(const Json& j);
Json toJson(const DashboardFigures& d);
DashboardFigures dashboardFromJson(const Json& j);
Json messagesJson(const std::vector<Message>& ms);
std::vector<Message> messagesFromJson(const Json& j);

/// {"kind":"busy","message":"...","path":"...","sqlite_code":5,...}
Json errorJson(const Error& e);
/// The Error the JSON describes; `path` replaces the server's path when set
/// (the client names the file as the operator wrote it, ssh://host/path).
Error errorFromJson(const Json& j, const std::string& path = {});
/// A duration on the wire: seconds as a JSON number (null for none).
Json secondsJson(std::optional<std::chrono::nanoseconds> d);
std::optional<std::chrono::nanoseconds> secondsFrom(const Json& j);
/// "busy" -> ErrorKind::Busy (the names of errorKindName()).
std::optional<ErrorKind> errorKindFromName(std::string_view name);
std::optional<Action> actionFromName(std::string_view name);

} // namespace lq::core::remote
