#!/usr/bin/env ruby
# frozen_string_literal: true
# SPDX-License-Identifier: MIT
#
# A real Delayed::Job client for the stress test (issue 40, Proof): Debian 12's
# delayed_job 4.1.9 (ruby-delayed-job) and delayed_job_active_record 4.1.6
# (ruby-delayed-job-active-record) on Active Record 6.1 (ruby-activerecord) and
# sqlite3 1.4 (ruby-sqlite3), set up as docs/FORMATS.md section delayed-job and
# tests/data/generate/delayed-job/make_delayed_job.rb do (the gem's own
# migration template, default_timezone :utc, destroy_failed_jobs false).
#
#   ruby delayedjob_client.rb check
#   ruby delayedjob_client.rb create   FILE
#   ruby delayedjob_client.rb producer FILE --log L --stop S [--pause-ms M] [--poison-percent P]
#                                           [--slow-percent P]
#   ruby delayedjob_client.rb worker   FILE --log L --stop S [--max-run-time S]
#                                           [--fail-percent P] [--work-ms M]
#
# The worker is Delayed::Worker#work_off in a loop (what Delayed::Worker#start
# does, without its signal traps and sleep_delay), max_attempts 3, the job's
# own back-off 1 s (its reschedule_at hook). Every log line is one write(2) on
# a file opened for appending (it survives a kill -9 of this process; several
# processes share the log), starting with the process id and the time (Unix
# seconds with microseconds), then:
#   put   KEY ID KIND                 Delayed::Job.enqueue returned (committed)
#   run   KEY ID ATTEMPTS LOCKED_AT   perform started (attempts before this run;
#                                     locked_at: this run's lock, Unix seconds)
#   done  KEY ID                      perform returned; the worker destroys the row next
#   fail  KEY ID ATTEMPTS             perform raised (the stress failure)
#   error KEY ID ATTEMPTS TEXT        the worker's :error callback (after
#                                     reschedule or fail!: attempts as saved;
#                                     TEXT the first line of last_error)
#   dead  KEY ID ATTEMPTS             the worker's :failure callback (fail!: failed_at kept)
#   busy  TEXT                        work_off raised "database is locked" (reported, the
#                                     loop goes on, as a supervisor restarts a worker)
#   oops  TEXT                        anything else the loop caught
# The worker stops at the next loop when the stop file exists.
require "erb"
require "logger"

role, file = ARGV[0], ARGV[1]
begin
  require "sqlite3"
  require "active_record"
  require "delayed_job"
  require "delayed_job_active_record"
rescue LoadError => e
  puts "missing: #{e.message}"
  exit 3
end
if role == "check"
  puts "delayed_job #{Gem.loaded_specs['delayed_job']&.version} " \
       "delayed_job_active_record #{Gem.loaded_specs['delayed_job_active_record']&.version} " \
       "activerecord #{ActiveRecord.version} sqlite3 #{SQLite3::VERSION}"
  exit 0
end
abort("usage: delayedjob_client.rb check|create|producer|worker FILE ...") unless role && file

def opt(name, default)
  i = ARGV.index(name)
  i ? ARGV[i + 1] : default
end

module Log
  class << self
    def open(path)
      @f = File.open(path, "a")
      @f.sync = true
    end

    def line(text)
      t = Time.now
      @f.write(format("%d %d.%06d %s\n", Process.pid, t.to_i, t.usec, text))
    end
  end
end

# The job: recorded on every run, fails now and then (or always: a poison
# job, which DJ fails for good after max_attempts, failed_at kept); a slow
# one works 1 s (less than max_run_time).
class StressJob
  class << self
    attr_accessor :fail_percent, :work_ms
  end
  self.fail_percent = 15
  self.work_ms = 20

  attr_reader :key, :kind

  def initialize(key, kind)
    @key = key
    @kind = kind
  end

  def before(job)
    @job = job
  end

  def perform
    j = @job
    Log.line(format("run %s %d %d %.6f", key, j.id, j.attempts, j.locked_at.to_f))
    sleep(kind == "slow" ? 1.0 : StressJob.work_ms / 1000.0)
    if kind == "poison" || rand(100) < StressJob.fail_percent
      Log.line("fail #{key} #{j.id} #{j.attempts}")
      raise "stress failure of #{key}"
    end
    Log.line("done #{key} #{j.id}")
  end

  def reschedule_at(now, _attempts)
    now + 1
  end
end

ActiveRecord::Base.default_timezone = :utc
ActiveRecord::Base.logger = nil
ActiveRecord::Migration.verbose = false
ActiveRecord::Base.establish_connection(adapter: "sqlite3", database: file, timeout: 10_000)
Delayed::Worker.destroy_failed_jobs = false
Delayed::Worker.max_attempts = 3
Delayed::Worker.logger = Logger.new(nil)

if role == "create"
  ActiveRecord::Base.connection.execute("PRAGMA journal_mode = WAL")
  # The gem's own migration (generators/delayed_job/templates/migration.rb).
  template = File.join(Gem.loaded_specs.fetch("delayed_job_active_record").full_gem_path,
                       "lib/generators/delayed_job/templates/migration.rb")
  migration_version = "[6.1]" # rubocop:disable Lint/UselessAssignment (read by the template)
  eval(ERB.new(File.read(template)).result(binding)) # rubocop:disable Security/Eval
  CreateDelayedJobs.migrate(:up)
  exit 0
end

Log.open(opt("--log", "/dev/stdout"))
stop = opt("--stop", "")

def report(err)
  text = "#{err.class}: #{err.message}".tr("\n", " ")[0, 300]
  Log.line((text.include?("database is locked") || text.include?("BusyException") ? "busy " : "oops ") + text)
end

case role
when "producer"
  pause = opt("--pause-ms", "20").to_i / 1000.0
  poison = opt("--poison-percent", "5").to_i
  slow = opt("--slow-percent", "0").to_i
  queues = [nil, "mail"]
  n = 0
  until File.exist?(stop)
    key = "j#{n}"
    p = rand(100)
    kind = p < poison ? "poison" : p < poison + slow ? "slow" : "ok"
    begin
      job = Delayed::Job.enqueue(StressJob.new(key, kind), queue: queues[n % 2])
      Log.line("put #{key} #{job.id} #{kind}")
      n += 1
    rescue StandardError => e
      report(e)
    end
    sleep(pause)
  end
when "worker"
  Delayed::Worker.max_run_time = opt("--max-run-time", "3").to_i
  StressJob.fail_percent = opt("--fail-percent", "15").to_i
  StressJob.work_ms = opt("--work-ms", "20").to_i
  # A plugin (Delayed::Worker.plugins, the library's way to hook a worker).
  outcome_log = Class.new(Delayed::Plugin) do
    callbacks do |lifecycle|
      lifecycle.after(:error) do |_worker, job|
        key = job.payload_object.key rescue "?"
        Log.line("error #{key} #{job.id} #{job.attempts} #{job.last_error.to_s.lines.first.to_s.strip[0, 200]}")
      end
      lifecycle.after(:failure) do |_worker, job|
        key = job.payload_object.key rescue "?"
        Log.line("dead #{key} #{job.id} #{job.attempts}")
      end
    end
  end
  Delayed::Worker.plugins << outcome_log
  worker = Delayed::Worker.new(quiet: true)
  until File.exist?(stop)
    begin
      success, failure = worker.work_off(10)
      sleep(0.05) if success + failure == 0
    rescue Exception => e # rubocop:disable Lint/RescueException (FatalBackendError too)
      report(e)
      sleep(0.05)
    end
  end
else
  abort("unknown role #{role}")
end
