#!/usr/bin/env python3
"""Write tests/data/formats/django-tasks-db.sqlite3: Django's Tasks framework
with the database backend (django-tasks-db), as Django writes it on SQLite.

Django (>= 5.2) and django-tasks-db do not install on Debian 12 (python3-django
is 3.2, and nothing else reaches PyPI here), so this script reproduces the file
from the upstream source, read at

    RealOrangeOne/django-tasks-db@c7230a36520ac82eda6b37e70089b134f4178adf
        (version 0.12.0 + fixes, 2026-06-12): django_tasks_db/models.py,
        migrations/0001..0020, management/commands/db_worker.py and
        prune_db_task_results.py, utils.py (exclusive_transaction),
        signal_handlers.py (run_after's "no value" date)
    RealOrangeOne/django-tasks@e8520fe85de92814af71a3ba40ac402c72804a02
        django_tasks/base.py (TaskResultStatus READY / RUNNING / FAILED /
        SUCCESSFUL, priorities -100..100, default queue "default"),
        django_tasks/utils.py (get_module_path, get_exception_traceback,
        get_random_id, normalize_json)

and from how Django's SQLite backend renders them (django/db/backends/sqlite3/
schema.py _remake_table, add_field, remove_field and operations.py
adapt_datetimefield_value, read at felixxm/django@8ae171b2b3a7 and in a
Django 5.x copy for remove_field's ALTER TABLE DROP COLUMN; base.py
data_types and data_type_check_constraints). Django itself was not run: the
column order follows from reading _remake_table. No upstream code is copied:
the statements below are written out as Django's schema editor and ORM emit
them.

* Schema: the 20 migrations replayed statement by statement, as `manage.py
  migrate` runs them on SQLite >= 3.35.5 with Django 5.2/6.0: CREATE TABLE;
  ADD COLUMN for a nullable field without a default; otherwise the table is
  remade (CREATE TABLE "new__..."; INSERT ... SELECT; DROP TABLE; ALTER TABLE
  ... RENAME TO; its indexes again); RemoveField is ALTER TABLE DROP COLUMN.
  A remade table takes its fields in the migration state's order with the
  altered or added field last, so the last remake (0018, status varchar(9) ->
  varchar(10)) leaves `status` as the last column. Types: UUIDField char(32)
  (uuid.hex, no dashes), CharField varchar(n), DateTimeField datetime,
  JSONField text CHECK ((JSON_VALID(col) OR col IS NULL)), IntegerField
  integer; no DEFAULT clauses (Django keeps defaults in Python).
  `django_migrations` is Django's own migration recorder table.
* Rows: DBTaskResult.objects.create() (DatabaseBackend.enqueue) writes every
  field; the pre_save signal turns run_after None into 9999-01-01 00:00:00
  (get_date_max(): "no run_after"). The worker (db_worker) claims in
  BEGIN EXCLUSIVE (SQLite ignores select_for_update): the first ready row
  (status READY and run_after = date max or <= now) of its backend and
  queues, ORDER BY priority DESC, run_after, enqueued_at; then claim() sets
  status RUNNING, started_at and appends its id to worker_ids; the task ends
  with set_successful() (SUCCESSFUL, finished_at, return_value, the exception
  columns '') or set_failed() (FAILED, finished_at, exception_class_path =
  module.qualname of the exception's class, traceback = format_exception()).
  There is no heartbeat and no retry: a task whose worker died stays RUNNING.
* Times: USE_TZ = True, so UTC, stored as str(naive datetime):
  'YYYY-MM-DD HH:MM:SS.ffffff', the fraction left out when it is 0. A fixed
  fake clock: the facts hold at NOW. Ids (uuid4) and worker ids
  (get_random_string(32)) come from a seeded generator: a rerun gives the
  same bytes with the same Python (the tracebacks are Python 3.11's).
* The tracebacks are real ones of this script's fake app module
  `shop.tasks` (compiled under the file name /srv/shop/shop/tasks.py); the
  worker's own frames (db_worker.run_task, Task.call) are not in them.

Usage: python3 make_django_tasks_db.py OUT.sqlite3
"""
import datetime as dt
import hashlib
import json
import linecache
import os
import sqlite3
import sys
import traceback
import uuid

T = '"django_tasks_database_dbtaskresult"'
NEW = '"new__django_tasks_database_dbtaskresult"'
NOW = dt.datetime(2026, 11, 30, 12, 0, 0)  # UTC, naive as Django stores it
DATE_MAX = "9999-01-01 00:00:00"  # get_date_max(), as the SQLite backend stores it


def ts(d):
    """adapt_datetimefield_value(): str() of the naive UTC datetime."""
    return str(d)


def at(day, h, m, s, us=0):
    return dt.datetime(2026, 11, day, h, m, s, us)


# ---------------------------------------------------------------- schema


def json_col(name, null):
    return '"%s" text %s CHECK ((JSON_VALID("%s") OR "%s" IS NULL))' % (
        name, "NULL" if null else "NOT NULL", name, name)


class Schema:
    """The DBTaskResult model state and its table, migration by migration."""

    def __init__(self, db):
        self.db = db
        self.state = []  # [(field, column sql)] in the migration state's order
        self.constraints = []
        self.indexes = []  # [(name, CREATE INDEX sql)]

    def run(self, sql):
        self.db.execute(sql)

    def ddl(self, name):
        return dict(self.state)[name]

    def create(self, fields):
        self.state = list(fields)
        self.run("CREATE TABLE %s (%s)" % (T, ", ".join(c for _, c in self.state)))

    def remake(self, alter=None, add=None, drop=None, default="NULL"):
        """sqlite3 DatabaseSchemaEditor._remake_table: the new table has the
        state's fields with the altered or added one last."""
        order = [n for n, _ in self.state]
        copy = {n: '"%s"' % n for n in order}
        if alter:
            name, sql = alter
            order.remove(name)
            order.append(name)
            if default != "NULL":  # null -> NOT NULL: coalesce with the default
                copy[name] = 'coalesce("%s", %s)' % (name, default)
        if add:
            name, sql = add
            order.append(name)
            copy[name] = default
        if drop:
            order.remove(drop)
            del copy[drop]
        cols = dict(self.state)
        if alter:
            cols[alter[0]] = alter[1]
        if add:
            cols[add[0]] = add[1]
        self.run("CREATE TABLE %s (%s)" % (NEW, ", ".join([cols[n] for n in order] + self.constraints)))
        self.run("INSERT INTO %s (%s) SELECT %s FROM %s" % (
            NEW, ", ".join('"%s"' % n for n in copy), ", ".join(copy.values()), T))
        self.run("DROP TABLE %s" % T)
        self.run("ALTER TABLE %s RENAME TO %s" % (NEW, T))
        for _, sql in self.indexes:
            self.run(sql)
        # The state: an altered field keeps its place, an added one is last.
        if alter:
            self.state = [(n, alter[1] if n == alter[0] else c) for n, c in self.state]
        if add:
            self.state.append(add)
        if drop:
            self.state = [(n, c) for n, c in self.state if n != drop]

    def add_nullable(self, name, sql):
        """BaseDatabaseSchemaEditor.add_field: ALTER TABLE ADD COLUMN."""
        self.run("ALTER TABLE %s ADD COLUMN %s" % (T, sql))
        self.state.append((name, sql))

    def drop_column(self, name):
        """remove_field on SQLite >= 3.35.5: ALTER TABLE DROP COLUMN."""
        self.run('ALTER TABLE %s DROP COLUMN "%s"' % (T, name))
        self.state = [(n, c) for n, c in self.state if n != name]

    def add_index(self, name, columns, where=None):
        sql = 'CREATE INDEX "%s" ON %s (%s)%s' % (name, T, columns, " WHERE %s" % where if where else "")
        self.run(sql)
        self.indexes.append((name, sql))

    def drop_index(self, name):
        self.run('DROP INDEX "%s"' % name)
        self.indexes = [(n, s) for n, s in self.indexes if n != name]


def migrate(db, clock):
    """`manage.py migrate django_tasks_database` on an empty database."""
    db.execute('CREATE TABLE "django_migrations" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, '
               '"app" varchar(255) NOT NULL, "name" varchar(255) NOT NULL, "applied" datetime NOT NULL)')
    s = Schema(db)

    def applied(name):
        db.execute('INSERT INTO "django_migrations" ("app", "name", "applied") VALUES (?, ?, ?)',
                   ("django_tasks_database", name, ts(next(clock))))

    # 0001_initial
    s.create([
        ("id", '"id" char(32) NOT NULL PRIMARY KEY'),
        ("status", '"status" varchar(8) NOT NULL'),
        ("args_kwargs", json_col("args_kwargs", False)),
        ("priority", '"priority" smallint unsigned NOT NULL CHECK ("priority" >= 0)'),
        ("task_path", '"task_path" text NOT NULL'),
        ("queue_name", '"queue_name" text NOT NULL'),
        ("backend_name", '"backend_name" text NOT NULL'),
        ("run_after", '"run_after" datetime NULL'),
        ("result", json_col("result", True)),
    ])
    applied("0001_initial")
    applied("0002_alter_dbtaskresult_options")  # ordering, verbose names: no SQL
    # 0003: enqueued_at NOT NULL (a one-off default): remade; finished_at: ADD COLUMN
    s.remake(add=("enqueued_at", '"enqueued_at" datetime NOT NULL'), default="'%s'" % ts(next(clock)))
    s.add_nullable("finished_at", '"finished_at" datetime NULL')
    applied("0003_dbtaskresult_enqueued_at_dbtaskresult_finished_at")
    s.add_nullable("started_at", '"started_at" datetime NULL')
    applied("0004_dbtaskresult_started_at")
    # 0005: priority PositiveSmallIntegerField -> IntegerField, then the CHECK constraint
    s.remake(alter=("priority", '"priority" integer NOT NULL'))
    s.constraints.append('CONSTRAINT "priority_range" CHECK ("priority" BETWEEN -100 AND 100)')
    s.remake()
    applied("0005_alter_dbtaskresult_priority_and_more")
    applied("0006_alter_dbtaskresult_args_kwargs_and_more")  # verbose names only: no SQL
    s.add_nullable("exception_data", json_col("exception_data", True))
    s.add_nullable("return_value", json_col("return_value", True))
    applied("0007_add_separate_results_fields")
    applied("0008_separate_results_field")  # RunPython on no rows
    s.drop_column("result")
    applied("0009_remove_results_field")
    s.remake(alter=("status", '"status" varchar(9) NOT NULL'))
    applied("0010_alter_dbtaskresult_status")
    applied("0011_rename_complete_status")  # RunPython
    s.remake(add=("exception_class_path", '"exception_class_path" text NOT NULL'), default="''")
    s.remake(add=("traceback", '"traceback" text NOT NULL'), default="''")
    applied("0012_add_separate_exception_fields")
    applied("0013_separate_exception_fields")  # RunPython
    s.drop_column("exception_data")
    applied("0014_remove_dbtaskresult_exception_data")
    applied("0015_correctly_order_run_after")  # ordering only
    # 0016
    s.remake(alter=("backend_name", '"backend_name" varchar(32) NOT NULL'))
    s.remake(alter=("queue_name", '"queue_name" varchar(32) NOT NULL'))
    s.remake(alter=("run_after", '"run_after" datetime NOT NULL'), default="'%s'" % DATE_MAX)
    s.remake(alter=("status", '"status" varchar(9) NOT NULL'))  # default NEW -> READY
    s.remake(add=("worker_ids", json_col("worker_ids", False)), default="'[]'")
    s.add_index("django_task_new_ordering_idx", '"status", "priority" DESC, "run_after" ASC',
                "\"status\" = 'READY'")
    s.add_index("django_task_queue_n_99c321_idx", '"queue_name"')
    s.add_index("django_task_backend_071754_idx", '"backend_name"')
    applied("0016_remove_dbtaskresult_django_task_new_ordering_idx_and_more")
    s.remake(add=("metadata", json_col("metadata", False)), default="'{}'")
    applied("0017_dbtaskresult_metadata")
    s.remake(alter=("status", '"status" varchar(10) NOT NULL'))
    applied("0018_rename_succeeded_status")
    # 0019: RenameIndex (SQLite cannot rename an index: drop and create), RemoveField
    s.drop_index("django_task_new_ordering_idx")
    s.add_index("tasks_db_new_ordering_idx", '"status", "priority" DESC, "run_after" ASC',
                "\"status\" = 'READY'")
    s.drop_column("metadata")
    applied("0019_rename_django_task_new_ordering_idx_tasks_db_new_ordering_idx_and_more")
    s.drop_index("tasks_db_new_ordering_idx")
    s.add_index("tasks_db_new_ordering_idx",
                '"status", "priority" DESC, "run_after" ASC, "enqueued_at" ASC',
                "\"status\" = 'READY'")
    applied("0020_update_db_task_result_ordering")


# ---------------------------------------------------------------- the app's tasks

SEED = hashlib.sha256(b"django-tasks-db fixture").digest()
ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def det(label, n):
    return hashlib.sha256(SEED + label.encode()).digest()[:n]


def task_id(n):
    """uuid.uuid4() as UUIDField stores it on SQLite: .hex."""
    return uuid.UUID(bytes=det("task %d" % n, 16), version=4).hex


def worker_id(name):
    """get_random_string(32)."""
    return "".join(ALNUM[b % len(ALNUM)] for b in hashlib.sha256(SEED + name.encode()).digest())


APP_FILE = "/srv/shop/shop/tasks.py"
APP_SOURCE = '''\
import smtplib


def send_mail(to, subject):
    raise smtplib.SMTPServerDisconnected("Connection unexpectedly closed")


def send_receipt(order_id):
    send_mail("customer-%d@example.com" % order_id, "Your receipt")


REPORTS = {"weekly-sales": "sales", "daily-orders": "orders"}


def generate_report(report, **params):
    if report not in REPORTS:
        raise ValueError("unknown report: %r" % report)
'''


def app_module():
    """The fake app module `shop.tasks`, its source visible to tracebacks."""
    lines = APP_SOURCE.splitlines(True)
    linecache.cache[APP_FILE] = (len(APP_SOURCE), None, lines, APP_FILE)
    ns = {"__name__": "shop.tasks"}
    exec(compile(APP_SOURCE, APP_FILE, "exec"), ns)
    return ns


def failure(fn, **kwargs):
    """set_failed(): get_module_path(type(exc)), get_exception_traceback(exc)."""
    try:
        fn(**kwargs)
    except Exception as exc:  # noqa: BLE001 - the worker catches BaseException
        exc.__traceback__ = exc.__traceback__.tb_next  # from the task's own frame on
        cls = type(exc)
        return "%s.%s" % (cls.__module__, cls.__qualname__), "".join(traceback.format_exception(exc))
    raise AssertionError("the task did not fail")


COLUMNS = ("id", "status", "enqueued_at", "started_at", "finished_at", "args_kwargs", "priority", "task_path",
           "worker_ids", "queue_name", "backend_name", "run_after", "return_value", "exception_class_path",
           "traceback")


class App:
    def __init__(self, db):
        self.db = db
        self.n = 0

    def enqueue(self, when, task_path, queue, kwargs=None, args=(), priority=0, run_after=None):
        """DatabaseBackend.enqueue -> DBTaskResult.objects.create(): one INSERT of every
        concrete field in the model's order."""
        self.n += 1
        tid = task_id(self.n)
        values = (tid, "READY", ts(when), None, None,
                  json.dumps({"args": list(args), "kwargs": kwargs or {}}), priority, task_path,
                  json.dumps([]), queue, "default", ts(run_after) if run_after else DATE_MAX, None, "", "")
        self.db.execute("INSERT INTO %s (%s) VALUES (%s)" % (
            T, ", ".join('"%s"' % c for c in COLUMNS), ", ".join("?" * len(COLUMNS))), values)
        return tid

    def claim(self, when, worker, queues, expect):
        """Worker.run: BEGIN EXCLUSIVE; ready().filter(backend, queue__in).get_locked();
        claim(worker_id); COMMIT."""
        q = ", ".join("?" * len(queues))
        self.db.execute("BEGIN EXCLUSIVE")
        row = self.db.execute(
            "SELECT %s FROM %s WHERE (%s.\"status\" = ? AND (%s.\"run_after\" = ? OR %s.\"run_after\" <= ?) "
            "AND %s.\"backend_name\" = ? AND %s.\"queue_name\" IN (%s)) ORDER BY %s.\"priority\" DESC, "
            "%s.\"run_after\" ASC, %s.\"enqueued_at\" ASC LIMIT 1"
            % (", ".join('%s."%s"' % (T, c) for c in COLUMNS), T, T, T, T, T, T, q, T, T, T),
            ("READY", DATE_MAX, ts(when), "default", *queues)).fetchone()
        assert row is not None and row[0] == expect, (when, row and row[0], expect)
        ids = json.loads(row[COLUMNS.index("worker_ids")]) + [worker]
        self.db.execute('UPDATE %s SET "status" = ?, "started_at" = ?, "worker_ids" = ? WHERE %s."id" = ?'
                        % (T, T), ("RUNNING", ts(when), json.dumps(ids), expect))
        self.db.execute("COMMIT")

    def succeed(self, when, tid, value=None):
        """set_successful(return_value): save(update_fields=...)."""
        self.db.execute('UPDATE %s SET "status" = ?, "finished_at" = ?, "return_value" = ?, '
                        '"exception_class_path" = ?, "traceback" = ? WHERE %s."id" = ?' % (T, T),
                        ("SUCCESSFUL", ts(when), None if value is None else json.dumps(value), "", "", tid))

    def fail(self, when, tid, error):
        """set_failed(exc)."""
        cls, tb = error
        self.db.execute('UPDATE %s SET "status" = ?, "finished_at" = ?, "return_value" = ?, '
                        '"exception_class_path" = ?, "traceback" = ? WHERE %s."id" = ?' % (T, T),
                        ("FAILED", ts(when), None, cls, tb, tid))


def main():
    out = sys.argv[1]
    if os.path.exists(out):
        os.remove(out)
    db = sqlite3.connect(out, isolation_level=None)  # Django runs in autocommit
    migrated = at(2, 9, 15, 0, 100000)
    clock = (migrated + dt.timedelta(milliseconds=37 * i) for i in range(1000))
    db.execute("BEGIN")
    migrate(db, clock)
    db.execute("COMMIT")

    shop = app_module()
    app = App(db)
    old = worker_id("worker on shop-1, 2026-11-10")
    dead = worker_id("reports worker, killed 2026-11-23")
    w1 = worker_id("emails,reports worker")
    w2 = worker_id("default worker")
    mails, reports, default = ["emails", "reports"], ["reports"], ["default"]
    every = ["emails", "reports", "default"]
    path = "shop.tasks."

    # 2026-11-10 and -12: finished more than 14 days before NOW (prune_db_task_results' default age)
    a = app.enqueue(at(10, 8, 0, 0, 250000), path + "send_receipt", "emails", {"order_id": 9001})
    app.claim(at(10, 8, 0, 1, 13000), old, every, a)
    app.succeed(at(10, 8, 0, 1, 402113), a)
    b = app.enqueue(at(12, 14, 20, 0, 500000), path + "send_receipt", "emails", {"order_id": 9002})
    app.claim(at(12, 14, 20, 1, 100000), old, every, b)
    app.fail(at(12, 14, 20, 31, 200000), b, failure(shop["send_receipt"], order_id=9002))
    # 2026-11-23: a reports worker claims a report, then is killed (SIGKILL): RUNNING ever since
    c = app.enqueue(at(23, 6, 0, 0), path + "generate_report", "reports", {"report": "weekly-sales", "week": 47})
    app.claim(at(23, 6, 0, 0, 900000), dead, reports, c)
    # 2026-11-30
    d = app.enqueue(at(30, 8, 0, 0), path + "sync_inventory", "default", {"warehouse": "berlin"},
                    run_after=at(30, 9, 0, 0))
    app.enqueue(at(30, 9, 0, 0, 1), path + "sync_inventory", "default", {"warehouse": "leipzig"},
                    run_after=at(30, 18, 0, 0))
    app.claim(at(30, 9, 0, 1, 500000), w2, default, d)
    app.succeed(at(30, 9, 0, 4, 250000), d, {"updated": 128})
    e = app.enqueue(at(30, 9, 30, 0, 125000), path + "send_welcome_email", "emails", {"user_id": 17})
    app.claim(at(30, 9, 30, 0, 625000), w1, mails, e)
    app.succeed(at(30, 9, 30, 1, 875000), e)
    f = app.enqueue(at(30, 10, 5, 0, 300000), path + "send_receipt", "emails", {"order_id": 9107})
    app.claim(at(30, 10, 5, 1), w1, mails, f)
    app.fail(at(30, 10, 5, 31, 4000), f, failure(shop["send_receipt"], order_id=9107))
    g = app.enqueue(at(30, 10, 45, 10, 500000), path + "generate_report", "reports", {"report": "monthly-churn"},
                    priority=5)
    app.claim(at(30, 10, 45, 11), w1, mails, g)
    app.fail(at(30, 10, 45, 12, 345000), g, failure(shop["generate_report"], report="monthly-churn"))
    h = app.enqueue(at(30, 11, 0, 0), path + "sync_inventory", "default", {"warehouse": "hamburg"}, priority=10)
    app.claim(at(30, 11, 0, 0, 750000), w2, default, h)
    app.succeed(at(30, 11, 0, 3, 500000), h, {"updated": 64})
    app.enqueue(at(30, 11, 10, 0), path + "generate_report", "reports", {"report": "weekly-sales", "week": 48},
                run_after=dt.datetime(2026, 12, 7, 6, 0, 0))
    app.enqueue(at(30, 11, 20, 0), path + "sync_inventory", "default", {"warehouse": "munich"},
                run_after=at(30, 11, 50, 0))
    i = app.enqueue(at(30, 11, 39, 59, 800000), path + "rebuild_search_index", "default", priority=-5)
    app.claim(at(30, 11, 40, 2, 200000), w2, default, i)  # still running at NOW (20 min)
    app.enqueue(at(30, 11, 45, 0, 500000), path + "sync_inventory", "default", {"warehouse": "cologne"})
    j = app.enqueue(at(30, 11, 59, 50), path + "send_welcome_email", "emails", {"user_id": 18})
    app.claim(at(30, 11, 59, 58, 500000), w1, mails, j)  # running at NOW
    app.enqueue(at(30, 11, 59, 59, 250000), path + "send_welcome_email", "emails", {"user_id": 19})
    app.enqueue(at(30, 11, 59, 59, 800000), path + "send_password_reset", "emails", {"user_id": 20}, priority=10)
    db.close()
    print("wrote %s: %d tasks, %d bytes" % (out, app.n, os.path.getsize(out)))


if __name__ == "__main__":
    main()
