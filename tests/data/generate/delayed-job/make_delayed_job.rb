#!/usr/bin/env ruby
# frozen_string_literal: true
# tests/data/formats/delayed-job.sqlite3, written by the REAL library from
# Debian 12: delayed_job 4.1.9 (ruby-delayed-job 4.1.9-1.1) and
# delayed_job_active_record 4.1.6 (ruby-delayed-job-active-record 4.1.6-3.1)
# on Active Record 6.1.7.10 (ruby-activerecord), Active Job 6.1.7.10
# (ruby-activejob) and sqlite3 1.4.2 (ruby-sqlite3), Ruby 3.1.
#
#   apt-get install -y ruby ruby-delayed-job ruby-delayed-job-active-record \
#       ruby-activerecord ruby-activejob ruby-sqlite3
#   ruby make_delayed_job.rb <out.sqlite3> [<last-run.json>]
#
# Only the clock is replaced (Time.now, which the library's db_time_now and
# Active Record's timestamps read): a fake clock that starts at
# 2026-11-30 07:00:00 UTC and moves 1.5 ms on each reading, set forward
# between the steps below. Every row is written by the library:
# Delayed::Job.enqueue / .delay / ActiveJob perform_later, Delayed::Job.reserve
# (a worker's lock), Delayed::Worker#work_off (run, reschedule, fail!). The
# table is made by the gem's own migration template. now for the facts:
# 2026-11-30 12:00:00 UTC.
require "erb"
require "json"
require "fileutils"
require "logger"
require "active_record"
require "active_job"
require "delayed_job"
require "delayed_job_active_record"

out = ARGV[0] or abort("usage: make_delayed_job.rb <out.sqlite3> [<last-run.json>]")
last_run = ARGV[1]

# ---- the fake clock ---------------------------------------------------------
module FakeClock
  class << self
    attr_accessor :t

    def set(*ymdhms)
      self.t = Time.utc(*ymdhms)
    end
  end
end
FakeClock.set(2026, 11, 30, 7, 0, 0)
class << Time
  alias_method :real_now, :now
  def now(*_args)
    FakeClock.t += Rational(3, 2000) # 1.5 ms a reading
    FakeClock.t.dup
  end
end

# ---- the app's database -----------------------------------------------------
FileUtils.rm_f(out)
ActiveRecord::Base.default_timezone = :utc
ActiveRecord::Base.logger = nil
ActiveRecord::Migration.verbose = false
ActiveRecord::Base.establish_connection(adapter: "sqlite3", database: out)
ActiveRecord::Base.connection.execute("PRAGMA journal_mode = DELETE")

# The app's own tables beside the queue (the README's setup: one database).
class CreateUsers < ActiveRecord::Migration[6.1]
  def change
    create_table :users do |t|
      t.string :email, null: false
      t.timestamps
    end
  end
end
CreateUsers.migrate(:up)

# The gem's own migration (generators/delayed_job/templates/migration.rb).
template = File.join(Gem.loaded_specs.fetch("delayed_job_active_record").full_gem_path,
                     "lib/generators/delayed_job/templates/migration.rb")
migration_version = "[6.1]"
eval(ERB.new(File.read(template)).result(binding)) # rubocop:disable Security/Eval
CreateDelayedJobs.migrate(:up)

class User < ActiveRecord::Base; end
User.create!(email: "ada@example.com")
User.create!(email: "grace@example.com")

# ---- the jobs -----------------------------------------------------------------
class NotifyJob
  def initialize(user_id) = @user_id = user_id
  def perform; end
end

class ReportJob
  def initialize(report_id) = @report_id = report_id
  def perform; end
end

# Always fails: fails for good after max_attempts (3).
class ResizeImageJob
  def initialize(image_id) = @image_id = image_id
  def perform = raise(ArgumentError, "image #{@image_id} is corrupt")
end

# Fails; the job's own back-off (the library's reschedule_at hook): 2 h.
class WebhookJob
  def initialize(url) = @url = url
  def perform = raise("HTTP 503 from #{@url}")
  def reschedule_at(now, _attempts) = now + 2 * 3600
end

# Fails with the library's default back-off (now + attempts**4 + 5 s).
PdfJob = Struct.new(:invoice_id) do
  def perform = raise(IOError, "font cache locked for invoice #{invoice_id}")
end

class Newsletter
  def self.deliver(issue); end
end

ActiveJob::Base.queue_adapter = :delayed_job
ActiveJob::Base.logger = Logger.new(nil)
class CleanupJob < ActiveJob::Base
  queue_as :maintenance
  def perform(days); end
end

Delayed::Worker.destroy_failed_jobs = false
Delayed::Worker.max_attempts = 3
Delayed::Worker.logger = Logger.new(nil)
# max_run_time stays the library's default: 4 hours.

ids = {}

def work(at, queues = [])
  FakeClock.set(*at)
  w = Delayed::Worker.new(quiet: true, queues: queues)
  w.name = "host:worker-1 pid:3100"
  w.work_off(100)
end

def lock_one(at, name, queues)
  FakeClock.set(*at)
  w = Delayed::Worker.new(quiet: true, queues: queues)
  w.name = name
  job = Delayed::Job.reserve(w) # sets locked_at and locked_by, as a worker does
  Delayed::Worker.queues = []
  job
end

# 07:00 a report; 07:30 a batch worker locks it and dies (no clear_locks!).
FakeClock.set(2026, 11, 30, 7, 0, 0)
Delayed::Job.enqueue(ReportJob.new(1), queue: "reports", priority: 10)
ids[:locked_expired] = lock_one([2026, 11, 30, 7, 30, 12.345678r], "host:batch-1 pid:4242", ["reports"]).id

# 09:00 a batch: four notifications and an Active Job (done: deleted), two
# resizes that fail three times.
FakeClock.set(2026, 11, 30, 9, 0, 0)
4.times { |i| Delayed::Job.enqueue(NotifyJob.new(100 + i), queue: "mailers") }
2.times { |i| Delayed::Job.enqueue(ResizeImageJob.new(7 + i), queue: "images", priority: 5) }
CleanupJob.perform_later(7)
ids[:run_0900] = work([2026, 11, 30, 9, 0, 1])
ids[:run_0910] = work([2026, 11, 30, 9, 10, 0])
ids[:run_0920] = work([2026, 11, 30, 9, 20, 0])

# 09:30 another batch worker locks a report and dies too.
FakeClock.set(2026, 11, 30, 9, 30, 0)
Delayed::Job.enqueue(ReportJob.new(2), queue: "reports", priority: 10)
ids[:locked_crashed] = lock_one([2026, 11, 30, 9, 30, 5.5r], "host:batch-2 pid:977", ["reports"]).id

# 10:30 a webhook (default queue) fails once: its own back-off, due 12:30.
FakeClock.set(2026, 11, 30, 10, 30, 0)
ids[:webhook] = Delayed::Job.enqueue(WebhookJob.new("https://hooks.example.com/a")).id
ids[:run_1030] = work([2026, 11, 30, 10, 30, 1])

# 11:00 an invoice PDF fails once: the default back-off, due again at 11:00:06.
FakeClock.set(2026, 11, 30, 11, 0, 0)
ids[:pdf] = Delayed::Job.enqueue(PdfJob.new(88), queue: "reports", priority: 3).id
ids[:run_1100] = work([2026, 11, 30, 11, 0, 1])

# 11:30 the backlog: due now and later.
FakeClock.set(2026, 11, 30, 11, 30, 0)
Delayed::Job.enqueue(NotifyJob.new(201), queue: "mailers")
Delayed::Job.enqueue(NotifyJob.new(202), queue: "mailers")
Delayed::Job.enqueue(NotifyJob.new(203), queue: "mailers", priority: 1)
Newsletter.delay(queue: "mailers", priority: 2).deliver(7)
Delayed::Job.enqueue(ReportJob.new(3), queue: "reports", priority: 10)
Delayed::Job.enqueue(NotifyJob.new(204)) # the default (nil) queue
Delayed::Job.enqueue(NotifyJob.new(205), queue: "mailers", run_at: Time.utc(2026, 11, 30, 18, 0, 0))
Delayed::Job.enqueue(ReportJob.new(4), queue: "reports", priority: 10, run_at: Time.utc(2026, 12, 1, 6, 0, 0))
CleanupJob.set(wait_until: Time.utc(2026, 12, 1, 3, 0, 0)).perform_later(30)

# 11:50:30.5 a live worker locks the first mailer (it is running at now).
ids[:locked_live] = lock_one([2026, 11, 30, 11, 50, 30.5r], "host:web-2 pid:5151", ["mailers"]).id

ActiveRecord::Base.connection.execute("VACUUM")
ActiveRecord::Base.connection.disconnect!
if last_run
  File.write(last_run, JSON.pretty_generate(now: "2026-11-30T12:00:00Z", now_stored: "2026-11-30 12:00:00",
                                            ruby: RUBY_VERSION, delayed_job: Gem.loaded_specs["delayed_job"].version.to_s,
                                            delayed_job_active_record: Gem.loaded_specs["delayed_job_active_record"].version.to_s,
                                            activerecord: ActiveRecord.version.to_s, sqlite3: SQLite3::VERSION,
                                            max_attempts: 3, max_run_time_s: Delayed::Worker.max_run_time.to_i,
                                            ids: ids) + "\n")
end
