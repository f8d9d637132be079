// SPDX-License-Identifier: MIT
// The formats lqcore knows: one table (kTable) of their implementations.
#include "backlite.h"
#include "delayedjob.h"
#include "djangotasks.h"
#include "goqite.h"
#include "graphileworker.h"
#include "hangfire.h"
#include "jobslease.h"
#include "laravel.h"
#include "liteque.h"
#include "litequeue.h"
#include "messenger.h"
#include "oban.h"
#include "pgonly.h"
#include "plainjob.h"
#include "river.h"
#include "solidqueue.h"

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace lq::core {

namespace {

const JobsLeaseFormat kJobs;
const LitequeFormat kLiteque;
const SolidQueueFormat kSolidQueue;
const PlainjobFormat kPlainjob;
const GoqiteFormat kGoqite;
const BackliteFormat kBacklite;
const ObanFormat kOban;
const RiverFormat kRiver;
const LaravelFormat kLaravel;
const DelayedJobFormat kDelayedJob;
const MessengerFormat kMessenger;
const DjangoTasksFormat kDjangoTasks;
const HangfireFormat kHangfire;
const GraphileWorkerFormat kGraphileWorker;
const GoodJobFormat kGoodJob;
const PgBossFormat kPgBoss;

/// The one table of formats: each format's implementation (which declares
/// its id, states, fields, actions, recogniser and driver) and whether it is
/// asked to recognise a file (one per family: the litequeue recogniser tells
/// its versions apart). Adding a format is one row here.
struct Registered {
    const QueueFormat* kind;
    bool recognises;
};

using V = LitequeueFormat::Version;
const std::array<Registered, 21> kTable = {{
    {&LitequeueFormat::of(V::V014), true},
    {&LitequeueFormat::of(V::V013), false},
    {&LitequeueFormat::of(V::Legacy), false},
    {&LitequeueFormat::of(V::Multi), false},
    {&LitequeueFormat::of(V::Other), false},
    {&kJobs, true},
    {&kLiteque, true},
    {&kSolidQueue, true},
    {&kPlainjob, true},
    {&kGoqite, true},
    {&kBacklite, true},
    {&kOban, true},
    {&kRiver, true},
    {&kLaravel, true},
    {&kDelayedJob, true},
    {&kMessenger, true},
    {&kDjangoTasks, true},
    {&kHangfire, true},
    {&kGraphileWorker, false}, // PostgreSQL only: core/pg/ recognises it
    {&kGoodJob, false},
    {&kPgBoss, false},
}};

} // namespace

const char* formatId(const QueueFormat* f) noexcept {
    return f ? f->id() : "none";
}

const QueueFormat& QueueFormat::of(const FormatInfo& info) noexcept {
    return info.format ? *info.format : LitequeueFormat::of(LitequeueFormat::Version::V014);
}

std::vector<const QueueFormat*> QueueFormat::recognisers() {
    std::vector<const QueueFormat*> out;
    for (const Registered& r : kTable)
        if (r.recognises)
            out.push_back(r.kind);
    return out;
}

std::vector<const QueueFormat*> QueueFormat::all() {
    std::vector<const QueueFormat*> out;
    out.reserve(kTable.size());
    for (const Registered& r : kTable)
        out.push_back(r.kind);
    return out;
}

void QueueFormat::completeCounts(Counts& c) const {
    const auto states = extraStates();
    if (std::none_of(states.begin(), states.end(),
                     [](const ExtraState& s) { return s.name == kStuckState; }))
        return;
    c.extra[kStuckState] = c.stuck;
    c.leased = c.locked - c.stuck;
    c.expired = c.stuck;
}

std::string QueueFormat::whyNot(Action a, const FormatInfo& info) const {
    if (a == Action::Pause || a == Action::Resume)
        return whyNoPause(info);
    if (a == Action::RunRecurring)
        return whyNoRunRecurring(info);
    for (ActionRule& r : actionRules(info))
        if (r.action == a)
            return std::move(r.whyNot);
    return std::string(id()) + " does not describe action " + std::to_string(int(a)) + " (" +
           actionName(a) + ")";
}

std::string QueueFormat::whyNoMetric(Filter::Metric m, const FormatInfo& info) const {
    (void)info;
    if (m == Filter::Metric::None || keepsHistory())
        return {};
    return std::string(id()) + " files keep no finished history (finishing deletes the row), so " +
           "latency metrics cannot be computed";
}

const QueueFormat* QueueFormat::byId(std::string_view id) noexcept {
    for (const Registered& r : kTable)
        if (id == r.kind->id())
            return r.kind;
    return nullptr;
}

} // namespace lq::core
