-- River on PostgreSQL: river_job, river_queue and river_leader as the
-- riverpgxv5 migrations (riverqueue/river riverdriver/riverpgxv5/migration/main/)
-- leave them:
--   002_initial_schema.up.sql@62ce779744c2d2434cc41eb02a6f19db419dc79e
--     (river_job_state, river_job, its indexes, river_leader)
--   004_pending_and_more.up.sql@7afc913bc1892894fb63f1642cbbc0e0dc020b6b
--     ('pending', args/metadata NOT NULL, the finalized_at check, river_queue;
--     the notify trigger dropped)
--   005_migration_unique_client.up.sql@cc5f0e0c3b4019cb5265a307bafbb05b2b084827
--     (unique_key and its index)
-- The SQLite fixture river-v7.sqlite3 is riversqlite at
-- riverqueue/river@fdf6cdf12567. Later columns (unique_states) are left out.
-- Unqualified: the test sets search_path to the schema it fills.
CREATE TYPE river_job_state AS ENUM (
  'available', 'cancelled', 'completed', 'discarded', 'retryable', 'running', 'scheduled');
ALTER TYPE river_job_state ADD VALUE IF NOT EXISTS 'pending' AFTER 'discarded';
CREATE TABLE river_job (
  id bigserial PRIMARY KEY,
  state river_job_state NOT NULL DEFAULT 'available',
  attempt smallint NOT NULL DEFAULT 0,
  max_attempts smallint NOT NULL,
  attempted_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT NOW(),
  finalized_at timestamptz,
  scheduled_at timestamptz NOT NULL DEFAULT NOW(),
  priority smallint NOT NULL DEFAULT 1,
  args jsonb NOT NULL,
  attempted_by text[],
  errors jsonb[],
  kind text NOT NULL,
  metadata jsonb NOT NULL DEFAULT '{}',
  queue text NOT NULL DEFAULT 'default',
  tags varchar(255)[],
  unique_key bytea,
  CONSTRAINT finalized_or_finalized_at_null CHECK (
    (finalized_at IS NULL AND state NOT IN ('cancelled', 'completed', 'discarded')) OR
    (finalized_at IS NOT NULL AND state IN ('cancelled', 'completed', 'discarded'))),
  CONSTRAINT max_attempts_is_positive CHECK (max_attempts > 0),
  CONSTRAINT priority_in_range CHECK (priority >= 1 AND priority <= 4),
  CONSTRAINT queue_length CHECK (char_length(queue) > 0 AND char_length(queue) < 128),
  CONSTRAINT kind_length CHECK (char_length(kind) > 0 AND char_length(kind) < 128));
CREATE INDEX river_job_kind ON river_job USING btree(kind);
CREATE INDEX river_job_state_and_finalized_at_index ON river_job USING btree(state, finalized_at)
  WHERE finalized_at IS NOT NULL;
CREATE INDEX river_job_prioritized_fetching_index ON river_job
  USING btree(state, queue, priority, scheduled_at, id);
CREATE INDEX river_job_args_index ON river_job USING GIN(args);
CREATE INDEX river_job_metadata_index ON river_job USING GIN(metadata);
CREATE UNIQUE INDEX river_job_kind_unique_key_idx ON river_job (kind, unique_key)
  WHERE unique_key IS NOT NULL;
CREATE UNLOGGED TABLE river_leader (
  elected_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  leader_id text NOT NULL,
  name text PRIMARY KEY DEFAULT 'default',
  CONSTRAINT name_length CHECK (name = 'default'),
  CONSTRAINT leader_id_length CHECK (char_length(leader_id) > 0 AND char_length(leader_id) < 128));
CREATE TABLE river_queue (
  name text PRIMARY KEY NOT NULL,
  created_at timestamptz NOT NULL DEFAULT NOW(),
  metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
  paused_at timestamptz,
  updated_at timestamptz NOT NULL);
