-- pg-boss 12.27.0 schedules and their fires, for tests/core/tst_pgrecurring.cpp,
-- on top of pg-boss-npm.sql (schema version 37). Written as pg-boss writes
-- them (timgit/pg-boss@55ee32f66f0b): schedule() upserts `schedule`
-- (src/plans.ts:903-914, timezone 'UTC' unless tz is given); createQueue()
-- makes the timekeeper's queue (src/timekeeper.ts:72, plans.ts:658-661);
-- each fire is a `__pgboss__send-it` job with singletonKey `${name}__${key}`
-- and singleton_on its 60-second slot (timekeeper.ts:178-188,
-- plans.ts:1703-1706), forwarded by onSendIt into the schedule's queue
-- (timekeeper.ts:202-211). The test's clock: 2026-12-06T15:05:20Z.

SELECT pgboss.create_queue('__pgboss__send-it', '{"policy": "standard"}'::jsonb);

-- Hourly in UTC, fired at 13:00, 14:00 and 15:00: last run 15:00, next 16:00.
INSERT INTO pgboss.schedule (name, key, cron, timezone, data, options, created_on, updated_on)
VALUES ('reports', '', '0 * * * *', 'UTC', '{"kind": "hourly"}', '{"tz": "UTC", "priority": 3}',
        '2026-12-06 12:00:05+00', '2026-12-06 12:00:05+00');
-- Every quarter hour in UTC, keyed; fired last at 14:30: 14:45 and 15:00
-- are missed, next 15:15.
INSERT INTO pgboss.schedule (name, key, cron, timezone, data, options, created_on, updated_on)
VALUES ('email', 'digest', '*/15 * * * *', 'UTC', '{"digest": true}', '{"tz": "UTC", "key": "digest"}',
        '2026-12-06 14:00:00+00', '2026-12-06 14:00:00+00');
-- Weekdays 09:30 in Paris: fired on Friday 2026-12-04 at 08:30 UTC; the
-- zone is not evaluated here, so no next run.
INSERT INTO pgboss.schedule (name, key, cron, timezone, data, options, created_on, updated_on)
VALUES ('export', '', '30 9 * * 1-5', 'Europe/Paris', '{"format": "csv"}', '{"tz": "Europe/Paris"}',
        '2026-12-01 10:00:00+00', '2026-12-01 10:00:00+00');
-- Daily 09:00 at UTC+9 (an IANA name of a fixed offset), never fired yet:
-- next 2026-12-07T00:00:00Z.
INSERT INTO pgboss.schedule (name, key, cron, timezone, data, options, created_on, updated_on)
VALUES ('reports', 'tokyo', '0 9 * * *', 'Etc/GMT-9', NULL, '{"tz": "Etc/GMT-9", "key": "tokyo"}',
        '2026-12-06 15:00:00+00', '2026-12-06 15:00:00+00');

INSERT INTO pgboss.job (id, name, data, state, singleton_key, singleton_on, start_after, created_on,
                        started_on, completed_on, keep_until, policy)
VALUES
  ('c1000000-0000-4000-8000-000000000001', '__pgboss__send-it',
   '{"name": "reports", "data": {"kind": "hourly"}, "options": {"tz": "UTC", "priority": 3}}',
   'completed', 'reports__', '2026-12-06 13:00:00', '2026-12-06 13:00:12+00', '2026-12-06 13:00:12+00',
   '2026-12-06 13:00:14+00', '2026-12-06 13:00:14+00', '2026-12-20 13:00:12+00', 'standard'),
  ('c2000000-0000-4000-8000-000000000002', '__pgboss__send-it',
   '{"name": "reports", "data": {"kind": "hourly"}, "options": {"tz": "UTC", "priority": 3}}',
   'completed', 'reports__', '2026-12-06 14:00:00', '2026-12-06 14:00:41+00', '2026-12-06 14:00:41+00',
   '2026-12-06 14:00:44+00', '2026-12-06 14:00:44+00', '2026-12-20 14:00:41+00', 'standard'),
  ('c3000000-0000-4000-8000-000000000003', '__pgboss__send-it',
   '{"name": "reports", "data": {"kind": "hourly"}, "options": {"tz": "UTC", "priority": 3}}',
   'completed', 'reports__', '2026-12-06 15:00:00', '2026-12-06 15:00:09+00', '2026-12-06 15:00:09+00',
   '2026-12-06 15:00:11+00', '2026-12-06 15:00:11+00', '2026-12-20 15:00:09+00', 'standard'),
  ('c4000000-0000-4000-8000-000000000004', '__pgboss__send-it',
   '{"name": "email", "data": {"digest": true}, "options": {"tz": "UTC", "key": "digest"}}',
   'completed', 'email__digest', '2026-12-06 14:30:00', '2026-12-06 14:30:27+00', '2026-12-06 14:30:27+00',
   '2026-12-06 14:30:29+00', '2026-12-06 14:30:29+00', '2026-12-20 14:30:27+00', 'standard'),
  ('c5000000-0000-4000-8000-000000000005', '__pgboss__send-it',
   '{"name": "export", "data": {"format": "csv"}, "options": {"tz": "Europe/Paris"}}',
   'completed', 'export__', '2026-12-04 08:30:00', '2026-12-04 08:30:02+00', '2026-12-04 08:30:02+00',
   '2026-12-04 08:30:05+00', '2026-12-04 08:30:05+00', '2026-12-18 08:30:02+00', 'standard');

-- The job onSendIt forwarded for the 15:00 fire, as the app's own sends look.
INSERT INTO pgboss.job (id, name, data, priority, state, start_after, created_on, keep_until, policy)
VALUES ('c6000000-0000-4000-8000-000000000006', 'reports', '{"kind": "hourly"}', 3, 'created',
        '2026-12-06 15:00:11+00', '2026-12-06 15:00:11+00', '2026-12-20 15:00:11+00', 'standard');

-- The timekeeper's last tick (plans.ts:764-766, trySetCronTime).
UPDATE pgboss.version SET cron_on = '2026-12-06 15:05:09+00';
