// SPDX-License-Identifier: MIT
// The formats lqcore knows, by Format and by id.
#include "backlite.h"
#include "goqite.h"
#include "jobslease.h"
#include "laravel.h"
#include "liteque.h"
#include "litequeue.h"
#include "oban.h"
#include "plainjob.h"
#include "river.h"
#include "solidqueue.h"

#include <array>

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

const std::array<const QueueFormat*, 14> kAll = {
    &kLq014,      &kLq013,    &kLegacy, &kMulti,    &kOther, &kJobs,  &kLiteque,
    &kSolidQueue, &kPlainjob, &kGoqite, &kBacklite, &kOban,  &kRiver, &kLaravel};

} // namespace

const QueueFormat& QueueFormat::of(Format f) noexcept {
    switch (f) {
    case Format::Litequeue014:
        return kLq014;
    case Format::Litequeue013:
        return kLq013;
    case Format::LitequeueLegacy:
        return kLegacy;
    case Format::LitequeueMulti:
        return kMulti;
    case Format::LitequeueOther:
        return kOther;
    case Format::JobsLease:
        return kJobs;
    case Format::Liteque:
        return kLiteque;
    case Format::SolidQueue:
        return kSolidQueue;
    case Format::Plainjob:
        return kPlainjob;
    case Format::Goqite:
        return kGoqite;
    case Format::Backlite:
        return kBacklite;
    case Format::ObanLite:
        return kOban;
    case Format::RiverSqlite:
        return kRiver;
    case Format::LaravelDatabase:
        return kLaravel;
    }
    return kLq014;
}

std::vector<const QueueFormat*> QueueFormat::recognisers() {
    // One per family: the litequeue recogniser tells its versions apart.
    return {&kLq014,  &kJobs,     &kLiteque, &kSolidQueue, &kPlainjob,
            &kGoqite, &kBacklite, &kOban,    &kRiver,      &kLaravel};
}

std::string QueueFormat::whyNoMetric(Filter::Metric m, const FormatInfo& info) const {
    (void)info;
    if (m == Filter::Metric::None || keepsHistory())
        return {};
    return std::string(id()) + " files keep no finished history (finishing deletes the row), so " +
           "latency metrics cannot be computed";
}

const QueueFormat* QueueFormat::byId(std::string_view id) noexcept {
    for (const QueueFormat* f : kAll)
        if (id == f->id())
            return f;
    return nullptr;
}

} // namespace lq::core
