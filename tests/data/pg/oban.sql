-- Oban on PostgreSQL: oban_jobs as Oban.Migrations.Postgres V01..V13 leave it,
-- from oban-bg/oban lib/oban/migrations/postgres/:
--   v01.ex@89ae114b5c553e177370b77e6c9b251d695559bb (enum, table, indexes)
--   v03.ex@89ae114b5c553e177370b77e6c9b251d695559bb (attempted_by)
--   v08.ex@4715ea5fae21707cc391f9127ae86fcf90d2279f (discarded_at, priority, tags, fetch index)
--   v09.ex@1ed12aeeacefeb4e18ef4c9ca0f3119e368e203f (meta, cancelled_at, 'cancelled')
--   v12.ex@cc7ab25e6b05a0fe56e666d4eb42b8f372008039 (non_negative_priority, no trigger)
--   v13.ex@5e688535fb558597be2590a14e1f53e0a93bdaa5 (state/cancelled_at, state/discarded_at)
-- (Ecto's :map is jsonb, {:array, :map} jsonb[], :utc_datetime_usec a
-- timestamp without time zone in UTC.) The other migrations' constraints and
-- the notify trigger they create and drop again are left out. Unqualified: the
-- test sets search_path to the schema it fills.
CREATE TYPE oban_job_state AS ENUM (
  'available', 'scheduled', 'executing', 'retryable', 'completed', 'discarded', 'cancelled');
CREATE TABLE oban_jobs (
  id bigserial PRIMARY KEY,
  state oban_job_state NOT NULL DEFAULT 'available',
  queue text NOT NULL DEFAULT 'default',
  worker text NOT NULL,
  args jsonb NOT NULL,
  errors jsonb[] NOT NULL DEFAULT ARRAY[]::jsonb[],
  attempt integer NOT NULL DEFAULT 0,
  max_attempts integer NOT NULL DEFAULT 20,
  inserted_at timestamp without time zone NOT NULL DEFAULT timezone('UTC', now()),
  scheduled_at timestamp without time zone NOT NULL DEFAULT timezone('UTC', now()),
  attempted_at timestamp without time zone,
  completed_at timestamp without time zone,
  attempted_by text[],
  discarded_at timestamp without time zone,
  priority integer DEFAULT 0,
  tags text[] DEFAULT ARRAY[]::text[],
  meta jsonb DEFAULT '{}'::jsonb,
  cancelled_at timestamp without time zone,
  CONSTRAINT non_negative_priority CHECK (priority >= 0) NOT VALID);
CREATE INDEX oban_jobs_queue_index ON oban_jobs (queue);
CREATE INDEX oban_jobs_state_index ON oban_jobs (state);
CREATE INDEX oban_jobs_scheduled_at_index ON oban_jobs (scheduled_at);
CREATE INDEX oban_jobs_state_queue_priority_scheduled_at_id_index
  ON oban_jobs (state, queue, priority, scheduled_at, id);
CREATE INDEX oban_jobs_state_cancelled_at_index ON oban_jobs (state, cancelled_at);
CREATE INDEX oban_jobs_state_discarded_at_index ON oban_jobs (state, discarded_at);
