// SPDX-License-Identifier: MIT
#pragma once

// One function per lqctl command (SPEC §4). Each returns the exit code and
// may throw lq::core::Error, Refused or UsageError; cli.cpp maps those.

#include "cli.h"

#include <core/queue.h>

#include <memory>

namespace lq::ctl {

int cmdInfo(const Options& o);
int cmdStats(const Options& o);
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
/// `lqctl fleet DIR`: every queue file of a folder (o.file is the folder).
int cmdFleet(const Options& o);

/// Opens the queue with the global options (clock from --now, busy timeout,
/// table). `write`: the command will write, so refuse early when the file is
/// read-only (the refusal names the reason, e.g. an unexpected trigger).
std::unique_ptr<core::Queue> openQueue(const Options& o, bool write);
/// The OpenOptions the global options describe.
core::OpenOptions openOptions(const Options& o, bool write);

/// Records a write in the audit log (SPEC §3.2); a failure to record is a
/// warning on stderr, not an error: the write already happened.
void recordAudit(const core::Queue& q, core::Action a, const core::ActionResult& r,
                 const std::string& note = {});

} // namespace lq::ctl
