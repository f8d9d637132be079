-- Solid Queue on PostgreSQL: the tables of
--   rails/solid_queue@217047565327f73bac4f9ed7c5670c8adaf3143a
--   lib/generators/solid_queue/install/templates/db/queue_schema.rb
-- as Rails' PostgreSQL adapter creates them (bigserial ids, `string` ->
-- character varying, `datetime` -> timestamp(6) without time zone, in UTC).
-- The SQLite fixture tests/data/formats/solid-queue.sqlite3 was made from
-- rails/solid_queue@29e818d9c118: the same tables and columns
-- (solid_queue_batches / batch_executions of the newer schema left out).
-- Loaded unqualified: the test sets search_path to the schema it fills.
CREATE TABLE solid_queue_jobs (
  id bigserial PRIMARY KEY, queue_name character varying NOT NULL,
  class_name character varying NOT NULL, arguments text,
  priority integer DEFAULT 0 NOT NULL, active_job_id character varying,
  scheduled_at timestamp(6) without time zone, finished_at timestamp(6) without time zone,
  concurrency_key character varying, created_at timestamp(6) without time zone NOT NULL,
  updated_at timestamp(6) without time zone NOT NULL);
CREATE INDEX index_solid_queue_jobs_on_active_job_id ON solid_queue_jobs (active_job_id);
CREATE INDEX index_solid_queue_jobs_on_class_name ON solid_queue_jobs (class_name);
CREATE INDEX index_solid_queue_jobs_on_finished_at ON solid_queue_jobs (finished_at);
CREATE INDEX index_solid_queue_jobs_for_filtering ON solid_queue_jobs (queue_name, finished_at);
CREATE INDEX index_solid_queue_jobs_for_alerting ON solid_queue_jobs (scheduled_at, finished_at);

CREATE TABLE solid_queue_blocked_executions (
  id bigserial PRIMARY KEY, job_id bigint NOT NULL, queue_name character varying NOT NULL,
  priority integer DEFAULT 0 NOT NULL, concurrency_key character varying NOT NULL,
  expires_at timestamp(6) without time zone NOT NULL,
  created_at timestamp(6) without time zone NOT NULL);
CREATE INDEX index_solid_queue_blocked_executions_for_release
  ON solid_queue_blocked_executions (concurrency_key, priority, job_id);
CREATE INDEX index_solid_queue_blocked_executions_for_maintenance
  ON solid_queue_blocked_executions (expires_at, concurrency_key);
CREATE UNIQUE INDEX index_solid_queue_blocked_executions_on_job_id
  ON solid_queue_blocked_executions (job_id);

CREATE TABLE solid_queue_claimed_executions (
  id bigserial PRIMARY KEY, job_id bigint NOT NULL, process_id bigint,
  created_at timestamp(6) without time zone NOT NULL);
CREATE UNIQUE INDEX index_solid_queue_claimed_executions_on_job_id
  ON solid_queue_claimed_executions (job_id);
CREATE INDEX index_solid_queue_claimed_executions_on_process_id_and_job_id
  ON solid_queue_claimed_executions (process_id, job_id);

CREATE TABLE solid_queue_failed_executions (
  id bigserial PRIMARY KEY, job_id bigint NOT NULL, error text,
  created_at timestamp(6) without time zone NOT NULL);
CREATE UNIQUE INDEX index_solid_queue_failed_executions_on_job_id
  ON solid_queue_failed_executions (job_id);

CREATE TABLE solid_queue_pauses (
  id bigserial PRIMARY KEY, queue_name character varying NOT NULL,
  created_at timestamp(6) without time zone NOT NULL);
CREATE UNIQUE INDEX index_solid_queue_pauses_on_queue_name ON solid_queue_pauses (queue_name);

CREATE TABLE solid_queue_processes (
  id bigserial PRIMARY KEY, kind character varying NOT NULL,
  last_heartbeat_at timestamp(6) without time zone NOT NULL, supervisor_id bigint,
  pid integer NOT NULL, hostname character varying, metadata text,
  created_at timestamp(6) without time zone NOT NULL, name character varying NOT NULL);
CREATE INDEX index_solid_queue_processes_on_last_heartbeat_at
  ON solid_queue_processes (last_heartbeat_at);
CREATE UNIQUE INDEX index_solid_queue_processes_on_name_and_supervisor_id
  ON solid_queue_processes (name, supervisor_id);
CREATE INDEX index_solid_queue_processes_on_supervisor_id ON solid_queue_processes (supervisor_id);

CREATE TABLE solid_queue_ready_executions (
  id bigserial PRIMARY KEY, job_id bigint NOT NULL, queue_name character varying NOT NULL,
  priority integer DEFAULT 0 NOT NULL, created_at timestamp(6) without time zone NOT NULL);
CREATE UNIQUE INDEX index_solid_queue_ready_executions_on_job_id
  ON solid_queue_ready_executions (job_id);
CREATE INDEX index_solid_queue_poll_all ON solid_queue_ready_executions (priority, job_id);
CREATE INDEX index_solid_queue_poll_by_queue
  ON solid_queue_ready_executions (queue_name, priority, job_id);

CREATE TABLE solid_queue_recurring_executions (
  id bigserial PRIMARY KEY, job_id bigint NOT NULL, task_key character varying NOT NULL,
  run_at timestamp(6) without time zone NOT NULL,
  created_at timestamp(6) without time zone NOT NULL);
CREATE UNIQUE INDEX index_solid_queue_recurring_executions_on_job_id
  ON solid_queue_recurring_executions (job_id);
CREATE UNIQUE INDEX index_solid_queue_recurring_executions_on_task_key_and_run_at
  ON solid_queue_recurring_executions (task_key, run_at);

CREATE TABLE solid_queue_recurring_tasks (
  id bigserial PRIMARY KEY, key character varying NOT NULL,
  schedule character varying NOT NULL, command character varying(2048),
  class_name character varying, arguments text, queue_name character varying,
  priority integer DEFAULT 0, static boolean DEFAULT true NOT NULL, description text,
  created_at timestamp(6) without time zone NOT NULL,
  updated_at timestamp(6) without time zone NOT NULL);
CREATE UNIQUE INDEX index_solid_queue_recurring_tasks_on_key ON solid_queue_recurring_tasks (key);
CREATE INDEX index_solid_queue_recurring_tasks_on_static ON solid_queue_recurring_tasks (static);

CREATE TABLE solid_queue_scheduled_executions (
  id bigserial PRIMARY KEY, job_id bigint NOT NULL, queue_name character varying NOT NULL,
  priority integer DEFAULT 0 NOT NULL, scheduled_at timestamp(6) without time zone NOT NULL,
  created_at timestamp(6) without time zone NOT NULL);
CREATE UNIQUE INDEX index_solid_queue_scheduled_executions_on_job_id
  ON solid_queue_scheduled_executions (job_id);
CREATE INDEX index_solid_queue_dispatch_all
  ON solid_queue_scheduled_executions (scheduled_at, priority, job_id);

CREATE TABLE solid_queue_semaphores (
  id bigserial PRIMARY KEY, key character varying NOT NULL, value integer DEFAULT 1 NOT NULL,
  expires_at timestamp(6) without time zone NOT NULL,
  created_at timestamp(6) without time zone NOT NULL,
  updated_at timestamp(6) without time zone NOT NULL);
CREATE INDEX index_solid_queue_semaphores_on_expires_at ON solid_queue_semaphores (expires_at);
CREATE INDEX index_solid_queue_semaphores_on_key_and_value ON solid_queue_semaphores (key, value);
CREATE UNIQUE INDEX index_solid_queue_semaphores_on_key ON solid_queue_semaphores (key);

ALTER TABLE solid_queue_blocked_executions ADD CONSTRAINT fk_rails_4cd34e2228
  FOREIGN KEY (job_id) REFERENCES solid_queue_jobs (id) ON DELETE CASCADE;
ALTER TABLE solid_queue_claimed_executions ADD CONSTRAINT fk_rails_9cfe4d4944
  FOREIGN KEY (job_id) REFERENCES solid_queue_jobs (id) ON DELETE CASCADE;
ALTER TABLE solid_queue_failed_executions ADD CONSTRAINT fk_rails_39bbc7a631
  FOREIGN KEY (job_id) REFERENCES solid_queue_jobs (id) ON DELETE CASCADE;
ALTER TABLE solid_queue_ready_executions ADD CONSTRAINT fk_rails_81fcbd66af
  FOREIGN KEY (job_id) REFERENCES solid_queue_jobs (id) ON DELETE CASCADE;
ALTER TABLE solid_queue_recurring_executions ADD CONSTRAINT fk_rails_318a5533ed
  FOREIGN KEY (job_id) REFERENCES solid_queue_jobs (id) ON DELETE CASCADE;
ALTER TABLE solid_queue_scheduled_executions ADD CONSTRAINT fk_rails_c4316f352d
  FOREIGN KEY (job_id) REFERENCES solid_queue_jobs (id) ON DELETE CASCADE;
