-- pg-boss jobs in each state at 2026-12-01T12:00:00Z (the instant
-- tst_pgengine's pgBoss() reads them at), for pg-boss.sql (state in
-- parentheses; the queue is the job's name):
--   b1… READY      (created)   email, start_after 10 min ago
--   b2… SCHEDULED  (created)   email, start_after in 1 hour
--   b3… LOCKED     (active)    email, started 1 min ago, expires in 14 min
--   b4… LOCKED     (active)    email, started 1 hour ago, expired 45 min
--                              ago: stuck (maintenance fails it as timed out)
--   b5… DONE       (completed) email, ran 5 s
--   b6… FAILED     (failed)    email, 2 of 2 retries, Error "SMTP 550"
--   b7… SCHEDULED  (retry)     email, retry 1 at 12:10 after a string error
--   b8… cancelled  (cancelled) reports, singleton_key nightly
--   b9… READY      (created)   reports, singleton_key report-2026-11
INSERT INTO pgboss.job
  (id, name, data, state, retry_limit, retry_count, start_after, created_on, started_on,
   completed_on, expire_seconds, output, singleton_key)
VALUES
  ('b1000000-0000-4000-8000-000000000001', 'email', '{"to": "a@example.com"}', 'created', 2, 0,
   '2026-12-01T11:50:00Z', '2026-12-01T11:50:00Z', NULL, NULL, 900, NULL, NULL),
  ('b2000000-0000-4000-8000-000000000002', 'email', '{}', 'created', 2, 0,
   '2026-12-01T13:00:00Z', '2026-12-01T11:59:00Z', NULL, NULL, 900, NULL, NULL),
  ('b3000000-0000-4000-8000-000000000003', 'email', '{"to": "b@example.com"}', 'active', 2, 0,
   '2026-12-01T11:58:00Z', '2026-12-01T11:58:00Z', '2026-12-01T11:59:00Z', NULL, 900, NULL, NULL),
  ('b4000000-0000-4000-8000-000000000004', 'email', '{"to": "c@example.com"}', 'active', 2, 0,
   '2026-12-01T10:59:00Z', '2026-12-01T10:59:00Z', '2026-12-01T11:00:00Z', NULL, 900, NULL, NULL),
  ('b5000000-0000-4000-8000-000000000005', 'email', '{"to": "d@example.com"}', 'completed', 2, 0,
   '2026-12-01T11:00:00Z', '2026-12-01T11:00:00Z', '2026-12-01T11:00:00Z',
   '2026-12-01T11:00:05Z', 900, '{"sent": true}', NULL),
  ('b6000000-0000-4000-8000-000000000006', 'email', '{"to": "e@example.com"}', 'failed', 2, 2,
   '2026-12-01T11:29:00Z', '2026-12-01T11:00:00Z', '2026-12-01T11:29:30Z',
   '2026-12-01T11:30:00Z', 900, '{"message": "SMTP 550", "stack": "Error: SMTP 550\n    at send"}',
   NULL),
  ('b7000000-0000-4000-8000-000000000007', 'email', '{"to": "f@example.com"}', 'retry', 2, 1,
   '2026-12-01T12:10:00Z', '2026-12-01T11:40:00Z', '2026-12-01T11:41:00Z', NULL, 900,
   '{"value": "connection reset"}', NULL),
  ('b8000000-0000-4000-8000-000000000008', 'reports', '{}', 'cancelled', 2, 0,
   '2026-12-01T11:00:00Z', '2026-12-01T11:00:00Z', NULL, '2026-12-01T11:40:00Z', 900, NULL,
   'nightly'),
  ('b9000000-0000-4000-8000-000000000009', 'reports', '{"month": "2026-11"}', 'created', 2, 0,
   '2026-12-01T11:55:00Z', '2026-12-01T11:55:00Z', NULL, NULL, 900, NULL, 'report-2026-11');
