// SPDX-License-Identifier: MIT
#pragma once

// One function per lqctl command (README.md#lqctl). Each returns the exit code and
// may throw lq::core::Error, Refused or UsageError; cli.cpp maps those.

#include "cli.h"
#include "output.h"

#include <core/backend.h>
#include <core/formats/queueformat.h>
#include <core/json.h>
#include <core/operator.h>
#include <core/queue.h>
#include <core/remote/client.h>

#include <memory>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace lq::ctl {

int cmdInfo(const Options& o);
int cmdStats(const Options& o);
int cmdErrors(const Options& o);
int cmdProcesses(const Options& o);
int cmdRecurring(const Options& o);
/// `lqctl queues FILE`: the per-queue overview (queues.cpp).
int cmdQueues(const Options& o);
int cmdList(const Options& o);
int cmdGet(const Options& o);
int cmdPut(const Options& o);
int cmdRetry(const Options& o);
int cmdFail(const Options& o);
int cmdRetryExpired(const Options& o);
int cmdPrune(const Options& o);
int cmdVacuum(const Options& o);
int cmdUpgrade(const Options& o);
int cmdWatch(const Options& o);
int cmdDemo(const Options& o);
int cmdRelease(const Options& o);
int cmdReschedule(const Options& o);
int cmdDelete(const Options& o);
int cmdUndo(const Options& o);
int cmdAudit(const Options& o);
/// `lqctl pause/resume FILE --queue Q` (pause.cpp).
int cmdPause(const Options& o);
int cmdResume(const Options& o);
/// `lqctl fleet DIR`: every queue file of a folder (o.file is the folder).
int cmdFleet(const Options& o);

/// Opens the queue with the global options (clock from --now, busy timeout,
/// table). `write`: the command will write, so refuse early when the file is
/// read-only (the refusal names the reason, e.g. an unexpected trigger).
std::unique_ptr<core::Queue> openQueue(const Options& o, bool write);
/// `lqctl exporter --listen ADDR:PORT PATH...` (exporter.cpp).
int cmdExporter(const Options& o);
/// `lqctl serve --stdio`: the remote protocol on stdin/stdout (serve.cpp).
int cmdServe(const Options& o);

/// FILE is ssh://[USER@]HOST[:PORT]/PATH: the queue on that host.
bool isRemote(const Options& o);
/// Refused (exit 1) when --queue names no queue of the file: "no queue
/// NAME in FILE; queues: a, b, c".
void checkQueueName(const Options& o, const core::FormatInfo& info,
                    const std::vector<std::string>& names);
/// checkQueueName() on `q`'s queues where --queue was given.
template <class Q> void checkQueueOption(const Options& o, Q& q) {
    if (!o.queue.empty())
        checkQueueName(o, q.info(), q.queueNames());
}
/// A command's queue through the backend seam both front ends share
/// (core/backend.h): a local file or ssh://, opened with the global options;
/// the audit records name "lqctl". `write` as in openQueue(); a --queue the
/// file does not hold is refused, for a read.
std::shared_ptr<core::QueueBackend> openBackendFor(const Options& o, bool write);

/// One queue of a Prometheus exposition as backend `q` reads it: `read`
/// (QueueBackend::countsAndStats()) and its size; `stats --prometheus`, the
/// exporter and `fleet --prometheus` alike.
PromQueue promQueueOf(core::QueueBackend& q, core::CountsAndStats read);
/// The filter of --status, --stuck, --search, --older-than and --queue on
/// a file of `format` (a state with the library's own word included).
core::Filter filterFrom(const Options& o, const core::QueueFormat& format);
/// --status names a state of another format's: a usage error naming the
/// file's own states.
void checkOwnStates(const Options& o, const core::QueueFormat& format);
/// Throws ReadOnly for a write on a read-only queue: "the queue is
/// read-only: WHY. Nothing was changed." (WHY: the format's reason, else
/// `fallback`).
[[noreturn]] void refuseReadOnly(const Options& o, const core::FormatInfo& info,
                                 const std::string& fallback = {});
/// Refuses (exit 1) action `a` when the queue does not offer it, with the
/// reason its backend gives (core::QueueBackend::whyNot: the format's, or
/// the engine's) and the format's name; nothing was changed.
void requireOffered(const core::QueueBackend& q, core::Action a);
/// The OpenOptions the global options describe.
core::OpenOptions openOptions(const Options& o, bool write);

// Helpers shared by the command files.
std::string absolutePath(const std::string& path);
std::string num(std::int64_t v);
std::string plural(std::int64_t n, const char* one, const char* many);
std::string secondsText(double s);
void printJson(const core::Json& j);
/// Asks on a terminal; without one, refuses unless --yes was given.
void confirm(const Options& o, const std::string& question, const std::string& what);
const std::string& requireArg(const Options& o, std::size_t i);
std::string tokenLabel(const core::FormatInfo& info);
/// The counts in the format's words, sub-counts in brackets, then "; N stored".
std::string countsLine(const core::Counts& c, const core::FormatInfo& info,
                       double stuckAfterSeconds);

/// FILE is a postgresql:// (or postgres://) URI: a queue in PostgreSQL
/// (issue 41, first slice: info and stats; postgres.cpp).
bool isPostgres(const Options& o);
/// The commands that take a postgresql:// URI so far.
bool takesPostgres(std::string_view command);
/// The action of a command that writes a SQLite file only (put, vacuum,
/// upgrade): on a database it is refused with QueueBackend::whyNot's words.
std::optional<core::Action> fileOnlyAction(std::string_view command);
/// `lqctl info|stats postgresql://...` (postgres.cpp).
int cmdInfoPostgres(const Options& o);
/// FILE as lqctl shows it: a PostgreSQL URI without its password.
std::string shownFile(const std::string& file);

} // namespace lq::ctl
