-- Graphile Worker's known crontab items, for tests/core/tst_pgrecurring.cpp,
-- on top of graphile-worker-npm.sql (0.18.0). Written as its cron writes
-- them (graphile/worker@abfb4cff3074 src/cron.ts): an item first seen gets
-- a row with known_since (:225-236); each fire sets last_execution to the
-- scheduled minute and adds the job, payload `_cron: {ts, backfilled}`, in
-- the same statement (:94-115, :122-188). The crontab itself (the times)
-- stays in the app's crontab file. The test's clock: 2026-12-05T21:45:00Z.

INSERT INTO graphile_worker._private_known_crontabs (identifier, known_since, last_execution)
VALUES ('send_digest', '2026-12-01 08:00:00+00', '2026-12-05 21:00:00+00'),
       ('nightly_cleanup', '2026-12-01 08:00:00+00', '2026-12-05 03:00:00+00'),
       ('new_item', '2026-12-05 21:40:12+00', NULL);

SELECT graphile_worker.add_job('send_digest',
                               '{"_cron": {"ts": "2026-12-05T21:00:00.000Z", "backfilled": false}}',
                               run_at => '2026-12-05 21:00:00+00');
