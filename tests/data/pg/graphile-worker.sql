-- Graphile Worker on PostgreSQL: its `graphile_worker` schema's job tables as
--   graphile/worker sql/000011.sql@05c3695cc27910203c5b81d0b99105752ea94f0e
--     (job_queues, tasks, jobs)
--   graphile/worker sql/000016.sql@55603eb0d71c3c8e560736c3137d0cf5b351b5a9
--     (renamed _private_job_queues, _private_tasks, _private_jobs)
-- leave them: the tables recognition reads. Functions, triggers, row level
-- security and the later migrations are left out; issue 41's later slice
-- creates the schema with graphile-worker's npm package.
CREATE SCHEMA graphile_worker;
CREATE TABLE graphile_worker._private_job_queues (
  id int PRIMARY KEY GENERATED ALWAYS AS IDENTITY,
  queue_name text NOT NULL UNIQUE CHECK (length(queue_name) <= 128),
  locked_at timestamptz, locked_by text,
  is_available boolean GENERATED ALWAYS AS ((locked_at IS NULL)) STORED NOT NULL);
CREATE TABLE graphile_worker._private_tasks (
  id int PRIMARY KEY GENERATED ALWAYS AS IDENTITY,
  identifier text NOT NULL UNIQUE CHECK (length(identifier) <= 128));
CREATE TABLE graphile_worker._private_jobs (
  id bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY,
  job_queue_id int NULL, task_id int NOT NULL,
  payload json DEFAULT '{}'::json NOT NULL, priority smallint DEFAULT 0 NOT NULL,
  run_at timestamptz DEFAULT now() NOT NULL, attempts smallint DEFAULT 0 NOT NULL,
  max_attempts smallint DEFAULT 25 NOT NULL CONSTRAINT jobs_max_attempts_check CHECK (max_attempts >= 1),
  last_error text, created_at timestamptz DEFAULT now() NOT NULL,
  updated_at timestamptz DEFAULT now() NOT NULL,
  key text UNIQUE CONSTRAINT jobs_key_check CHECK (length(key) > 0 AND length(key) <= 512),
  locked_at timestamptz, locked_by text, revision integer DEFAULT 0 NOT NULL, flags jsonb,
  is_available boolean GENERATED ALWAYS AS (((locked_at IS NULL) AND (attempts < max_attempts))) STORED NOT NULL);
CREATE INDEX jobs_main_index ON graphile_worker._private_jobs USING btree (priority, run_at)
  INCLUDE (id, task_id, job_queue_id) WHERE (is_available = true);
CREATE INDEX jobs_no_queue_index ON graphile_worker._private_jobs USING btree (priority, run_at)
  INCLUDE (id, task_id) WHERE (is_available = true AND job_queue_id IS NULL);
