-- Graphile Worker jobs in each state at 2026-12-01T12:00:00Z (the instant
-- tst_pgengine's graphileWorker() reads them at), for graphile-worker.sql:
--   1 READY       send_email, run_at 10 min ago
--   2 SCHEDULED   send_email, run_at in 1 hour
--   3 LOCKED      resize_image, locked 1 min ago by worker-1 (wait 1 min)
--   4 LOCKED      resize_image, locked 5 hours ago: the lock lapsed (stuck)
--   5 FAILED      send_email, 25 of 25 attempts, "Error: SMTP 550 ..."
--   6 READY       resize_image in queue serial, key img-42
INSERT INTO graphile_worker._private_tasks (identifier) VALUES ('send_email'), ('resize_image');
INSERT INTO graphile_worker._private_job_queues (queue_name) VALUES ('serial');
INSERT INTO graphile_worker._private_jobs
  (job_queue_id, task_id, payload, run_at, attempts, max_attempts, last_error, created_at, key,
   locked_at, locked_by)
VALUES
  (NULL, 1, '{"to": "a@example.com"}', '2026-12-01T11:50:00Z', 0, 25, NULL,
   '2026-12-01T11:50:00Z', NULL, NULL, NULL),
  (NULL, 1, '{}', '2026-12-01T13:00:00Z', 0, 25, NULL, '2026-12-01T11:59:00Z', NULL, NULL, NULL),
  (NULL, 2, '{"id": 7}', '2026-12-01T11:58:00Z', 1, 25, NULL, '2026-12-01T11:57:00Z', NULL,
   '2026-12-01T11:59:00Z', 'worker-1'),
  (NULL, 2, '{"id": 8}', '2026-12-01T07:00:00Z', 1, 25, NULL, '2026-12-01T07:00:00Z', NULL,
   '2026-12-01T07:00:00Z', 'worker-0'),
  (NULL, 1, '{}', '2026-12-01T11:00:00Z', 25, 25, 'Error: SMTP 550 mailbox unavailable',
   '2026-12-01T10:00:00Z', NULL, NULL, NULL),
  (1, 2, '{"id": 42}', '2026-12-01T11:59:00Z', 0, 25, NULL, '2026-12-01T11:59:00Z', 'img-42',
   NULL, NULL);
