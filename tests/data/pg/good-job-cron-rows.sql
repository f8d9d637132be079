-- GoodJob cron runs for good-job.sql in schema gj, read at 2026-12-01T12:00:00Z
-- by tst_pgrecurring goodJobCron. GoodJob's CronManager enqueues each run with
-- the entry's cron_key and the scheduled cron_at (bensheldon/good_job@81db22b7
-- lib/good_job/cron_manager.rb, app/models/good_job/job.rb); an entry turned
-- off in the dashboard is listed in the cron_keys_disabled setting
-- (app/models/good_job/setting.rb):
--   cleanup        two runs, the newest cron_at 11:00, CleanupJob in "low",
--                  priority 5
--   hourly_report  one run, cron_at 11:00; disabled
--   legacy         one run enqueued without cron_at (an older GoodJob):
--                  its created_at, 08:15, is its last run
INSERT INTO gj.good_jobs
  (id, active_job_id, queue_name, priority, job_class, serialized_params, scheduled_at,
   performed_at, finished_at, error, executions_count, created_at, updated_at, cron_key,
   cron_at)
VALUES
  ('c1000000-0000-4000-8000-000000000001', 'c1000000-0000-4000-8000-000000000001', 'low', 5,
   'CleanupJob', '{"job_class": "CleanupJob", "arguments": []}', '2026-12-01 10:00:00',
   '2026-12-01 10:00:01', '2026-12-01 10:00:02', NULL, 1, '2026-12-01 10:00:00',
   '2026-12-01 10:00:02', 'cleanup', '2026-12-01 10:00:00'),
  ('c2000000-0000-4000-8000-000000000002', 'c2000000-0000-4000-8000-000000000002', 'low', 5,
   'CleanupJob', '{"job_class": "CleanupJob", "arguments": []}', '2026-12-01 11:00:00',
   '2026-12-01 11:00:01', '2026-12-01 11:00:02', NULL, 1, '2026-12-01 11:00:00',
   '2026-12-01 11:00:02', 'cleanup', '2026-12-01 11:00:00'),
  ('c3000000-0000-4000-8000-000000000003', 'c3000000-0000-4000-8000-000000000003', 'default', 0,
   'ReportJob', '{"job_class": "ReportJob", "arguments": ["hourly"]}', '2026-12-01 11:00:00',
   '2026-12-01 11:00:01', '2026-12-01 11:00:09', NULL, 1, '2026-12-01 11:00:00',
   '2026-12-01 11:00:09', 'hourly_report', '2026-12-01 11:00:00'),
  ('c4000000-0000-4000-8000-000000000004', 'c4000000-0000-4000-8000-000000000004', 'default', 0,
   NULL, '{"job_class": "LegacyJob", "arguments": []}', '2026-12-01 08:15:00',
   '2026-12-01 08:15:01', '2026-12-01 08:15:02', NULL, 1, '2026-12-01 08:15:00',
   '2026-12-01 08:15:02', 'legacy', NULL);
INSERT INTO gj.good_job_settings (created_at, updated_at, key, value)
VALUES ('2026-12-01 09:00:00', '2026-12-01 09:00:00', 'cron_keys_disabled', '["hourly_report"]');
