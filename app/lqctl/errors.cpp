// SPDX-License-Identifier: MIT
// `lqctl errors FILE`: failed jobs grouped by error class (core/errors.h).
#include "commands.h"
#include "output.h"

#include <core/errors.h>

namespace lq::ctl {

using core::Json;
using core::TimeNs;

int cmdErrors(const Options& o) {
    // openBackendFor() refuses a --queue the file does not hold.
    auto q = openBackendFor(o, false);
    const std::vector<core::ErrorGroup> groups = q->errorGroups(o.queue);
    if (o.json) {
        Json arr = Json::array();
        for (const auto& g : groups) {
            Json j = Json::object();
            j.set("error", g.error);
            j.set("count", g.count);
            j.set("first_failed_at_ns", g.firstFailedAt);
            j.set("last_failed_at_ns", g.lastFailedAt);
            Json qs = Json::array();
            for (const auto& n : g.queues)
                qs.push(Json(n));
            j.set("queues", std::move(qs));
            j.set("sample", g.sample);
            Json ids = Json::array();
            for (const auto& id : g.messageIds)
                ids.push(Json(id));
            j.set("message_ids", std::move(ids));
            arr.push(std::move(j));
        }
        Json top = Json::object();
        top.set("groups", std::move(arr));
        printJson(top);
        return ExitOk;
    }
    if (groups.empty()) {
        out("no failed jobs\n");
        return ExitOk;
    }
    const TimeNs now = q->now();
    Table t({"count", "error", "last failed", "first failed", "queues"});
    for (const auto& g : groups) {
        std::string queues;
        for (const auto& n : g.queues)
            queues += (queues.empty() ? "" : ", ") + terminalSafe(n, 40);
        t.addRow({num(g.count),
                  g.error.empty() ? std::string("(no error stored)") : terminalSafe(g.error, 80),
                  relativeTime(g.lastFailedAt, now), relativeTime(g.firstFailedAt, now),
                  queues.empty() ? std::string("-") : queues});
    }
    out(t.render());
    return ExitOk;
}

} // namespace lq::ctl
