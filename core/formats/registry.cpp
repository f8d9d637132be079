// SPDX-License-Identifier: MIT
// The formats lqcore knows: one table (kTable) of handle, id, implementation.
#include "backlite.h"
#include "delayedjob.h"
#include "djangotasks.h"
#include "goqite.h"
#include "jobslease.h"
#include "laravel.h"
#include "liteque.h"
#include "litequeue.h"
#include "messenger.h"
#include "oban.h"
#include "plainjob.h"
#include "river.h"
#include "solidqueue.h"

#include <array>
#include <optional>
#include <string_view>
#include <vector>

namespace lq::core {

namespace {

const LitequeueFormat kLq014(Format::Litequeue014);
const LitequeueFormat kLq013(Format::Litequeue013);
const LitequeueFormat kLegacy(Format::LitequeueLegacy);
const LitequeueFormat kMulti(Format::LitequeueMulti);
const LitequeueFormat kOther(Format::LitequeueOther);
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

/// The one table of formats: each format's handle, id (on the wire, in
/// --json, in settings), implementation, and whether it is asked to
/// recognise a file (one per family: the litequeue recogniser tells its
/// versions apart). Adding a format is one row here.
struct Registered {
    Format format;
    const char* id;
    const QueueFormat* kind;
    bool recognises;
};

const std::array<Registered, 17> kTable = {{
    {Format::Litequeue014, "litequeue-0.14", &kLq014, true},
    {Format::Litequeue013, "litequeue-0.13", &kLq013, false},
    {Format::LitequeueLegacy, "litequeue-legacy", &kLegacy, false},
    {Format::LitequeueMulti, "litequeue-multi", &kMulti, false},
    {Format::LitequeueOther, "litequeue-unknown", &kOther, false},
    {Format::JobsLease, "jobs-lease", &kJobs, true},
    {Format::Liteque, "liteque", &kLiteque, true},
    {Format::SolidQueue, "solid-queue", &kSolidQueue, true},
    {Format::Plainjob, "plainjob", &kPlainjob, true},
    {Format::Goqite, "goqite", &kGoqite, true},
    {Format::Backlite, "backlite", &kBacklite, true},
    {Format::ObanLite, "oban-lite", &kOban, true},
    {Format::RiverSqlite, "river-sqlite", &kRiver, true},
    {Format::LaravelDatabase, "laravel-database", &kLaravel, true},
    {Format::DelayedJob, "delayed-job", &kDelayedJob, true},
    {Format::SymfonyMessenger, "symfony-messenger", &kMessenger, true},
    {Format::DjangoTasksDb, "django-tasks-db", &kDjangoTasks, true},
}};

const Registered* registered(Format f) noexcept {
    for (const Registered& r : kTable)
        if (r.format == f)
            return &r;
    return nullptr;
}

} // namespace

const char* formatId(Format f) noexcept {
    const Registered* r = registered(f);
    return r ? r->id : "unknown";
}

std::optional<Format> formatFromId(std::string_view id) noexcept {
    for (const Registered& r : kTable)
        if (id == r.id)
            return r.format;
    return std::nullopt;
}

const QueueFormat& QueueFormat::of(Format f) noexcept {
    const Registered* r = registered(f);
    return r ? *r->kind : *kTable.front().kind;
}

std::vector<const QueueFormat*> QueueFormat::recognisers() {
    std::vector<const QueueFormat*> out;
    for (const Registered& r : kTable)
        if (r.recognises)
            out.push_back(r.kind);
    return out;
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
        if (id == r.id)
            return r.kind;
    return nullptr;
}

} // namespace lq::core
