-- GoodJob jobs in each status at 2026-12-01T12:00:00Z (the instant
-- tst_pgengine's goodJob() reads them at), for good-job.sql in schema gj
-- (GoodJob::Reportable#status in parentheses):
--   a1… READY      (queued)    WelcomeMailer, scheduled_at 10 min ago
--   a2… SCHEDULED  (scheduled) ReportJob, scheduled_at in 1 hour
--   a3… LOCKED     (running)   ResizeJob, performed 1 min ago; the test holds
--                              its advisory lock as GoodJob's worker does
--   a4… LOCKED     (running)   ResizeJob, performed 5 hours ago, no lock
--                              held: its worker is gone (stuck)
--   a5… DONE       (succeeded) WelcomeMailer, ran 2 s
--   a6… FAILED     (discarded) ReportJob, "RuntimeError: boom"
--   a7… SCHEDULED  (retried)   WelcomeMailer in queue mailers, retry at
--                              12:30 after "Net::ReadTimeout"
INSERT INTO gj.good_jobs
  (id, active_job_id, queue_name, priority, job_class, serialized_params, scheduled_at,
   performed_at, finished_at, error, executions_count, created_at, updated_at)
VALUES
  ('a1000000-0000-4000-8000-000000000001', 'a1000000-0000-4000-8000-000000000001', 'default', 0,
   'WelcomeMailer', '{"job_class": "WelcomeMailer", "arguments": [1]}',
   '2026-12-01 11:50:00', NULL, NULL, NULL, 0, '2026-12-01 11:50:00', '2026-12-01 11:50:00'),
  ('a2000000-0000-4000-8000-000000000002', 'a2000000-0000-4000-8000-000000000002', 'default', 0,
   'ReportJob', '{"job_class": "ReportJob", "arguments": []}',
   '2026-12-01 13:00:00', NULL, NULL, NULL, 0, '2026-12-01 11:59:00', '2026-12-01 11:59:00'),
  ('a3000000-0000-4000-8000-000000000003', 'a3000000-0000-4000-8000-000000000003', 'default', 0,
   'ResizeJob', '{"job_class": "ResizeJob", "arguments": [7]}',
   '2026-12-01 11:58:00', '2026-12-01 11:59:00', NULL, NULL, 1, '2026-12-01 11:57:00',
   '2026-12-01 11:59:00'),
  ('a4000000-0000-4000-8000-000000000004', 'a4000000-0000-4000-8000-000000000004', 'default', 0,
   'ResizeJob', '{"job_class": "ResizeJob", "arguments": [8]}',
   '2026-12-01 07:00:00', '2026-12-01 07:00:00', NULL, NULL, 1, '2026-12-01 07:00:00',
   '2026-12-01 07:00:00'),
  ('a5000000-0000-4000-8000-000000000005', 'a5000000-0000-4000-8000-000000000005', 'default', 0,
   'WelcomeMailer', '{"job_class": "WelcomeMailer", "arguments": [2]}',
   '2026-12-01 11:00:00', '2026-12-01 11:00:00', '2026-12-01 11:00:02', NULL, 1,
   '2026-12-01 11:00:00', '2026-12-01 11:00:02'),
  ('a6000000-0000-4000-8000-000000000006', 'a6000000-0000-4000-8000-000000000006', 'default', 0,
   'ReportJob', '{"job_class": "ReportJob", "arguments": [3]}',
   '2026-12-01 11:29:00', '2026-12-01 11:29:30', '2026-12-01 11:30:00', 'RuntimeError: boom', 5,
   '2026-12-01 11:00:00', '2026-12-01 11:30:00'),
  ('a7000000-0000-4000-8000-000000000007', 'a7000000-0000-4000-8000-000000000007', 'mailers', 0,
   'WelcomeMailer', '{"job_class": "WelcomeMailer", "arguments": [4]}',
   '2026-12-01 12:30:00', NULL, NULL, 'Net::ReadTimeout: Net::ReadTimeout', 1,
   '2026-12-01 11:40:00', '2026-12-01 11:41:00');
-- The discarded job's two executions and the succeeded job's one, as
-- GoodJob records each run (destroy_job deletes them with the job).
INSERT INTO gj.good_job_executions
  (id, active_job_id, job_class, queue_name, serialized_params, scheduled_at, finished_at, error,
   error_event, created_at, updated_at)
VALUES
  ('e1000000-0000-4000-8000-000000000001', 'a6000000-0000-4000-8000-000000000006', 'ReportJob',
   'default', '{"job_class": "ReportJob", "arguments": [3]}', '2026-12-01 11:00:00',
   '2026-12-01 11:00:30', 'RuntimeError: boom', 3, '2026-12-01 11:00:00', '2026-12-01 11:00:30'),
  ('e2000000-0000-4000-8000-000000000002', 'a6000000-0000-4000-8000-000000000006', 'ReportJob',
   'default', '{"job_class": "ReportJob", "arguments": [3]}', '2026-12-01 11:29:00',
   '2026-12-01 11:30:00', 'RuntimeError: boom', 4, '2026-12-01 11:29:30', '2026-12-01 11:30:00'),
  ('e3000000-0000-4000-8000-000000000003', 'a5000000-0000-4000-8000-000000000005',
   'WelcomeMailer', 'default', '{"job_class": "WelcomeMailer", "arguments": [2]}',
   '2026-12-01 11:00:00', '2026-12-01 11:00:02', NULL, NULL, '2026-12-01 11:00:00',
   '2026-12-01 11:00:02');
-- Two processes: web-1 runs (tst_pgengine holds its advisory lock, as the
-- process does); web-0 died on 30 November without deregistering.
INSERT INTO gj.good_job_processes (id, state, created_at, updated_at)
VALUES
  ('c1000000-0000-4000-8000-000000000001',
   '{"hostname": "web-1", "pid": 4242, "proctitle": "good_job start"}', '2026-12-01 08:00:00',
   '2026-12-01 11:59:30'),
  ('c0000000-0000-4000-8000-000000000000',
   '{"hostname": "web-0", "pid": 4141, "proctitle": "good_job start"}', '2026-11-30 08:00:00',
   '2026-11-30 09:00:00');
