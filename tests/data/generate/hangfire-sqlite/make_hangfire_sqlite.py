#!/usr/bin/env python3
"""Write tests/data/formats/hangfire-sqlite.sqlite3: Hangfire's storage as
Hangfire.Storage.SQLite writes it through sqlite-net.

Hangfire (.NET) and Hangfire.Storage.SQLite do not install on Debian 12, so
this script reproduces the file from the upstream source, read at

    raisedapp/Hangfire.Storage.SQLite@a07234959f401f166211aedf1ba42a71462dc753
        (0.4.2, 2024-04-10): Entities/*.cs (the tables), HangfireDbContext.cs
        (CreateTable order, journal_mode WAL), SQLiteStorage.cs
        (storeDateTimeAsTicks: true), SQLiteStorageOptions.cs
        (InvisibilityTimeout 30 min), SQLiteJobQueue.cs (Enqueue, Dequeue),
        SQLiteFetchedJob.cs (RemoveFromQueue, Requeue), HangfireSQLiteConnection.cs
        (CreateExpiredJob, SetJobParameter, AnnounceServer, Heartbeat),
        SQLiteWriteOnlyTransaction.cs (SetJobState, AddJobState, ExpireJob,
        PersistJob, AddToSet, IncrementCounter), ExpirationManager.cs
    praeclarum/sqlite-net@0b23275b085febba7cac53f076898ac58e99ac25 (v1.8.116,
        the version the package references): SQLite.cs CreateTable, SqlDecl,
        SqlType, CreateIndex, BindParameter (DateTime as .Ticks)
    HangfireIO/Hangfire@858f19dfa5fd5fb5b95fe20f9c3f841a7ba658b2 (v1.8.0):
        States/*.cs SerializeData (the State.Data keys), CoreStateMachine.cs
        (Unapply, SetJobState, Apply, then ExpireJob for a final state or
        PersistJob), StateMachine.cs (traversed states through AddJobState),
        Server/Worker.cs (fetch, Processing, RemoveFromQueue), JobStorage.cs
        (JobExpirationTimeout 1 day), Common/JobHelper.cs (SerializeDateTime:
        ISO 8601 "o" at the default compatibility level)

No upstream code is copied: the statements below are the ones sqlite-net
emits for those calls.

* Schema: HangfireDbContext.Init's CreateTable<T>() calls in their order, each
  `create table if not exists "T"(` + one `"Col" type [primary key ]
  [autoincrement ][not null ]` per property, joined with ",\n", + `)`, then
  its [Indexed] indexes (`create  index if not exists "IX_.." on "T"("Col")`;
  `[Unique]` unnamed: "DistributedLock_Resource"). DateTime is bigint (ticks),
  int integer, decimal float, string varchar(n) or varchar. Nothing is
  NOT NULL but the primary keys. journal_mode WAL (the storage's default).
  page_size 1024 is this generator's own choice, to keep the fixture small
  (eleven tables and twenty indexes take a page each); the library leaves
  SQLite's default (4096), and nothing lqcore reads depends on it.
* Dates: DateTime.Ticks (100 ns since 0001-01-01), of DateTime.UtcNow; an unset
  DateTime is DateTime.MinValue, 0 ticks ("never": JobQueue.FetchedAt of a job
  not fetched, ExpireAt of a row that does not expire).
* Rows: as the library's statements write them for a client that enqueues
  and schedules, and servers whose workers fetch (FetchedAt = now), set
  Processing, then Succeeded (ExpireJob: now + 1 day on Job, State and
  JobParameter) or Failed (PersistJob), and RemoveFromQueue. A fixed fake clock:
  the facts hold at NOW.

Usage: python3 make_hangfire_sqlite.py OUT.sqlite3
"""
import datetime as dt
import json
import os
import sqlite3
import sys
import uuid

NOW = dt.datetime(2026, 11, 30, 12, 0, 0)  # UTC
EPOCH = dt.datetime(1, 1, 1)
DAY = dt.timedelta(days=1)


def ticks(d):
    """DateTime.Ticks of a UTC DateTime: 100 ns units since 0001-01-01."""
    delta = d - EPOCH
    return (delta.days * 86400 + delta.seconds) * 10_000_000 + delta.microseconds * 10


def iso(d):
    """JobHelper.SerializeDateTime at compatibility level 110: ToString("o")."""
    return d.strftime("%Y-%m-%dT%H:%M:%S.") + "%06d0Z" % d.microsecond


def at(day, h, m, s=0, us=0):
    return dt.datetime(2026, 11, day, h, m, s, us)


# ---------------------------------------------------------------- schema

VARCHAR = 16000  # DefaultValues.MaxLengthVarCharColumn

# (table, [(column, sqlite-net type, primary key, autoincrement)], [(index, [columns], unique)])
TABLES = [
    ("AggregatedCounter", [("Key", "varchar(100)", True, False), ("Value", "float", False, False),
                           ("ExpireAt", "bigint", False, False)],
     [("IX_AggregatedCounter_ExpireAt", ["ExpireAt"], False)]),
    ("Counter", [("Id", "varchar(100)", True, False), ("Key", "varchar(100)", False, False),
                 ("Value", "float", False, False), ("ExpireAt", "bigint", False, False)],
     [("IX_Counter_ExpireAt", ["ExpireAt"], False)]),
    ("Job", [("Id", "integer", True, True), ("StateId", "integer", False, False),
             ("StateName", "varchar(20)", False, False), ("InvocationData", "varchar(%d)" % VARCHAR, False, False),
             ("Arguments", "varchar(%d)" % VARCHAR, False, False), ("CreatedAt", "bigint", False, False),
             ("ExpireAt", "bigint", False, False)],
     [("IX_Job_StateName", ["StateName"], False), ("IX_Job_ExpireAt", ["ExpireAt"], False)]),
    ("List", [("Id", "integer", True, True), ("Key", "varchar(100)", False, False),
              ("Value", "varchar(%d)" % VARCHAR, False, False), ("ExpireAt", "bigint", False, False)],
     [("IX_List_Key", ["Key"], False), ("IX_List_ExpireAt", ["ExpireAt"], False)]),
    ("Hash", [("Id", "integer", True, True), ("Key", "varchar(100)", False, False),
              ("Field", "varchar(100)", False, False), ("Value", "varchar(%d)" % VARCHAR, False, False),
              ("ExpireAt", "bigint", False, False)],
     [("IX_Hash_Key", ["Key"], False), ("IX_Hash_Field", ["Field"], False), ("IX_Hash_ExpireAt", ["ExpireAt"], False)]),
    ("JobParameter", [("Id", "integer", True, True), ("JobId", "integer", False, False),
                      ("Name", "varchar(40)", False, False), ("Value", "varchar(%d)" % VARCHAR, False, False),
                      ("ExpireAt", "bigint", False, False)],
     [("IX_JobParameter_JobId", ["JobId"], False), ("IX_JobParameter_Name", ["Name"], False),
      ("IX_JobParameter_ExpireAt", ["ExpireAt"], False)]),
    ("JobQueue", [("Id", "integer", True, True), ("JobId", "integer", False, False),
                  ("Queue", "varchar(50)", False, False), ("FetchedAt", "bigint", False, False)],
     [("IX_JobQueue_Queue", ["Queue"], False), ("IX_JobQueue_FetchedAt", ["FetchedAt"], False)]),
    ("Server", [("Id", "varchar(100)", True, False), ("Data", "varchar(%d)" % VARCHAR, False, False),
                ("LastHeartbeat", "bigint", False, False)], []),
    ("Set", [("Id", "integer", True, True), ("Key", "varchar(100)", False, False), ("Score", "float", False, False),
             ("Value", "varchar(256)", False, False), ("ExpireAt", "bigint", False, False)],
     [("IX_Set_Key", ["Key"], False), ("IX_Set_Value", ["Value"], False), ("IX_Set_ExpireAt", ["ExpireAt"], False)]),
    ("State", [("Id", "integer", True, True), ("JobId", "integer", False, False), ("Name", "varchar(20)", False, False),
               ("Reason", "varchar(100)", False, False), ("CreatedAt", "bigint", False, False),
               ("Data", "varchar(%d)" % VARCHAR, False, False), ("ExpireAt", "bigint", False, False)],
     [("IX_State_JobId", ["JobId"], False), ("IX_State_ExpireAt", ["ExpireAt"], False)]),
    ("DistributedLock", [("Id", "varchar", True, False), ("Resource", "varchar", False, False),
                         ("ResourceKey", "varchar", False, False), ("ExpireAt", "bigint", False, False)],
     [("DistributedLock_Resource", ["Resource"], True)]),
]


def create_schema(db):
    """HangfireDbContext.Init: the pragmas, then CreateTable<T>() per entity."""
    db.execute("PRAGMA page_size = 1024")  # this fixture's only liberty: see the docstring
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA auto_vacuum = '0'")
    for table, cols, indexes in TABLES:
        decls = []
        for name, typ, pk, auto in cols:
            d = '"%s" %s ' % (name, typ)
            if pk:
                d += "primary key "
            if auto:
                d += "autoincrement "
            if pk:  # IsNullable = !(IsPK || [NotNull])
                d += "not null "
            decls.append(d)
        db.execute('create table if not exists "%s"(\n%s)' % (table, ",\n".join(decls)))
        for name, columns, unique in indexes:
            db.execute('create %s index if not exists "%s" on "%s"("%s")'
                       % ("unique" if unique else "", name, table, '", "'.join(columns)))


# ---------------------------------------------------------------- the app

def invocation(type_name, method, param_types, args, queue=None):
    """InvocationData.SerializeJob through SerializationHelper (Json.NET)."""
    data = {"Type": type_name, "Method": method, "ParameterTypes": json.dumps(param_types, separators=(",", ":")),
            "Arguments": json.dumps([json.dumps(a, separators=(",", ":")) for a in args], separators=(",", ":"))}
    if queue is not None:
        data["Queue"] = queue
    return json.dumps(data, separators=(",", ":")), data["Arguments"]


def state_data(d):
    return json.dumps(d, separators=(",", ":"))


class Storage:
    def __init__(self, db):
        self.db = db

    def insert(self, table, row):
        cols = list(row)
        cur = self.db.execute('insert into "%s"(%s) values (%s)' % (
            table, ",".join('"%s"' % c for c in cols), ",".join("?" * len(cols))), [row[c] for c in cols])
        return cur.lastrowid

    # HangfireSQLiteConnection.CreateExpiredJob: the Job (no state yet), its parameters.
    def create_job(self, when, inv, params):
        data, args = inv
        jid = self.insert("Job", {"StateId": 0, "StateName": None, "InvocationData": data, "Arguments": args,
                                  "CreatedAt": ticks(when), "ExpireAt": ticks(when + 30 * DAY)})
        for name, value in params.items():
            self.insert("JobParameter", {"JobId": jid, "Name": name, "Value": value, "ExpireAt": 0})
        return jid

    def set_parameter(self, jid, name, value):
        cur = self.db.execute('update "JobParameter" set "Value" = ? where "JobId" = ? and "Name" = ?', (value, jid, name))
        if cur.rowcount == 0:
            self.insert("JobParameter", {"JobId": jid, "Name": name, "Value": value, "ExpireAt": 0})

    # SQLiteWriteOnlyTransaction.AddJobState: a history row (a traversed state).
    def add_state(self, when, jid, name, reason, data):
        self.insert("State", {"JobId": jid, "Name": name, "Reason": reason, "CreatedAt": ticks(when),
                              "Data": state_data(data), "ExpireAt": 0})

    # SetJobState: a State row and Job.StateName (StateId is never set), then
    # ExpireJob (a final state: Succeeded, Deleted) or PersistJob.
    def set_state(self, when, jid, name, reason, data, final=False):
        self.add_state(when, jid, name, reason, data)
        self.db.execute('update "Job" set "StateName" = ? where "Id" = ?', (name, jid))
        if final:
            exp = ticks(when + DAY)  # JobStorage.JobExpirationTimeout
            self.db.execute('update "Job" set "ExpireAt" = ? where "Id" = ?', (exp, jid))
            self.db.execute('UPDATE [State] SET ExpireAt = %d WHERE JobId = %d' % (exp, jid))
            self.db.execute('UPDATE [JobParameter] SET ExpireAt = %d WHERE JobId = %d' % (exp, jid))
        else:
            self.db.execute('update "Job" set "ExpireAt" = ? where "Id" = ?', (0, jid))

    def counter(self, when, key, expire=None):
        self.insert("Counter", {"Id": str(uuid.uuid5(uuid.NAMESPACE_URL, "%s %s %d" % (key, when, self.n_counters()))),
                                "Key": key, "Value": 1, "ExpireAt": ticks(when + expire) if expire else 0})

    def n_counters(self):
        return self.db.execute('select count(*) from "Counter"').fetchone()[0]

    def add_to_set(self, key, value, score):
        row = self.db.execute('select "Id" from "Set" where "Key" = ? and "Value" = ?', (key, value)).fetchone()
        if row:
            self.db.execute('update "Set" set "Score" = ? where "Id" = ?', (score, row[0]))
        else:
            self.insert("Set", {"Key": key, "Score": score, "Value": value, "ExpireAt": 0})

    def remove_from_set(self, key, value):
        self.db.execute('delete from "Set" where "Key" = ? and "Value" = ?', (key, value))

    # ------------------------------------------------ Hangfire's state changes

    def enqueue(self, when, jid, queue, reason=None):
        """EnqueuedState: State + StateName, AddToQueue (SQLiteJobQueue.Enqueue: FetchedAt MinValue)."""
        self.set_state(when, jid, "Enqueued", reason, {"EnqueuedAt": iso(when), "Queue": queue})
        self.insert("JobQueue", {"JobId": jid, "Queue": queue, "FetchedAt": 0})

    def schedule(self, when, jid, enqueue_at, reason=None):
        """ScheduledState: AddToSet("schedule", [Job.Queue + ':'] + id, ToTimestamp(EnqueueAt))."""
        self.set_state(when, jid, "Scheduled", reason, {"EnqueueAt": iso(enqueue_at), "ScheduledAt": iso(when)})
        self.add_to_set("schedule", self.set_value(jid), float(int((enqueue_at - dt.datetime(1970, 1, 1)).total_seconds())))

    def set_value(self, jid):
        inv = json.loads(self.db.execute('select "InvocationData" from "Job" where "Id" = ?', (jid,)).fetchone()[0])
        return "%s:%d" % (inv["Queue"], jid) if "Queue" in inv else str(jid)

    def fetch(self, when, jid):
        """SQLiteJobQueue.Dequeue: the queue row's FetchedAt = UtcNow."""
        qid, queue = self.db.execute('select "Id", "Queue" from "JobQueue" where "JobId" = ? order by "Id" limit 1',
                                     (jid,)).fetchone()
        # Database.Update(fetchedJob): every column but the key.
        self.db.execute('update "JobQueue" set "JobId" = ?,"Queue" = ?,"FetchedAt" = ? where "Id" = ? ',
                        (jid, queue, ticks(when), qid))
        return qid

    def processing(self, when, jid, server, worker):
        self.set_state(when, jid, "Processing", None, {"StartedAt": iso(when), "ServerId": server, "WorkerId": worker})

    def remove_from_queue(self, qid):
        self.db.execute('delete from "JobQueue" where "Id" = ?', (qid,))

    def succeed(self, when, jid, qid, started, result=None):
        perf = int((when - started).total_seconds() * 1000)
        data = {"SucceededAt": iso(when), "PerformanceDuration": str(perf), "Latency": str(self.latency(jid, started))}
        if result is not None:
            data["Result"] = json.dumps(result, separators=(",", ":"))
        self.set_state(when, jid, "Succeeded", None, data, final=True)
        self.counter(when, "stats:succeeded")
        self.remove_from_queue(qid)

    def latency(self, jid, started):
        created = self.db.execute('select "CreatedAt" from "Job" where "Id" = ?', (jid,)).fetchone()[0]
        return (ticks(started) - created) // 10_000

    def fail(self, when, jid, qid, server, exc_type, message, details, retry_at=None, attempt=None):
        """FailedState elected; AutomaticRetry turns it into Scheduled while attempts remain
        (the Failed state traversed: AddJobState)."""
        failed = {"FailedAt": iso(when), "ExceptionType": exc_type, "ExceptionMessage": message,
                  "ExceptionDetails": details, "ServerId": server}
        if retry_at is not None:
            self.set_parameter(jid, "RetryCount", str(attempt))
            self.add_state(when, jid, "Failed", "An exception occurred during performance of the job.", failed)
            self.schedule(when, jid, retry_at, "Retry attempt %d of 10: %s" % (attempt, message))
        else:
            self.set_state(when, jid, "Failed", "An exception occurred during performance of the job.", failed)
            self.counter(when, "stats:failed")
        self.remove_from_queue(qid)

    def delete(self, when, jid):
        """DeletedState (final): the JobQueue row stays until a worker fetches it."""
        self.set_state(when, jid, "Deleted", None, {"DeletedAt": iso(when)}, final=True)
        self.counter(when, "stats:deleted")


SERVER_A = "shop-web-1:4711:0b6f1f8e-6a2f-4d55-9c83-0e0a3c2a5d11"
SERVER_B = "shop-worker-2:5120:7d3c2b1a-1e2f-4a5b-8c9d-f0e1d2c3b4a5"  # killed at 11:10

MAILER = "Shop.Jobs.Mailer, Shop"
REPORTS = "Shop.Jobs.ReportBuilder, Shop"
SYNC = "Shop.Jobs.InventorySync, Shop"


def http_error(url):
    return ("System.Net.Http.HttpRequestException: Response status code does not indicate success: 503 (Service Unavailable).\n"
            "   at System.Net.Http.HttpResponseMessage.EnsureSuccessStatusCode()\n"
            "   at Shop.Jobs.Mailer.SendReceipt(Int32 orderId) in /src/Shop/Jobs/Mailer.cs:line 42\n"
            "   at %s" % url)


def main():
    out = sys.argv[1]
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(out + suffix):
            os.remove(out + suffix)
    db = sqlite3.connect(out, isolation_level=None)  # sqlite-net: autocommit
    create_schema(db)
    s = Storage(db)
    db.execute("BEGIN")  # one transaction for the whole history: fewer WAL frames

    # The servers (AnnounceServer, Heartbeat): B's process was killed at 11:10.
    for sid, queues, hb in ((SERVER_A, ["critical", "default", "emails"], at(30, 11, 59, 45)),
                            (SERVER_B, ["critical", "default"], at(30, 11, 10, 0))):
        s.insert("Server", {"Id": sid, "Data": json.dumps({"WorkerCount": 5, "Queues": queues,
                                                            "StartedAt": iso(at(30, 6, 0, 0))}, separators=(",", ":")),
                            "LastHeartbeat": ticks(hb)})

    def job(when, inv, culture=True):
        params = {"CurrentCulture": '"en-US"', "CurrentUICulture": '"en-US"'} if culture else {}
        return s.create_job(when, inv, params)

    # 1 (default): succeeded 11-28; expired 11-29 (the ExpirationManager would delete it).
    j = job(at(28, 9, 0, 0), invocation(SYNC, "Run", ["System.String"], ["berlin"]))
    s.enqueue(at(28, 9, 0, 0, 5000), j, "default")
    q = s.fetch(at(28, 9, 0, 1), j)
    s.processing(at(28, 9, 0, 1, 20000), j, SERVER_A, "w-1")
    s.succeed(at(28, 9, 0, 3, 520000), j, q, at(28, 9, 0, 1, 20000), result=128)

    # 2 (emails): succeeded today, kept until tomorrow.
    j = job(at(30, 10, 0, 0), invocation(MAILER, "SendWelcome", ["System.Int32"], [17]))
    s.enqueue(at(30, 10, 0, 0, 8000), j, "emails")
    q = s.fetch(at(30, 10, 0, 0, 750000), j)
    s.processing(at(30, 10, 0, 0, 760000), j, SERVER_A, "w-2")
    s.succeed(at(30, 10, 0, 1, 260000), j, q, at(30, 10, 0, 0, 760000))

    # 3 (emails): failed twice: a retry (AutomaticRetry), then Failed for good ([AutomaticRetry(Attempts = 1)]).
    j = job(at(30, 10, 5, 0), invocation(MAILER, "SendReceipt", ["System.Int32"], [9107]))
    s.enqueue(at(30, 10, 5, 0, 3000), j, "emails")
    q = s.fetch(at(30, 10, 5, 1), j)
    s.processing(at(30, 10, 5, 1, 10000), j, SERVER_A, "w-3")
    s.fail(at(30, 10, 5, 31), j, q, SERVER_A, "System.Net.Http.HttpRequestException",
           "Response status code does not indicate success: 503 (Service Unavailable).",
           http_error("attempt 1"), retry_at=at(30, 10, 6, 0), attempt=1)
    s.remove_from_set("schedule", s.set_value(j))  # DelayedJobScheduler: Scheduled -> Enqueued
    s.enqueue(at(30, 10, 6, 2), j, "emails", "Triggered by DelayedJobScheduler")
    q = s.fetch(at(30, 10, 6, 3), j)
    s.processing(at(30, 10, 6, 3, 10000), j, SERVER_A, "w-1")
    s.fail(at(30, 10, 6, 33, 250000), j, q, SERVER_A, "System.Net.Http.HttpRequestException",
           "Response status code does not indicate success: 503 (Service Unavailable).", http_error("attempt 2"))

    # 4 (critical): failed at once.
    j = job(at(30, 10, 45, 0), invocation(REPORTS, "Build", ["System.String"], ["monthly-churn"], queue="critical"))
    s.enqueue(at(30, 10, 45, 0, 2000), j, "critical")
    q = s.fetch(at(30, 10, 45, 1), j)
    s.processing(at(30, 10, 45, 1, 5000), j, SERVER_A, "w-4")
    s.fail(at(30, 10, 45, 2, 345000), j, q, SERVER_A, "System.InvalidOperationException", "Unknown report: monthly-churn",
           "System.InvalidOperationException: Unknown report: monthly-churn\n"
           "   at Shop.Jobs.ReportBuilder.Build(String report) in /src/Shop/Jobs/ReportBuilder.cs:line 17")

    # 5: scheduled for tomorrow (BackgroundJob.Schedule): no queue yet.
    j = job(at(30, 11, 0, 0), invocation(REPORTS, "Build", ["System.String"], ["weekly-sales"]))
    s.schedule(at(30, 11, 0, 0, 4000), j, dt.datetime(2026, 12, 1, 6, 0, 0))

    # 6 (critical): waiting for its retry at 12:00:30.
    j = job(at(30, 11, 59, 0), invocation(SYNC, "Run", ["System.String"], ["leipzig"], queue="critical"))
    s.enqueue(at(30, 11, 59, 0, 1000), j, "critical")
    q = s.fetch(at(30, 11, 59, 1), j)
    s.processing(at(30, 11, 59, 1, 9000), j, SERVER_A, "w-5")
    s.fail(at(30, 11, 59, 30), j, q, SERVER_A, "System.TimeoutException", "The operation has timed out.",
           "System.TimeoutException: The operation has timed out.\n   at Shop.Jobs.InventorySync.Run(String warehouse)",
           retry_at=at(30, 12, 0, 30), attempt=1)

    # 7 (default), 8 (critical): enqueued, not fetched.
    j = job(at(30, 11, 58, 0), invocation(SYNC, "Run", ["System.String"], ["cologne"]))
    s.enqueue(at(30, 11, 58, 0, 2000), j, "default")
    j = job(at(30, 11, 59, 59), invocation(MAILER, "SendPasswordReset", ["System.Int32"], [20], queue="critical"))
    s.enqueue(at(30, 11, 59, 59, 3000), j, "critical")

    # 9 (default): processing on server A since 11:59:50.
    j9 = job(at(30, 11, 59, 49), invocation(SYNC, "RebuildSearchIndex", [], []))
    s.enqueue(at(30, 11, 59, 49, 1000), j9, "default")
    s.fetch(at(30, 11, 59, 50), j9)
    s.processing(at(30, 11, 59, 50, 12000), j9, SERVER_A, "w-2")

    # 10 (critical): processing on server B, killed at 11:10: fetched 11:05, stale after 30 min.
    j = job(at(30, 11, 4, 59), invocation(REPORTS, "Build", ["System.String"], ["daily-orders"], queue="critical"))
    s.enqueue(at(30, 11, 5, 0), j, "critical")
    s.fetch(at(30, 11, 5, 0, 500000), j)
    s.processing(at(30, 11, 5, 0, 510000), j, SERVER_B, "w-1")

    # 11 (emails): fetched by server B at 11:09:59 and never set Processing (killed): stale too.
    j = job(at(30, 11, 9, 58), invocation(MAILER, "SendWelcome", ["System.Int32"], [18]))
    s.enqueue(at(30, 11, 9, 58, 1000), j, "emails")
    s.fetch(at(30, 11, 9, 59), j)

    # 12 (emails): processing on server A, fetched 11:45 (15 min: live).
    j = job(at(30, 11, 45, 0), invocation(MAILER, "SendNewsletter", ["System.String"], ["november"]))
    s.enqueue(at(30, 11, 45, 0, 2000), j, "emails")
    s.fetch(at(30, 11, 45, 1), j)
    s.processing(at(30, 11, 45, 1, 4000), j, SERVER_A, "w-3")

    # 13 (default): deleted from the dashboard while enqueued; a worker has since
    # fetched it and dropped its queue row (the state was not Enqueued any more).
    j = job(at(30, 9, 0, 0), invocation(SYNC, "Run", ["System.String"], ["hamburg"]))
    s.enqueue(at(30, 9, 0, 0, 1000), j, "default")
    s.delete(at(30, 9, 30, 0), j)
    s.remove_from_queue(s.fetch(at(30, 9, 30, 5), j))

    # 14 (emails): deleted 11-27, expired 11-28.
    j = job(at(27, 8, 0, 0), invocation(MAILER, "SendWelcome", ["System.Int32"], [16]))
    s.enqueue(at(27, 8, 0, 0, 1000), j, "emails")
    s.delete(at(27, 8, 10, 0), j)
    s.remove_from_queue(s.fetch(at(27, 8, 10, 1), j))

    # 15: a continuation of job 9 (BackgroundJob.ContinueJobWith): Awaiting.
    j = job(at(30, 11, 59, 49, 500000), invocation(MAILER, "SendIndexReport", [], []))
    s.set_state(at(30, 11, 59, 49, 502000), j, "Awaiting", None,
                {"ParentId": str(j9), "NextState": json.dumps({"$type": "Hangfire.States.EnqueuedState, Hangfire.Core",
                                                               "Queue": "default"}, separators=(",", ":")),
                 "Options": "OnlyOnSucceededState", "Expiration": "365.00:00:00"})
    s.add_to_set("awaiting", str(j), 0.0)

    # 16 (default): processing on server A when it shut down at 11:50: SQLiteFetchedJob.Dispose
    # requeued it (FetchedAt MinValue), its state still Processing; the next fetch takes it.
    j = job(at(30, 11, 49, 0), invocation(SYNC, "Run", ["System.String"], ["munich"]))
    s.enqueue(at(30, 11, 49, 0, 1000), j, "default")
    q = s.fetch(at(30, 11, 49, 1), j)
    s.processing(at(30, 11, 49, 1, 3000), j, SERVER_A, "w-4")
    db.execute('update "JobQueue" set "FetchedAt" = ? where "Id" = ?', (0, q))

    # Stats counters (StatisticsHistoryAttribute) already aggregated, a recurring job, a lock.
    s.insert("AggregatedCounter", {"Key": "stats:succeeded", "Value": 2, "ExpireAt": 0})
    s.insert("AggregatedCounter", {"Key": "stats:succeeded:2026-11-30", "Value": 1,
                                   "ExpireAt": ticks(dt.datetime(2026, 12, 30, 10, 0, 1))})
    s.insert("Hash", {"Key": "recurring-job:nightly-sync", "Field": "Cron", "Value": "0 3 * * *", "ExpireAt": 0})
    s.insert("Hash", {"Key": "recurring-job:nightly-sync", "Field": "Queue", "Value": "default", "ExpireAt": 0})
    s.add_to_set("recurring-jobs", "nightly-sync", float(int((dt.datetime(2026, 12, 1, 3) - dt.datetime(1970, 1, 1)).total_seconds())))
    s.insert("DistributedLock", {"Id": "6f0c6c5e-2b1d-4a0e-9d3c-5e2f1a0b9c8d", "Resource": "HangFire:locks:schedulepoller",
                                 "ResourceKey": "b3f5c7d9-1a2b-4c3d-8e9f-0a1b2c3d4e5f",
                                 "ExpireAt": ticks(at(30, 12, 0, 25))})
    db.execute("COMMIT")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    n = db.execute('select count(*) from "Job"').fetchone()[0]
    db.close()
    print("wrote %s: %d jobs, %d bytes" % (out, n, os.path.getsize(out)))


if __name__ == "__main__":
    main()
