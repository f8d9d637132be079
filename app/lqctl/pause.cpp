// SPDX-License-Identifier: MIT
// `lqctl pause FILE --queue Q` and `lqctl resume FILE --queue Q`: the
// library's own pause of a named queue (its workers skip it), recorded and
// undoable as every write; no question asked, it is one row.
#include "commands.h"
#include "output.h"

#include <core/timefmt.h>

namespace lq::ctl {

using core::Json;

namespace {

int cmdPauseOn(const Options& o, bool pause) {
    const core::Action a = pause ? core::Action::Pause : core::Action::Resume;
    if (o.queue.empty())
        throw UsageError(std::string(core::actionName(a)) + " needs --queue QUEUE");
    auto q = openBackendFor(o, true);
    requireOffered(*q, a);
    const core::Report r = q->setPaused(o.queue, pause);
    std::optional<core::TimeNs> since;
    for (const auto& p : q->pausedQueues())
        if (p.queue == o.queue)
            since = p.since ? p.since : std::optional<core::TimeNs>(0);
    if (o.json) {
        Json j = Json::object();
        j.set("queue", o.queue);
        j.set("action", core::actionName(a));
        j.set("applied", static_cast<std::int64_t>(r.applied()));
        j.set("paused", since.has_value());
        j.set("paused_since_ns", since && *since ? Json(*since) : Json());
        j.set("record", r.recordId.empty() || r.applied() == 0 ? Json() : Json(r.recordId));
        Json skipped = Json::array();
        for (const auto& s : r.result.skipped) {
            Json sj = Json::object();
            sj.set("queue", s.messageId);
            sj.set("reason", s.reason);
            sj.set("kind", core::skipKindName(s.kind));
            skipped.push(std::move(sj));
        }
        j.set("skipped", std::move(skipped));
        j.set("error", r.result.error.empty() ? Json() : Json(r.result.error));
        printJson(j);
    } else if (r.applied() > 0) {
        out(std::string(pause ? "paused" : "resumed") + " queue " + terminalSafe(o.queue, 80) +
            (pause ? ": its workers skip it" : ": its workers take its jobs again") + " (record " +
            terminalSafe(r.recordId) + ")\n");
    }
    if (!r.auditError.empty() && !r.failed())
        err("lqctl: " + terminalSafe(o.file) + ": warning: " + terminalSafe(r.auditError) + "\n");
    if (r.failed())
        throw core::Error(*r.result.errorKind, o.file, r.result.error);
    if (r.applied() == 0) {
        const std::string why =
            r.result.skipped.empty() ? std::string("no change") : r.result.skipped.front().reason;
        throw Refused("queue " + terminalSafe(o.queue, 80) + ": " + terminalSafe(why) +
                      "; nothing was changed");
    }
    return ExitOk;
}

} // namespace

int cmdPause(const Options& o) {
    return cmdPauseOn(o, true);
}

int cmdResume(const Options& o) {
    return cmdPauseOn(o, false);
}

} // namespace lq::ctl
