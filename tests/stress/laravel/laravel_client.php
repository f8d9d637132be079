<?php
/*
 * A real Laravel database-queue client for the stress tests: Debian 12's
 * php-illuminate-queue 8.83 (DatabaseQueue, Worker, DatabaseUuidFailedJobProvider)
 * on php8.2-sqlite3, set up as docs/FORMATS.md section 2.7 describes.
 *
 *   php laravel_client.php create   FILE
 *   php laravel_client.php producer FILE --log L --stop S [--id K] [--pause-ms M] [--queues a,b]
 *   php laravel_client.php worker   FILE --log L --stop S [--queues a,b] [--retry-after S]
 *                                        [--fail-percent P] [--work-ms M]
 *
 * Every line of the log is written with one fwrite and flushed, so it survives
 * a kill -9 of this process; several processes may share one log (append
 * mode). Each line starts with the process id and the time (Unix seconds,
 * microseconds), then:
 *   put   UUID QUEUE                     a job was pushed (after commit)
 *   run   UUID ID ATTEMPTS               the worker started the job (row ID, attempts after the pop)
 *   done  UUID ID                        handle() returned; the worker deletes the row next
 *   fail  UUID ID ATTEMPTS               handle() threw (release with backoff, or failed_jobs)
 *   busy  TEXT                           SQLite said "database is locked" (Laravel's pop
 *                                        upgrades a deferred transaction; the worker
 *                                        reports it and goes on, as Worker does)
 *   error TEXT                           anything else the worker loop caught
 * The worker stops at the next loop when the stop file exists.
 */
set_include_path('/usr/share/php');
require_once 'Illuminate/Queue/autoload.php';
require_once 'Illuminate/Events/autoload.php';
require_once 'Illuminate/Bus/autoload.php';
date_default_timezone_set('UTC');

use Illuminate\Container\Container;
use Illuminate\Database\Capsule\Manager as DB;
use Illuminate\Database\Schema\Blueprint;
use Illuminate\Queue\Capsule\Manager as Queue;
use Illuminate\Queue\Events\JobFailed;
use Illuminate\Queue\Failed\DatabaseUuidFailedJobProvider;
use Illuminate\Queue\Worker;
use Illuminate\Queue\WorkerOptions;

final class Log {
    private static $f;
    static function open($path) { self::$f = fopen($path, 'a'); }
    static function line($s) {
        fwrite(self::$f, getmypid()." ".sprintf("%.6f", microtime(true))." ".$s."\n");
        fflush(self::$f);
    }
}

class StressJob implements Illuminate\Contracts\Queue\ShouldQueue {
    use Illuminate\Bus\Queueable, Illuminate\Queue\InteractsWithQueue;
    public $n; public $tries = 3; public $backoff = 1;
    public static $failPercent = 10; public static $workMs = 5;
    public function __construct($n) { $this->n = $n; }
    public function handle() {
        $j = $this->job;
        Log::line("run ".$j->uuid()." ".$j->getJobId()." ".$j->attempts());
        usleep(self::$workMs * 1000);
        if (random_int(1, 100) <= self::$failPercent) {
            Log::line("fail ".$j->uuid()." ".$j->getJobId()." ".$j->attempts());
            throw new RuntimeException("stress failure of job {$this->n}");
        }
        Log::line("done ".$j->uuid()." ".$j->getJobId());
    }
}

class ExceptionHandler implements Illuminate\Contracts\Debug\ExceptionHandler {
    public function report(Throwable $e) { logThrowable($e); }
    public function shouldReport(Throwable $e) { return true; }
    public function render($request, Throwable $e) { throw $e; }
    public function renderForConsole($output, Throwable $e) {}
}

function logThrowable(Throwable $e) {
    if ($e instanceof RuntimeException && str_starts_with($e->getMessage(), 'stress failure'))
        return;
    $text = str_replace("\n", " ", get_class($e).": ".$e->getMessage());
    Log::line((str_contains($text, 'database is locked') ? "busy " : "error ").$text);
}

function opt($argv, $name, $default) {
    $i = array_search($name, $argv, true);
    return $i === false ? $default : $argv[$i + 1];
}

[$self, $role, $file] = array_pad($argv, 3, null);
if (!$role || !$file) { fwrite(STDERR, "usage: laravel_client.php create|producer|worker FILE ...\n"); exit(2); }
if ($role === 'create') { touch($file); }

$app = new Container;
Container::setInstance($app);
$app->instance(Illuminate\Contracts\Container\Container::class, $app);
$capsule = new DB($app);
$capsule->addConnection(['driver' => 'sqlite', 'database' => $file, 'prefix' => '',
                         'foreign_key_constraints' => true]);
$capsule->setAsGlobal();
$pdo = $capsule->getConnection()->getPdo();
$pdo->setAttribute(PDO::ATTR_TIMEOUT, 10);   // busy timeout (s)
$app->instance('db', $capsule->getDatabaseManager());
$events = new Illuminate\Events\Dispatcher($app);
$app->instance('events', $events);
$app->instance(Illuminate\Contracts\Events\Dispatcher::class, $events);
$app->singleton(Illuminate\Contracts\Bus\Dispatcher::class, function ($app) { return new Illuminate\Bus\Dispatcher($app); });

if ($role === 'create') {
    $capsule->getConnection()->statement('PRAGMA journal_mode=WAL');
    $schema = $capsule->getConnection()->getSchemaBuilder();
    $schema->create('failed_jobs', function (Blueprint $t) {
        $t->id(); $t->string('uuid')->unique(); $t->text('connection'); $t->text('queue');
        $t->longText('payload'); $t->longText('exception'); $t->timestamp('failed_at')->useCurrent();
    });
    $schema->create('jobs', function (Blueprint $t) {
        $t->bigIncrements('id'); $t->string('queue')->index(); $t->longText('payload');
        $t->unsignedTinyInteger('attempts'); $t->unsignedInteger('reserved_at')->nullable();
        $t->unsignedInteger('available_at'); $t->unsignedInteger('created_at');
    });
    exit(0);
}

Log::open(opt($argv, '--log', 'php://stdout'));
$stop = opt($argv, '--stop', '');
$queues = opt($argv, '--queues', 'default,mail');
$queue = new Queue($app);
$queue->addConnection(['driver' => 'database', 'table' => 'jobs', 'queue' => 'default',
                       'retry_after' => (int)opt($argv, '--retry-after', 5)]);
$app->instance('queue', $queue->getQueueManager());
$q = $queue->getConnection();

if ($role === 'producer') {
    $id = (int)opt($argv, '--id', 0);
    $pause = (int)opt($argv, '--pause-ms', 20);
    $names = explode(',', $queues);
    for ($n = 0; !($stop && file_exists($stop)); $n++) {
        $name = $names[$n % count($names)];
        try {
            $jobId = $q->push(new StressJob($id * 1000000 + $n), '', $name);
            $uuid = $capsule->table('jobs')->where('id', $jobId)->value('payload');
            $uuid = $uuid ? json_decode($uuid, true)['uuid'] : '?';
            Log::line("put $uuid $name");
        } catch (Throwable $e) {
            logThrowable($e);
        }
        usleep($pause * 1000);
    }
    exit(0);
}

if ($role === 'worker') {
    StressJob::$failPercent = (int)opt($argv, '--fail-percent', 10);
    StressJob::$workMs = (int)opt($argv, '--work-ms', 5);
    $failer = new DatabaseUuidFailedJobProvider($capsule->getDatabaseManager(), 'default', 'failed_jobs');
    $app->instance('queue.failer', $failer);
    $events->listen(JobFailed::class, function ($event) use ($failer) {   // as WorkCommand does
        $failer->log($event->connectionName, $event->job->getQueue(), $event->job->getRawBody(), $event->exception);
    });
    $worker = new Worker($queue->getQueueManager(), $events, new ExceptionHandler, function () { return false; });
    $opts = new WorkerOptions('default', 1, 128, 60, 0, 3);   // --backoff=1 --tries=3 --sleep=0
    while (!($stop && file_exists($stop))) {
        try {
            $worker->runNextJob('default', $queues, $opts);
        } catch (Throwable $e) {
            logThrowable($e);
        }
        usleep(2000);
    }
    exit(0);
}
fwrite(STDERR, "unknown role $role\n");
exit(2);
