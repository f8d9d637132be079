-- GoodJob on PostgreSQL: the tables of
--   bensheldon/good_job@02b954e7c043e2410679ca37a2b6c777f9c6d4a5
--   lib/generators/good_job/templates/install/migrations/create_good_jobs.rb.erb
-- as Rails' PostgreSQL adapter creates them (uuid ids by gen_random_uuid(),
-- `datetime` -> timestamp(6) without time zone, `t.timestamps` -> created_at
-- and updated_at NOT NULL). Indexes of good_jobs as the migration adds them.
-- Unqualified: the test sets search_path to the schema it fills.
CREATE TABLE good_jobs (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(), queue_name text, priority integer,
  serialized_params jsonb, scheduled_at timestamp(6) without time zone,
  performed_at timestamp(6) without time zone, finished_at timestamp(6) without time zone,
  error text, created_at timestamp(6) without time zone NOT NULL,
  updated_at timestamp(6) without time zone NOT NULL, active_job_id uuid,
  concurrency_key text, cron_key text, retried_good_job_id uuid,
  cron_at timestamp(6) without time zone, batch_id uuid, batch_callback_id uuid,
  is_discrete boolean, executions_count integer, job_class text, error_event smallint);
CREATE TABLE good_job_batches (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  created_at timestamp(6) without time zone NOT NULL,
  updated_at timestamp(6) without time zone NOT NULL, description text,
  serialized_properties jsonb, on_finish text, on_success text, on_discard text,
  callback_queue_name text, callback_priority integer,
  enqueued_at timestamp(6) without time zone, discarded_at timestamp(6) without time zone,
  finished_at timestamp(6) without time zone);
CREATE TABLE good_job_executions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  created_at timestamp(6) without time zone NOT NULL,
  updated_at timestamp(6) without time zone NOT NULL, active_job_id uuid NOT NULL,
  job_class text, queue_name text, serialized_params jsonb,
  scheduled_at timestamp(6) without time zone, finished_at timestamp(6) without time zone,
  error text, error_event smallint);
CREATE TABLE good_job_processes (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  created_at timestamp(6) without time zone NOT NULL,
  updated_at timestamp(6) without time zone NOT NULL, state jsonb);
CREATE TABLE good_job_settings (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  created_at timestamp(6) without time zone NOT NULL,
  updated_at timestamp(6) without time zone NOT NULL, key text, value jsonb);
CREATE UNIQUE INDEX index_good_job_settings_on_key ON good_job_settings (key);
CREATE INDEX index_good_jobs_on_scheduled_at ON good_jobs (scheduled_at) WHERE (finished_at IS NULL);
CREATE INDEX index_good_jobs_on_queue_name_and_scheduled_at ON good_jobs (queue_name, scheduled_at)
  WHERE (finished_at IS NULL);
CREATE INDEX index_good_jobs_on_active_job_id_and_created_at ON good_jobs (active_job_id, created_at);
CREATE INDEX index_good_jobs_on_concurrency_key_when_unfinished ON good_jobs (concurrency_key)
  WHERE (finished_at IS NULL);
CREATE INDEX index_good_jobs_jobs_on_finished_at ON good_jobs (finished_at)
  WHERE retried_good_job_id IS NULL AND finished_at IS NOT NULL;
CREATE INDEX index_good_jobs_jobs_on_priority_created_at_when_unfinished
  ON good_jobs (priority DESC NULLS LAST, created_at) WHERE finished_at IS NULL;
CREATE INDEX index_good_job_executions_on_active_job_id_and_created_at
  ON good_job_executions (active_job_id, created_at);
