<?php
/*
 * Writes tests/data/formats/laravel-database.sqlite3 with the REAL Laravel
 * queue code: Debian 12's php-illuminate-queue 8.83.26+dfsg-2 (laravel/framework
 * tag v8.83.26 = 7411d9fa71c1b0fd73a33e225f14512b74e6c81e) on php8.2-sqlite3,
 * set up as in /work/shared/FORMATS.md section 2.7.
 *
 * - Tables come from the schema builder with the column calls of the 8.83 stubs
 *   (Illuminate/Queue/Console/stubs/{jobs,failed_jobs,batches}.stub) plus the
 *   Laravel 8 skeleton's users table; the `migrations` table is written by
 *   Illuminate\Database\Migrations\DatabaseMigrationRepository, as
 *   `php artisan migrate` would.
 * - Jobs are pushed with DatabaseQueue::push / later, and processed by the real
 *   Illuminate\Queue\Worker::runNextJob (pop, fire through CallQueuedHandler,
 *   delete, release with backoff, fail after maxTries), with the JobFailed
 *   listener that WorkCommand registers (DatabaseUuidFailedJobProvider::log).
 * - "Stuck" reservations are DatabaseQueue::pop() calls whose job is never
 *   finished (a worker that died).
 * - The clock is Carbon::setTestNow (which the queue's InteractsWithTime and
 *   Date::now() read); Str::createUuidsUsing gives reproducible payload uuids.
 *
 * Connection config: driver database, table jobs, retry_after 90 (skeleton
 * config/queue.php). Worker options: --tries=3 --backoff=30 unless noted.
 *
 * Usage: php make_laravel.php OUT.sqlite3
 */
set_include_path('/usr/share/php');
require_once 'Illuminate/Queue/autoload.php';
require_once 'Illuminate/Events/autoload.php';
require_once 'Illuminate/Bus/autoload.php';
date_default_timezone_set('UTC');

use Illuminate\Container\Container;
use Illuminate\Database\Capsule\Manager as DB;
use Illuminate\Database\Migrations\DatabaseMigrationRepository;
use Illuminate\Database\Schema\Blueprint;
use Illuminate\Queue\Capsule\Manager as Queue;
use Illuminate\Queue\Events\JobFailed;
use Illuminate\Queue\Failed\DatabaseUuidFailedJobProvider;
use Illuminate\Queue\Worker;
use Illuminate\Queue\WorkerOptions;
use Illuminate\Support\Carbon;
use Illuminate\Support\Str;
use Ramsey\Uuid\Uuid;

// ---- the application's job classes ----
class SendWelcomeEmail implements Illuminate\Contracts\Queue\ShouldQueue
{
    use Illuminate\Bus\Queueable, Illuminate\Queue\InteractsWithQueue;
    public $userId;
    public static $failFor = [];
    public function __construct($userId) { $this->userId = $userId; }
    public function handle() {
        if (in_array($this->userId, self::$failFor, true)) {
            throw new RuntimeException("SMTP 554: mailbox for user {$this->userId} rejected");
        }
    }
}
class ProcessPodcast implements Illuminate\Contracts\Queue\ShouldQueue
{
    use Illuminate\Bus\Queueable, Illuminate\Queue\InteractsWithQueue;
    public $podcastId; public $tries = 2; public $timeout = 600;
    public static $failFor = [];
    public function __construct($podcastId) { $this->podcastId = $podcastId; }
    public function handle() {
        if (in_array($this->podcastId, self::$failFor, true)) {
            throw new RuntimeException("ffmpeg exited with code 1 for podcast {$this->podcastId}");
        }
    }
    public function failed(Throwable $e) { /* app hook: notify the uploader */ }
}
class PruneStaleSessions implements Illuminate\Contracts\Queue\ShouldQueue
{
    use Illuminate\Bus\Queueable, Illuminate\Queue\InteractsWithQueue;
    public function handle() {}
}
class ExceptionHandler implements Illuminate\Contracts\Debug\ExceptionHandler
{
    public function report(Throwable $e) {}
    public function shouldReport(Throwable $e) { return false; }
    public function render($request, Throwable $e) { throw $e; }
    public function renderForConsole($output, Throwable $e) {}
}

$out = $argv[1];
foreach (['', '-journal', '-wal', '-shm'] as $s) { if (file_exists($out.$s)) unlink($out.$s); }
touch($out);

// ---- fixed clock and reproducible uuids ----
$NOW = Carbon::create(2026, 11, 30, 12, 0, 0, 'UTC');   // facts are valid at this instant
$clock = $NOW->copy()->subHours(3);
Carbon::setTestNow($clock);
function at(Carbon $t) { global $clock; $clock = $t->copy(); Carbon::setTestNow($clock); }
function later(int $seconds) { global $clock; at($clock->copy()->addSeconds($seconds)); }
$uuidSeq = 0;
Str::createUuidsUsing(function () use (&$uuidSeq) {
    $uuidSeq++;
    return Uuid::fromString(substr(hash('sha256', "laravel-fixture-$uuidSeq"), 0, 8).'-'.substr(hash('sha256', "laravel-fixture-$uuidSeq"), 8, 4).'-4'.substr(hash('sha256', "laravel-fixture-$uuidSeq"), 13, 3).'-a'.substr(hash('sha256', "laravel-fixture-$uuidSeq"), 17, 3).'-'.substr(hash('sha256', "laravel-fixture-$uuidSeq"), 20, 12));
});

// ---- container, database, events, queue ----
$app = new Container;
Container::setInstance($app);
$app->instance(Illuminate\Contracts\Container\Container::class, $app);
$capsule = new DB($app);
$capsule->addConnection(['driver' => 'sqlite', 'database' => $out, 'prefix' => '', 'foreign_key_constraints' => true]);
$capsule->setAsGlobal();
$app->instance('db', $capsule->getDatabaseManager());
$events = new Illuminate\Events\Dispatcher($app);
$app->instance('events', $events);
$app->instance(Illuminate\Contracts\Events\Dispatcher::class, $events);
$app->singleton(Illuminate\Contracts\Bus\Dispatcher::class, function ($app) { return new Illuminate\Bus\Dispatcher($app); });
$schema = $capsule->getConnection()->getSchemaBuilder();

// ---- migrations (8.x skeleton users + queue:table + queue:failed-table + queue:batches-table) ----
$repo = new DatabaseMigrationRepository($capsule->getDatabaseManager(), 'migrations');
$repo->createRepository();
$schema->create('users', function (Blueprint $table) {
    $table->id();
    $table->string('name');
    $table->string('email')->unique();
    $table->timestamp('email_verified_at')->nullable();
    $table->string('password');
    $table->rememberToken();
    $table->timestamps();
});
$repo->log('2014_10_12_000000_create_users_table', 1);
$schema->create('failed_jobs', function (Blueprint $table) {
    $table->id();
    $table->string('uuid')->unique();
    $table->text('connection');
    $table->text('queue');
    $table->longText('payload');
    $table->longText('exception');
    $table->timestamp('failed_at')->useCurrent();
});
$repo->log('2019_08_19_000000_create_failed_jobs_table', 1);
$schema->create('jobs', function (Blueprint $table) {
    $table->bigIncrements('id');
    $table->string('queue')->index();
    $table->longText('payload');
    $table->unsignedTinyInteger('attempts');
    $table->unsignedInteger('reserved_at')->nullable();
    $table->unsignedInteger('available_at');
    $table->unsignedInteger('created_at');
});
$repo->log('2026_11_02_091500_create_jobs_table', 2);
$schema->create('job_batches', function (Blueprint $table) {
    $table->string('id')->primary();
    $table->string('name');
    $table->integer('total_jobs');
    $table->integer('pending_jobs');
    $table->integer('failed_jobs');
    $table->text('failed_job_ids');
    $table->mediumText('options')->nullable();
    $table->integer('cancelled_at')->nullable();
    $table->integer('created_at');
    $table->integer('finished_at')->nullable();
});
$repo->log('2026_11_02_091600_create_job_batches_table', 2);

// application data
foreach (['Ada Lovelace', 'Grace Hopper', 'Edsger Dijkstra', 'Barbara Liskov', 'Ken Thompson'] as $i => $name) {
    $capsule->table('users')->insert([
        'name' => $name, 'email' => strtolower(explode(' ', $name)[0]).'@example.com',
        'password' => '$2y$10$'.str_repeat('x', 53), 'created_at' => $clock->copy()->subDays(30 - $i), 'updated_at' => $clock->copy()->subDays(30 - $i),
    ]);
}

$queue = new Queue($app);
$queue->addConnection(['driver' => 'database', 'table' => 'jobs', 'queue' => 'default', 'retry_after' => 90]);
$app->instance('queue', $queue->getQueueManager());
$failer = new DatabaseUuidFailedJobProvider($capsule->getDatabaseManager(), 'default', 'failed_jobs');
$app->instance('queue.failer', $failer);
$events->listen(JobFailed::class, function ($event) use ($failer) {   // as WorkCommand::listenForEvents
    $failer->log($event->connectionName, $event->job->getQueue(), $event->job->getRawBody(), $event->exception);
});
$q = $queue->getConnection();
$worker = new Worker($queue->getQueueManager(), $events, new ExceptionHandler, function () { return false; });
$opts = new WorkerOptions('default', 30, 128, 60, 0, 3);   // --backoff=30 --tries=3 --sleep=0
function work($queueNames, $n = 1) { global $worker, $opts; for ($i = 0; $i < $n; $i++) $worker->runNextJob('default', $queueNames, $opts); }

$ids = [];
// 09:00 - sign-ups: welcome mails on "emails", podcasts on "podcasts", housekeeping on "default".
for ($u = 1; $u <= 5; $u++) { $q->push(new SendWelcomeEmail($u), '', 'emails'); later(7); }
for ($p = 101; $p <= 104; $p++) { $q->push(new ProcessPodcast($p), '', 'podcasts'); later(3); }
$q->push(new PruneStaleSessions, '', 'default');
SendWelcomeEmail::$failFor = [3];
ProcessPodcast::$failFor = [103];

// 09:05 - a worker drains emails then podcasts then default.
at($NOW->copy()->subHours(2)->subMinutes(55));
work('emails,podcasts,default', 10);     // user 3 fails once -> released (new id, available +30 s); podcast 103 fails once -> released
// 09:10 - retries: user 3 fails again (attempt 2 -> released), podcast 103 fails for good (tries=2) -> failed_jobs
at($NOW->copy()->subHours(2)->subMinutes(50));
work('emails,podcasts,default', 2);
// 09:15 - user 3's third attempt fails: --tries=3 reached -> failed_jobs
at($NOW->copy()->subHours(2)->subMinutes(45));
work('emails', 1);

// 10:30 - a newsletter run; one mail keeps failing and is left released with a long backoff.
at($NOW->copy()->subMinutes(90));
for ($u = 1; $u <= 3; $u++) $q->push(new SendWelcomeEmail(200 + $u), '', 'emails');
SendWelcomeEmail::$failFor = [202];
$optsLong = new WorkerOptions('default', 7200, 128, 60, 0, 3);  // --backoff=7200
$worker->runNextJob('default', 'emails', $optsLong);
$worker->runNextJob('default', 'emails', $optsLong);   // 202 fails -> released, available in 2 h (SCHEDULED at NOW)
$worker->runNextJob('default', 'emails', $optsLong);

// Delayed jobs (SCHEDULED at NOW) and a delay that is already due (READY).
at($NOW->copy()->subMinutes(30));
$q->later(3600, new PruneStaleSessions, '', 'default');            // due 12:30
$q->later(Carbon::create(2026, 12, 1, 6, 0, 0, 'UTC'), new ProcessPodcast(110), '', 'podcasts');
$q->later(600, new SendWelcomeEmail(6), '', 'emails');            // due 11:40 -> READY at NOW

// 11:57 - a worker dies holding a podcast (reserved 3 min ago > retry_after 90 s: LOCKED-expired).
at($NOW->copy()->subMinutes(4));
$q->push(new ProcessPodcast(105), '', 'podcasts');
$q->push(new ProcessPodcast(106), '', 'podcasts');
at($NOW->copy()->subMinutes(3));
$ids['reserved_expired'] = $q->pop('podcasts')->getJobId();
// 11:59:30 - live reservation (30 s ago) on "emails". (Popping "podcasts" again
// would take over the expired reservation above: reserved_at <= now - retry_after.)
at($NOW->copy()->subSeconds(30));
$ids['reserved_live'] = $q->pop('emails')->getJobId();

// Fresh pushes, READY at NOW.
at($NOW->copy()->subSeconds(10));
for ($u = 7; $u <= 9; $u++) $q->push(new SendWelcomeEmail($u), '', 'emails');
$q->push(new PruneStaleSessions, '', 'default');

if ($clock->greaterThanOrEqualTo($NOW)) { fwrite(STDERR, "clock passed NOW\n"); exit(1); }
// Rollback-journal mode as Laravel leaves it (it sets no journal_mode).
$capsule->getConnection()->getPdo()->exec('PRAGMA wal_checkpoint(TRUNCATE)');
echo json_encode(['now' => $NOW->toIso8601ZuluString(), 'now_s' => $NOW->getTimestamp(), 'ids' => $ids], JSON_PRETTY_PRINT), "\n";
