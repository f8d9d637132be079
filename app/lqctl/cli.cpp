// SPDX-License-Identifier: MIT
// lqctl's command line: `lqctl COMMAND FILE [options]` (README.md#lqctl). The command
// picks which options exist; QCommandLineParser does the splitting.
#include "cli.h"
#include "commands.h"
#include "output.h"

#include <core/cron.h>
#include <core/error.h>
#include <core/formats/queueformat.h>
#include <core/statemodel.h>
#include <core/timefmt.h>
#include <lqversion.h>

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QStringList>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstring>
#include <fstream>
#include <limits>
#include <set>

namespace lq::ctl {

namespace {

volatile std::sig_atomic_t g_stop = 0;

void onStopSignal(int) {
    g_stop = 1;
}

struct OptionDef {
    std::string name;
    std::string valueName; ///< empty: a flag
    std::string help;
};

// clang-format off
const OptionDef kFixedOptions[] = {
    {"json", "", "Print JSON instead of text."},
    {"now", "T", "Evaluate time thresholds at T: ns since the epoch or ISO 8601 (default: now)."},
    {"stuck-after", "SECONDS", "Lock age after which a LOCKED message counts as stuck (default 300)."},
    {"busy-timeout", "SECONDS", "How long to wait for a file another process has locked (default 5)."},
    {"table", "NAME", "The queue table to use in a multi-queue file."},
    {"queue", "NAME", "Only the named queue NAME inside the file (formats with named queues)."},
    {"status", "S", "Only messages in state S: one of the States below that the file's format has (lqctl info FILE); several: ready,locked."},
    {"older-than", "SECONDS", "list: age over SECONDS; prune: finished more than SECONDS ago; retry-expired: locked more than SECONDS ago."},
    {"search", "TEXT", "Only messages whose id, idempotency key, payload or error text contains TEXT."},
    {"where", "COND", "Only jobs whose JSON field matches COND: FIELD.path [OP VALUE], e.g. 'args.user_id = 42', 'arguments[0]._aj_globalid ~ Order/17'; OP one of =, !=, <, <=, >, >=, ~ (contains); without OP, the path exists. FIELD names a JSON field of the format's jobs (a wrong one lists them)."},
    {"error", "CLASS", "retry/delete: every failed job whose error class is CLASS, as `lqctl errors` groups them (\"\": no error stored); asks first."},
    {"limit", "N", "At most N messages (default 100 for the table, no limit for --json/--csv; 0 = no limit)."},
    {"csv", "", "Print RFC 4180 CSV with a header row."},
    {"prometheus", "", "Print the Prometheus text format (for node_exporter's textfile collector)."},
    {"key", "K", "Idempotency key: a put with a stored key and the same data returns the stored message."},
    {"claim", "N", "Act only if the message still holds claim token N (what you saw)."},
    {"create", "", "Create a new litequeue queue (the current 0.14 format) if FILE does not exist."},
    {"maxsize", "N", "With --create (or demo): the new queue's limit on READY messages."},
    {"keep-failed", "", "Keep FAILED messages; prune only DONE ones."},
    {"yes", "", "Do not ask for confirmation (needed when stdin is not a terminal)."},
    {"interval", "SECONDS", "How often to poll for changes (default 0.2); exporter: read each file at most once per SECONDS."},
    {"listen", "ADDR:PORT", "exporter: the address to serve /metrics on, e.g. 127.0.0.1:9187 (port 0: any free port)."},
    {"rate", "N", "Puts per second (default 20)."},
    {"workers", "N", "Worker threads (default 4)."},
    {"fail-ratio", "R", "Share of messages a worker marks failed (default 0.05)."},
    {"duration", "SECONDS", "Stop after SECONDS (default 0: until Ctrl-C)."},
    {"quiet", "", "Do not print a line of counts per second."},
    {"delay", "SECONDS", "reschedule: run the job again SECONDS from now."},
    {"tz", "ZONE", "recurring: run schedules that name no zone in ZONE: UTC (default) or a fixed offset such as +09:00 or Etc/GMT-9."},
    {"run", "KEY", "recurring: enqueue recurring task KEY's job now, as the library's own run now does (Mission Control's Run now); recorded, undoable with `lqctl undo`; asks first."},
    {"from", "T", "queues: the time range starts at T (ns since the epoch or ISO 8601; default: the file's first job)."},
    {"to", "T", "queues: the time range ends at T (default: --now)."},
    {"since", "DURATION", "queues: the time range is the last DURATION before --now: seconds, or 30m, 24h, 7d."},
    {"record", "ID", "undo: the audit record to undo (default: the newest undoable one; see `lqctl audit`)."},
};
// clang-format on

/// The library settings the formats read and do not store (goqite's
/// maxReceive, backlite's ReleaseAfter, Laravel's retry_after), from the
/// registry of formats: each is an option named by the format
/// (QueueFormat::Setting::option), parsed and kept as keyed data.
struct SettingOption {
    core::QueueFormat::Setting setting;
    std::string name; ///< the option without "--"
};

const std::vector<SettingOption>& settingOptions() {
    static const std::vector<SettingOption> all = [] {
        std::vector<SettingOption> out;
        for (const core::QueueFormat* f : core::QueueFormat::recognisers())
            for (const auto& st : f->settings())
                if (std::none_of(out.begin(), out.end(),
                                 [&](const SettingOption& o) { return o.setting.key == st.key; }))
                    out.push_back(
                        {st, st.option.rfind("--", 0) == 0 ? st.option.substr(2) : st.option});
        return out;
    }();
    return all;
}

/// Every option: the fixed ones, then one per library setting.
const std::vector<OptionDef>& allOptions() {
    static const std::vector<OptionDef> all = [] {
        std::vector<OptionDef> out(std::begin(kFixedOptions), std::end(kFixedOptions));
        for (const SettingOption& o : settingOptions()) {
            const auto& st = o.setting;
            const bool seconds = st.unit == "seconds";
            std::string help = st.description + " (default " + std::to_string(st.libraryDefault) +
                               (seconds ? " s" : "") + ").";
            if (st.perQueue)
                help += " N: every queue; QUEUE=N (repeatable): one named queue.";
            out.push_back({o.name, st.perQueue ? "[QUEUE=]N" : seconds ? "SECONDS" : "N", help});
        }
        return out;
    }();
    return all;
}

/// The options every command takes: the fixed ones, then the settings.
const std::vector<std::string>& globalOptions() {
    static const std::vector<std::string> all = [] {
        std::vector<std::string> out = {"json",         "now",   "stuck-after",
                                        "busy-timeout", "table", "queue"};
        for (const SettingOption& o : settingOptions())
            out.push_back(o.name);
        return out;
    }();
    return all;
}

struct CommandDef {
    const char* name;
    const char* args; ///< after FILE, for the usage line
    std::size_t minArgs;
    std::size_t maxArgs;
    const char* summary;
    std::vector<const char*> options;
    int (*run)(const Options&);
};

const std::vector<CommandDef>& commands() {
    // clang-format off
    static const std::vector<CommandDef> defs = {
        {"info", "", 0, 0, "Format, schema facts, sizes and counts of a queue file.", {}, cmdInfo},
        {"stats", "", 0, 0, "Counts and latency percentiles (wait, processing, total).", {"prometheus"}, cmdStats},
        {"errors", "", 0, 0, "Failed jobs grouped by error class: count, first and last failure, queues, a sample.", {}, cmdErrors},
        {"processes", "", 0, 0, "The worker processes the file records: heartbeat, alive or dead by the library's rule, claims held.", {}, cmdProcesses},
        {"recurring", "", 0, 0, "The recurring tasks the file records: schedule, last run, next run, runs missed since the last; --run KEY runs one now.", {"tz", "run", "yes"}, cmdRecurring},
        {"queues", "", 0, 0, "One line per named queue: counts, paused, throughput and wait p50/p99 over a time range.", {"from", "to", "since"}, cmdQueues},
        {"list", "", 0, 0, "List messages in arrival order.", {"status", "older-than", "search", "where", "limit", "csv"}, cmdList},
        {"get", "ID", 1, 1, "Show one message with every column.", {}, cmdGet},
        {"put", "DATA|-", 1, 1, "Enqueue DATA (or stdin with -); prints the message id.", {"key", "create", "maxsize"}, cmdPut},
        {"retry", "[ID]", 0, 1, "LOCKED/FAILED -> READY, if the message still holds the claim; with --error CLASS, every failed job of that error.", {"claim", "error", "yes"}, cmdRetry},
        {"fail", "ID", 1, 1, "LOCKED/READY -> FAILED, if the message still holds the claim.", {"claim"}, cmdFail},
        {"release", "ID", 1, 1, "Lease queues: end the lease, due now, if attempts still match.", {"claim"}, cmdRelease},
        {"reschedule", "ID", 1, 1, "Lease queues: run again --delay seconds from now, if attempts still match.", {"claim", "delay"}, cmdReschedule},
        {"delete", "[ID]", 0, 1, "Delete the job, if it still holds its claim; with --error CLASS, every failed job of that error.", {"claim", "error", "yes"}, cmdDelete},
        {"retry-expired", "", 0, 0, "Every LOCKED message locked longer than --older-than -> READY.", {"older-than"}, cmdRetryExpired},
        {"prune", "", 0, 0, "Delete finished messages: what the format's own library prunes (see prune --help), or DONE and FAILED with --older-than; asks first.", {"keep-failed", "older-than", "yes"}, cmdPrune},
        {"vacuum", "", 0, 0, "Rebuild the file to reclaim free pages; prints the sizes.", {}, cmdVacuum},
        {"upgrade", "", 0, 0, "Migrate an older version of a format (litequeue legacy, 0.13) to the current one; asks first.", {"yes"}, cmdUpgrade},
        {"pause", "", 0, 0, "Pause the named queue --queue as its library does (its workers skip it); recorded, undoable, no question asked.", {}, cmdPause},
        {"resume", "", 0, 0, "Resume the paused queue --queue as its library does; recorded, undoable.", {}, cmdResume},
        {"undo", "", 0, 0, "Revert an operator action recorded in the audit log, for the rows that still hold what it wrote.", {"record"}, cmdUndo},
        {"audit", "", 0, 0, "List the audit records of FILE: every write the tools made, oldest first.", {}, cmdAudit},
        {"watch", "", 0, 0, "Print a line of counts whenever the queue changes, until Ctrl-C.", {"interval"}, cmdWatch},
        {"fleet", "", 0, 0, "Every queue file of the folder DIR: counts, backlog, skipped files.", {"prometheus"}, cmdFleet},
        {"exporter", "[PATH...]", 0, 100000, "Serve the metrics of stats --prometheus for queue files and folders over HTTP (/metrics).", {"listen", "interval"}, cmdExporter},
        {"demo", "", 0, 0, "Run a live synthetic workload on FILE (created if missing).", {"rate", "workers", "fail-ratio", "duration", "quiet", "maxsize"}, cmdDemo},
    };
    // clang-format on
    return defs;
}

/// `fleet` takes a folder where every other command takes a queue file.
bool isFolderCommand(const CommandDef& c) {
    return std::strcmp(c.name, "fleet") == 0;
}

/// The commands that accept ssh://HOST/PATH (serve.cpp).
bool takesRemote(const CommandDef& c) {
    static const char* const remote[] = {
        "info", "stats", "errors", "processes", "recurring",  "list",   "get",   "queues",
        "put",  "retry", "fail",   "release",   "reschedule", "delete", "prune", "retry-expired",
        "undo", "audit", "vacuum", "upgrade",   "pause",      "resume"};
    return std::any_of(std::begin(remote), std::end(remote),
                       [&](const char* n) { return std::strcmp(n, c.name) == 0; });
}

const OptionDef& optionDef(std::string_view name) {
    for (const auto& d : allOptions()) {
        if (name == d.name)
            return d;
    }
    std::abort(); // a typo in the tables above
}

QString qs(const char* s) {
    return QString::fromUtf8(s);
}

std::string optionLine(const OptionDef& d) {
    std::string left = "  --" + d.name;
    if (!d.valueName.empty())
        left += " " + d.valueName;
    if (left.size() < 26)
        left.append(26 - left.size(), ' ');
    else
        left += "  ";
    return left + d.help + "\n";
}

std::string generalHelp() {
    std::string s = "Usage: lqctl COMMAND FILE [options]\n"
                    "  or:  lqctl fleet DIR [options]\n"
                    "  or:  lqctl serve --stdio\n\n"
                    "FILE may be ssh://[USER@]HOST[:PORT]/PATH: the queue on that host, through "
                    "ssh (info, stats, list, get, put, vacuum, upgrade and the actions).\n\n"
                    "FILE may be postgresql://USER@HOST:PORT/DB[?schema=NAME]: a queue in "
                    "PostgreSQL (info and stats so far; password from ~/.pgpass or PGPASSWORD).\n\n"
                    "Inspect and operate SQLite job queues (litequeue and lease queues; see "
                    "`lqctl info`).\n\n"
                    "Commands:\n";
    for (const auto& c : commands()) {
        std::string left = std::string("  ") + c.name;
        left.append(left.size() < 18 ? 18 - left.size() : 1, ' ');
        s += left + c.summary + "\n";
    }
    s += "\nGlobal options:\n";
    for (const std::string& g : globalOptions())
        s += optionLine(optionDef(g));
    s += "  -h, --help              Show help (lqctl COMMAND --help for a command).\n"
         "  --help-all              Show help for every command.\n"
         "  --version               Show the version and git commit.\n"
         "\nExit codes: 0 done, 1 refused (stale claim, nothing matched, queue full, read-only),\n"
         "2 usage, 3 not a queue / unsupported format, 4 busy, 5 I/O error or damaged file.\n";
    return s;
}

/// What prune deletes by default, format by format (the formats say).
std::string pruneHelp() {
    std::string s = "\nWhat is pruned without --older-than:\n";
    for (const auto* f : core::QueueFormat::recognisers()) {
        const std::string text = f->pruneText();
        if (!text.empty())
            s += std::string("  ") + f->id() + ": " + text + ".\n";
    }
    s += "  other formats: DONE and FAILED messages, at any age.\n"
         "With --older-than SECONDS: the same states, finished more than SECONDS ago.\n";
    return s;
}

/// The formats' own states --status takes (Oban's retryable, goqite's
/// dead_letter), from the registry of formats: whether the file's format
/// has one is known once the file is open.
std::set<std::string> formatStatusNames() {
    std::set<std::string> own;
    for (const core::QueueFormat* f : core::QueueFormat::recognisers()) {
        for (const auto& x : f->extraStates())
            own.insert(x.name);
        for (const auto& p : core::partitionStates(*f))
            if (!p.canonical)
                own.insert(p.name);
    }
    return own;
}

/// Every name --status takes, canonical first: what `list --help` lists
/// under "States:" and shell completion offers.
std::vector<std::string> statusNames() {
    std::vector<std::string> names;
    for (int i = 0; i <= static_cast<int>(core::State::Expired); ++i) {
        std::string n = core::stateName(static_cast<core::State>(i));
        std::transform(n.begin(), n.end(), n.begin(),
                       [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
        if (n != "unknown")
            names.push_back(std::move(n));
    }
    names.emplace_back("stuck");
    for (const std::string& n : formatStatusNames())
        if (std::find(names.begin(), names.end(), n) == names.end())
            names.push_back(n);
    return names;
}

/// `lqctl COMMAND --help`; without `withGlobals`, one entry of --help-all.
std::string commandHelp(const CommandDef& c, bool withGlobals = true) {
    const std::string usage = std::string("lqctl ") + c.name +
                              (isFolderCommand(c) ? " DIR" : " FILE") +
                              (*c.args ? std::string(" ") + c.args : std::string()) + " [options]";
    if (!withGlobals) {
        // help2man makes "Heading:" + an indented line a subsection.
        std::string s = usage + ":\n  " + c.summary + "\n";
        if (!c.options.empty())
            s += "\n";
        for (const char* o : c.options)
            s += optionLine(optionDef(o));
        return s;
    }
    std::string s = "Usage: " + usage + "\n\n" + c.summary + "\n";
    if (!c.options.empty()) {
        s += "\nOptions:\n";
        for (const char* o : c.options)
            s += optionLine(optionDef(o));
    }
    if (std::strcmp(c.name, "prune") == 0)
        s += pruneHelp();
    if (std::find_if(c.options.begin(), c.options.end(), [](const char* o) {
            return std::strcmp(o, "status") == 0;
        }) != c.options.end()) {
        // One line, read by the shell completion (packaging/completion/).
        s += "\nStates:";
        for (const std::string& n : statusNames())
            s += " " + n;
        s += "\n";
    }
    s += "\nGlobal options:\n";
    for (const std::string& g : globalOptions())
        s += optionLine(optionDef(g));
    return s;
}

/// The general help, then every command with its own options: what the
/// lqctl(1) man page is generated from (help2man --help-option=--help-all),
/// so the page cannot drift from the program.
std::string allHelp() {
    std::string s = generalHelp();
    for (const auto& c : commands()) {
        s += std::string("\n") + commandHelp(c, false);
    }
    return s;
}

double parseSeconds(const QCommandLineParser& p, const char* name) {
    bool ok = false;
    const QString v = p.value(qs(name));
    const double d = v.toDouble(&ok);
    if (!ok || !(d >= 0) || d > 1e12)
        throw UsageError(std::string("--") + name + ": expected seconds >= 0, got \"" +
                         v.toStdString() + "\"");
    return d;
}

/// "90", "90s", "30m", "24h", "7d": a duration in ns.
core::TimeNs parseDuration(const std::string& v, const char* name) {
    static constexpr std::pair<char, double> kUnits[] = {
        {'s', 1}, {'m', 60}, {'h', 3600}, {'d', 86400}};
    double unit = 1;
    std::string number = v;
    for (const auto& [suffix, seconds] : kUnits)
        if (!number.empty() && number.back() == suffix) {
            unit = seconds;
            number.pop_back();
        }
    bool ok = false;
    const double d = QString::fromStdString(number).toDouble(&ok) * unit;
    if (!ok || !(d > 0) || d > 1e11)
        throw UsageError(std::string("--") + name +
                         ": expected a duration > 0 (seconds, or 30m, 24h, 7d), got \"" + v + "\"");
    return core::secondsToNs(d);
}

std::int64_t parseInt(const QString& v, const char* name, std::int64_t min) {
    bool ok = false;
    const qlonglong n = v.toLongLong(&ok);
    if (!ok || n < min)
        throw UsageError(std::string("--") + name + ": expected an integer >= " +
                         std::to_string(min) + ", got \"" + v.toStdString() + "\"");
    return n;
}

std::int64_t parseInt(const QCommandLineParser& p, const char* name, std::int64_t min) {
    return parseInt(p.value(qs(name)), name, min);
}

/// The library settings' options (settingOptions()): --NAME N, and
/// --NAME QUEUE=N for a setting the library takes per named queue; kept as
/// keyed data (core::FormatSettings::set).
void parseSettings(const QCommandLineParser& p, core::FormatSettings& s) {
    for (const SettingOption& o : settingOptions()) {
        const auto& st = o.setting;
        for (const QString& v : p.values(QString::fromStdString(o.name))) {
            const qsizetype eq = st.perQueue ? v.lastIndexOf(u'=') : -1;
            const QString queue = eq < 0 ? QString() : v.left(eq);
            if (eq >= 0 && queue.isEmpty())
                throw UsageError("--" + o.name + ": expected QUEUE=N, got \"" + v.toStdString() +
                                 "\"");
            const QString number = eq < 0 ? v : v.mid(eq + 1);
            std::int64_t n = 0;
            if (st.unit == "seconds") {
                bool ok = false;
                const double d = number.toDouble(&ok);
                if (!ok || !(d >= double(st.minimum)) || d > 1e12)
                    throw UsageError("--" + o.name +
                                     ": expected seconds >= " + std::to_string(st.minimum) +
                                     ", got \"" + number.toStdString() + "\"");
                n = static_cast<std::int64_t>(d);
            } else {
                n = parseInt(number, o.name.c_str(), st.minimum);
            }
            if (!s.set(st.key, n, queue.toStdString()))
                throw UsageError("--" + o.name + ": cannot set " + v.toStdString());
        }
    }
}

void parseStatus(const std::string& text, Options& o) {
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = std::min(text.find(',', start), text.size());
        std::string name = text.substr(start, comma - start);
        start = comma + 1;
        std::transform(name.begin(), name.end(), name.begin(),
                       [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
        if (name == "stuck") {
            o.stuckOnly = true;
            continue;
        }
        const auto s = name == "unknown" ? std::nullopt : core::parseState(name);
        if (s) {
            o.states.push_back(*s);
            continue;
        }
        // A format's own state (Oban's retryable, goqite's dead_letter):
        // whether the file's format has it is known once the file is open.
        if (!formatStatusNames().contains(name)) {
            std::string names;
            for (const std::string& x : statusNames())
                names += ", " + x;
            throw UsageError("--status: unknown status \"" + name + "\" (one of " +
                             names.substr(2) + ")");
        }
        if (std::find(o.extraStates.begin(), o.extraStates.end(), name) == o.extraStates.end())
            o.extraStates.push_back(name);
    }
    if (o.stuckOnly && (!o.extraStates.empty() ||
                        std::any_of(o.states.begin(), o.states.end(),
                                    [](core::State s) { return s != core::State::Locked; })))
        throw UsageError("--status: stuck means LOCKED for too long; it combines with no other "
                         "status");
}

Options parse(const CommandDef& cmd, const QStringList& args) {
    Options o;
    o.command = cmd.name;

    QCommandLineParser p;
    p.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    std::vector<std::string> names = globalOptions();
    names.insert(names.end(), cmd.options.begin(), cmd.options.end());
    for (const std::string& n : names) {
        const OptionDef& d = optionDef(n);
        const QString name = QString::fromStdString(d.name);
        const QString help = QString::fromStdString(d.help);
        if (!d.valueName.empty())
            p.addOption(QCommandLineOption(name, help, QString::fromStdString(d.valueName)));
        else
            p.addOption(QCommandLineOption(name, help));
    }
    // args: program, command, rest...
    QStringList forParser = args;
    forParser.removeAt(1);
    if (!p.parse(forParser))
        throw UsageError(p.errorText().toStdString());

    const QStringList pos = p.positionalArguments();
    const char* fileWord = isFolderCommand(cmd) ? "DIR" : "FILE";
    if (pos.isEmpty())
        throw UsageError(std::string(cmd.name) + ": missing " + fileWord);
    o.file = pos.front().toStdString();
    if (o.file.empty())
        throw UsageError(std::string(cmd.name) + ": " + fileWord + " is empty");
    for (qsizetype i = 1; i < pos.size(); ++i)
        o.args.push_back(pos[i].toStdString());
    if (o.args.size() < cmd.minArgs)
        throw UsageError(std::string(cmd.name) + ": missing " + cmd.args);
    if (o.args.size() > cmd.maxArgs)
        throw UsageError(std::string(cmd.name) + ": unexpected argument \"" + o.args.back() + "\"");

    const auto has = [&](const char* n) { return p.isSet(qs(n)); };
    o.json = has("json");
    if (has("now")) {
        const auto t = core::parseTimeArg(p.value(QStringLiteral("now")).toStdString());
        if (!t)
            throw UsageError("--now: expected ns since the epoch or ISO 8601, got \"" +
                             p.value(QStringLiteral("now")).toStdString() + "\"");
        o.now = *t;
    }
    if (has("stuck-after"))
        o.stuckAfterSeconds = parseSeconds(p, "stuck-after");
    if (has("busy-timeout")) {
        const double s = parseSeconds(p, "busy-timeout");
        o.busyTimeoutMs = static_cast<int>(std::min(s * 1000.0, 2.0e9));
    }
    if (has("table"))
        o.table = p.value(QStringLiteral("table")).toStdString();
    if (has("queue"))
        o.queue = p.value(QStringLiteral("queue")).toStdString();
    parseSettings(p, o.settings);

    const auto allowed = [&](const char* n) {
        return std::any_of(cmd.options.begin(), cmd.options.end(),
                           [&](const char* c) { return std::strcmp(c, n) == 0; });
    };
    const auto set = [&](const char* n) { return allowed(n) && has(n); };
    if (set("tz")) {
        const std::string z = p.value(QStringLiteral("tz")).toStdString();
        const auto off = core::cron::fixedZoneOffset(z);
        if (!off)
            throw UsageError("--tz: expected UTC or a fixed offset (+09:00, Etc/GMT-9), got \"" +
                             z + "\" (zones with daylight saving are not evaluated)");
        o.tzOffset = *off;
    }
    for (const char* n : {"from", "to"})
        if (set(n)) {
            const std::string v = p.value(qs(n)).toStdString();
            const auto t = core::parseTimeArg(v);
            if (!t)
                throw UsageError(std::string("--") + n +
                                 ": expected ns since the epoch or ISO 8601, got \"" + v + "\"");
            (n[0] == 'f' ? o.from : o.to) = *t;
        }
    if (set("since")) {
        if (o.from)
            throw UsageError("--since and --from: give one start of the range");
        o.since = parseDuration(p.value(QStringLiteral("since")).toStdString(), "since");
    }
    if (set("status"))
        parseStatus(p.value(QStringLiteral("status")).toStdString(), o);
    if (set("older-than"))
        o.olderThan = parseSeconds(p, "older-than");
    if (set("error"))
        o.errorClass = p.value(QStringLiteral("error")).toStdString();
    if (set("search"))
        o.search = p.value(QStringLiteral("search")).toStdString();
    if (set("where"))
        o.where = p.value(QStringLiteral("where")).toStdString();
    if (set("limit"))
        o.limit = parseInt(p, "limit", 0);
    o.csv = set("csv");
    o.prometheus = set("prometheus");
    if (o.csv && o.json)
        throw UsageError("--csv and --json exclude each other");
    if (o.prometheus && o.json)
        throw UsageError("--prometheus and --json exclude each other");
    if (set("key"))
        o.key = p.value(QStringLiteral("key")).toStdString();
    if (set("claim"))
        o.claim = parseInt(p, "claim", std::numeric_limits<std::int64_t>::min());
    o.create = set("create");
    if (set("maxsize"))
        o.maxsize = parseInt(p, "maxsize", 0);
    if (set("record"))
        o.record = p.value(QStringLiteral("record")).toStdString();
    if (set("run")) {
        o.runTask = p.value(QStringLiteral("run")).toStdString();
        if (o.runTask.empty())
            throw UsageError("--run: expected a recurring task's key (lqctl recurring FILE)");
    }
    o.keepFailed = set("keep-failed");
    o.yes = set("yes");
    if (set("listen"))
        o.listen = p.value(QStringLiteral("listen")).toStdString();
    if (set("interval")) {
        o.interval = parseSeconds(p, "interval");
        if (o.interval < 0.01)
            throw UsageError("--interval: at least 0.01 seconds");
    }
    if (set("rate"))
        o.rate = parseSeconds(p, "rate");
    if (set("workers"))
        o.workers = static_cast<int>(std::min<std::int64_t>(parseInt(p, "workers", 0), 256));
    if (set("fail-ratio")) {
        o.failRatio = parseSeconds(p, "fail-ratio");
        if (o.failRatio > 1)
            throw UsageError("--fail-ratio: expected a ratio between 0 and 1");
    }
    if (set("delay"))
        o.delay = parseSeconds(p, "delay");
    if (set("duration"))
        o.duration = parseSeconds(p, "duration");
    o.quiet = set("quiet");
    return o;
}

/// Whether `path` starts with SQLite's header string: a file that does is a
/// damaged database, one that does not is no database at all.
bool sqliteMagic(const std::string& path) {
    static constexpr char kMagic[] = "SQLite format 3";
    char head[sizeof kMagic] = {};
    std::ifstream f(path, std::ios::binary);
    return f.read(head, sizeof head) && std::memcmp(head, kMagic, sizeof kMagic) == 0;
}

int exitCodeFor(const core::Error& e) {
    switch (e.kind()) {
    case core::ErrorKind::Io:
        return ExitIo;
    case core::ErrorKind::Corrupt:
        // A file that is no SQLite database at all (a text file named .db)
        // is not a queue; a damaged database is an I/O error.
        return e.sqliteCode() == 26 /* SQLITE_NOTADB */ && !sqliteMagic(e.path()) ? ExitNotAQueue
                                                                                  : ExitIo;
    case core::ErrorKind::NotAQueue:
    case core::ErrorKind::Unsupported:
        return ExitNotAQueue;
    case core::ErrorKind::Busy:
        return ExitBusy;
    case core::ErrorKind::ReadOnly:
    case core::ErrorKind::QueueFull:
    case core::ErrorKind::IdempotencyConflict:
    case core::ErrorKind::NotFound:
    case core::ErrorKind::FileChanged:
        return ExitRefused;
    case core::ErrorKind::InvalidArgument:
        return ExitUsage;
    case core::ErrorKind::Sqlite:
        switch (e.sqliteCode()) {
        case 5: // SQLITE_BUSY
        case 6: // SQLITE_LOCKED
            return ExitBusy;
        case 8: // SQLITE_READONLY: the file or its folder is not writable
            return ExitRefused;
        default:
            return ExitIo;
        }
    }
    return ExitIo;
}

} // namespace

void installStopHandlers() {
    struct sigaction sa {};
    sa.sa_handler = onStopSignal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
}

bool stopRequested() {
    return g_stop != 0;
}

int run(const QStringList& args) {
    if (args.size() < 2) {
        err(generalHelp());
        return ExitUsage;
    }
    const std::string first = args.at(1).toStdString();
    if (first == "-h" || first == "--help" || first == "help") {
        if (first == "help" && args.size() > 2) {
            const std::string name = args.at(2).toStdString();
            for (const auto& c : commands()) {
                if (name == c.name) {
                    out(commandHelp(c));
                    return ExitOk;
                }
            }
        }
        out(generalHelp());
        return ExitOk;
    }
    if (first == "--help-all") {
        out(allHelp());
        return ExitOk;
    }
    if (first == "--version" || first == "-v") {
        out("lqctl " + QCoreApplication::applicationVersion().toStdString() +
            " (commit " LQ_GIT_COMMIT ")\n");
        return ExitOk;
    }
    if (first == "serve") {
        if (args.size() == 3 && args.at(2) == QLatin1String("--stdio"))
            return cmdServe(Options{});
        err("Usage: lqctl serve --stdio\n\nSpeak the remote protocol (docs/PROTOCOL.md) on "
            "stdin/stdout: what `lqctl COMMAND ssh://HOST/PATH` and lqadmin run on HOST.\n");
        return ExitUsage;
    }
    const auto& defs = commands();
    const auto it = std::find_if(defs.begin(), defs.end(),
                                 [&](const CommandDef& c) { return first == c.name; });
    if (it == defs.end()) {
        err("lqctl: unknown command \"" + terminalSafe(first) + "\"\n\n" + generalHelp());
        return ExitUsage;
    }
    for (const QString& a : args) {
        if (a == QLatin1String("--"))
            break;
        if (a == QLatin1String("--help") || a == QLatin1String("-h")) {
            out(commandHelp(*it));
            return ExitOk;
        }
    }

    Options o;
    try {
        o = parse(*it, args);
        if (isRemote(o) && !takesRemote(*it))
            throw UsageError(std::string(it->name) +
                             " does not take an ssh:// queue: run it on the host (ssh HOST "
                             "lqctl " +
                             it->name + " PATH)");
        if (isPostgres(o) && !takesPostgres(it->name)) {
            // put, vacuum and upgrade: the database's own reason, as the
            // window greys the action out with it.
            if (const auto a = fileOnlyAction(it->name))
                throw Refused(it->name + std::string(" is not offered: ") +
                              openBackendFor(o, false)->whyNot(*a));
            throw UsageError(std::string(it->name) + " does not take a postgresql:// queue");
        }
        const int rc = it->run(o);
        std::fflush(stdout);
        return rc;
    } catch (const UsageError& e) {
        err("lqctl: " + std::string(e.what()) + "\nTry `lqctl " + it->name + " --help`.\n");
        return ExitUsage;
    } catch (const Refused& e) {
        std::fflush(stdout);
        err("lqctl: " + terminalSafe(shownFile(o.file)) + ": " + e.what() + "\n");
        return ExitRefused;
    } catch (const core::Error& e) {
        std::fflush(stdout);
        err("lqctl: " + terminalSafe(shownFile(o.file)) + ": " + terminalSafe(e.detail()) + "\n");
        return exitCodeFor(e);
    } catch (const std::exception& e) {
        std::fflush(stdout);
        err("lqctl: " + terminalSafe(shownFile(o.file)) + ": " + terminalSafe(e.what()) + "\n");
        return ExitIo;
    }
}

} // namespace lq::ctl
