-- pg-boss on PostgreSQL: its `pgboss` schema as
--   timgit/pg-boss@014854319b953f5463f5b7a3526a9372973ea0d2 src/plans.ts
-- creates it with noTablePartitioning (createEnumJobState, createTableVersion,
-- createTableQueue, createTableJob): the tables recognition reads. pg-boss's
-- own functions, triggers, the other tables and the indexes are left out;
-- the schema as pg-boss 12.27.0 itself creates it is pg-boss-npm.sql.
CREATE SCHEMA pgboss;
CREATE TYPE pgboss.job_state AS ENUM ('created', 'retry', 'active', 'completed', 'cancelled', 'failed');
CREATE TABLE pgboss.version (
  version int PRIMARY KEY, cron_on timestamp with time zone, bam_on timestamp with time zone,
  flow_on timestamp with time zone);
CREATE TABLE pgboss.queue (
  name text NOT NULL PRIMARY KEY, policy text NOT NULL, retry_limit int NOT NULL,
  retry_delay int NOT NULL, retry_backoff bool NOT NULL, retry_delay_max int,
  expire_seconds int NOT NULL, retention_seconds int NOT NULL, deletion_seconds int NOT NULL,
  dead_letter text REFERENCES pgboss.queue (name) CHECK (dead_letter IS DISTINCT FROM name),
  partition bool NOT NULL, table_name text NOT NULL,
  created_on timestamp with time zone NOT NULL DEFAULT now(),
  updated_on timestamp with time zone NOT NULL DEFAULT now());
CREATE TABLE pgboss.job (
  id uuid NOT NULL DEFAULT gen_random_uuid(), name text NOT NULL,
  priority integer NOT NULL DEFAULT (0), data jsonb,
  state pgboss.job_state NOT NULL DEFAULT 'created', retry_limit integer NOT NULL DEFAULT 2,
  retry_count integer NOT NULL DEFAULT 0, retry_delay integer NOT NULL DEFAULT 0,
  retry_backoff boolean NOT NULL DEFAULT false, retry_delay_max integer,
  expire_seconds int NOT NULL DEFAULT 900, deletion_seconds int NOT NULL DEFAULT 604800,
  singleton_key text, singleton_on timestamp without time zone,
  start_after timestamp with time zone NOT NULL DEFAULT now(),
  created_on timestamp with time zone NOT NULL DEFAULT now(),
  started_on timestamp with time zone, completed_on timestamp with time zone,
  keep_until timestamp with time zone NOT NULL DEFAULT now() + interval '1209600',
  output jsonb, dead_letter text, policy text,
  PRIMARY KEY (name, id));
INSERT INTO pgboss.version (version) VALUES (26);
