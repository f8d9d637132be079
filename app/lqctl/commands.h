// SPDX-License-Identifier: MIT
#pragma once

// One function per lqctl command (SPEC §4). Each returns the exit code and
// may throw lq::core::Error, Refused or UsageError; cli.cpp maps those.

#include "cli.h"

#include <core/json.h>
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
int cmdUndo(const Options& o);
int cmdAudit(const Options& o);
/// `lqctl fleet DIR`: every queue file of a folder (o.file is the folder).
int cmdFleet(const Options& o);

/// Opens the queue with the global options (clock from --now, busy timeout,
/// table). `write`: the command will write, so refuse early when the file is
/// read-only (the refusal names the reason, e.g. an unexpected trigger).
std::unique_ptr<core::Queue> openQueue(const Options& o, bool write);
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

} // namespace lq::ctl
