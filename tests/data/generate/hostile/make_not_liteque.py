#!/usr/bin/env python3
"""Write tests/data/formats/not-liteque-tasks.sqlite3: a to-do app database whose
`tasks` table is NOT liteque's.

Hostile input for recognition (docs/FORMATS.md section 9, rule 8): the table is named
`tasks` and even shares some column names with liteque's `tasks` (`status`,
`createdAt`, `priority`) and holds the string 'pending', but it has none of
`allocationId`, `numRunsLeft`, `maxNumRuns`, and there is no
`__drizzle_migrations` table. No queue format may claim this file.
Written with plain SQL (no library involved); rollback-journal mode.

Usage: python3 make_not_liteque.py OUT.sqlite3
"""
import os
import sqlite3
import sys

out = sys.argv[1]
for s in ("", "-wal", "-shm", "-journal"):
    if os.path.exists(out + s):
        os.remove(out + s)
db = sqlite3.connect(out)
db.executescript("""
CREATE TABLE lists (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE tasks (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  list_id INTEGER NOT NULL REFERENCES lists(id),
  title TEXT NOT NULL,
  done INTEGER NOT NULL DEFAULT 0,
  status TEXT NOT NULL DEFAULT 'pending',
  priority INTEGER NOT NULL DEFAULT 0,
  createdAt INTEGER NOT NULL
);
CREATE INDEX tasks_status_idx ON tasks(status);
INSERT INTO lists (id, name) VALUES (1, 'Home'), (2, 'Work');
INSERT INTO tasks (list_id, title, done, status, priority, createdAt) VALUES
  (1, 'Buy milk', 0, 'pending', 0, 1796020000),
  (1, 'Water the plants', 1, 'done', 0, 1796020100),
  (2, 'Review pull request', 0, 'running', 1, 1796020200),
  (2, 'Write release notes', 0, 'pending', 2, 1796020300),
  (2, 'Fix flaky test', 0, 'failed', 1, 1796020400);
""")
db.commit()
db.close()
