<?php
/*
 * SPDX-License-Identifier: MIT
 *
 * A real Symfony Messenger client for the stress test (issue 40, Proof):
 * Debian 12's php-symfony-messenger and php-symfony-doctrine-messenger 5.4
 * (the Doctrine transport: Connection, DoctrineTransport, DoctrineReceiver,
 * DoctrineSender) on php-doctrine-dbal 3.6 (pdo_sqlite, php8.2-sqlite3), with
 * php-symfony-event-dispatcher (the worker's events), set up as
 * tests/data/generate/symfony-messenger/make_messenger.php does: a MessageBus
 * with SendMessageMiddleware and HandleMessageMiddleware, the Worker with the
 * listeners a framework app registers (SendFailedMessageForRetryListener,
 * SendFailedMessageToFailureTransportListener with the failure transport
 * `failed`, the same table with queue_name 'failed').
 *
 *   php messenger_client.php check
 *   php messenger_client.php create   FILE
 *   php messenger_client.php producer FILE --log L --stop S [--pause-ms M]
 *                                          [--poison-percent P] [--slow-percent P]
 *   php messenger_client.php worker   FILE --log L --stop S [--redeliver-timeout S]
 *                                          [--fail-percent P] [--work-ms M]
 *
 * Transports: async => doctrine://default (queue_name 'default'),
 * async_priority_high => ...?queue_name=high, failed => ...?queue_name=failed,
 * all with the same redeliver_timeout. Retries: MultiplierRetryStrategy(2,
 * 1000 ms, x1), then the failure transport.
 *
 * Every log line is one fwrite on a file opened for appending, flushed (it
 * survives a kill -9; several processes share the log), starting with the
 * process id and the time (Unix seconds with microseconds), then:
 *   sent   KEY ID QUEUE RETRIES  a sender (DoctrineSender::send) stored a row: the
 *                                producer's dispatch, a retry, the failure transport
 *   put    KEY KIND              the producer's dispatch returned
 *   run    KEY ID RETRIES        the handler started (ID: the row delivered)
 *   done   KEY ID                the handler returned; the worker acks (deletes) next
 *   fail   KEY ID                the handler threw
 *   acked  KEY ID                DoctrineReceiver::ack returned (the row deleted)
 *   rejected KEY ID              DoctrineReceiver::reject returned (the row deleted)
 *   ackerr KEY ID TEXT           ack or reject threw (the row stays delivered)
 *   busy   TEXT                  Worker::run threw "database is locked" (reported; the
 *                                loop starts a new Worker, as a supervisor restarts one)
 *   oops   TEXT                  anything else
 * The worker stops at its next loop when the stop file exists.
 */
namespace {
set_include_path('/usr/share/php');
$role = $argv[1] ?? null;
$file = $argv[2] ?? null;
foreach (['Symfony/Component/Messenger/autoload.php', 'Symfony/Component/EventDispatcher/autoload.php',
          'Doctrine/DBAL/autoload.php', 'Psr/Container/autoload.php'] as $lib) {
    if (!stream_resolve_include_path($lib)) {
        echo "missing: $lib\n";
        exit(3);
    }
    require_once $lib;
}
if (!extension_loaded('pdo_sqlite')) {
    echo "missing: the pdo_sqlite extension (php8.2-sqlite3)\n";
    exit(3);
}
if (!class_exists('Symfony\Component\Messenger\Bridge\Doctrine\Transport\Connection')) {
    echo "missing: symfony/doctrine-messenger (php-symfony-doctrine-messenger)\n";
    exit(3);
}
if ($role === 'check') {
    echo "php ", PHP_VERSION, ", symfony/messenger with the Doctrine transport on doctrine/dbal\n";
    exit(0);
}
if (!$role || !$file) {
    fwrite(STDERR, "usage: messenger_client.php check|create|producer|worker FILE ...\n");
    exit(2);
}
date_default_timezone_set('UTC');
}

namespace App {

use Symfony\Component\Messenger\Envelope;
use Symfony\Component\Messenger\Middleware\MiddlewareInterface;
use Symfony\Component\Messenger\Middleware\StackInterface;
use Symfony\Component\Messenger\Stamp\RedeliveryStamp;
use Symfony\Component\Messenger\Stamp\TransportMessageIdStamp;
use Symfony\Component\Messenger\Transport\Receiver\ReceiverInterface;
use Symfony\Component\Messenger\Transport\Sender\SenderInterface;

final class Log
{
    private static $f;
    public static function open(string $path): void { self::$f = fopen($path, 'a'); }
    public static function line(string $s): void
    {
        fwrite(self::$f, getmypid() . ' ' . sprintf('%.6f', microtime(true)) . ' ' . $s . "\n");
        fflush(self::$f);
    }
}

// Two message classes, each routed to one transport.
class StressMessage
{
    public $key;
    public $kind;
    public function __construct(string $key, string $kind) { $this->key = $key; $this->kind = $kind; }
}
final class Stress extends StressMessage {}
final class UrgentStress extends StressMessage {}

function idOf(Envelope $e): string
{
    $s = $e->last(TransportMessageIdStamp::class);
    return $s ? (string) $s->getId() : '?';
}
function retriesOf(Envelope $e): int
{
    $s = $e->last(RedeliveryStamp::class);
    return $s ? $s->getRetryCount() : 0;
}

/** The envelope being handled, for the handler's log lines. */
final class Current implements MiddlewareInterface
{
    public static $envelope;
    public function handle(Envelope $envelope, StackInterface $stack): Envelope
    {
        self::$envelope = $envelope;
        return $stack->next()->handle($envelope, $stack);
    }
}

final class Handler
{
    public static $failPercent = 15;
    public static $workMs = 20;
    public function __invoke(StressMessage $m): void
    {
        $e = Current::$envelope;
        Log::line("run {$m->key} " . idOf($e) . ' ' . retriesOf($e));
        usleep($m->kind === 'slow' ? 1000000 : self::$workMs * 1000);
        if ($m->kind === 'poison' || random_int(1, 100) <= self::$failPercent) {
            Log::line("fail {$m->key} " . idOf($e));
            throw new \RuntimeException("stress failure of {$m->key}");
        }
        Log::line("done {$m->key} " . idOf($e));
    }
}

/** A transport's sender, logging each row it stores. */
final class LoggingSender implements SenderInterface
{
    private $inner;
    private $queue;
    public function __construct(SenderInterface $inner, string $queue) { $this->inner = $inner; $this->queue = $queue; }
    public function send(Envelope $envelope): Envelope
    {
        $sent = $this->inner->send($envelope);
        Log::line("sent {$sent->getMessage()->key} " . idOf($sent) . " {$this->queue} " . retriesOf($sent));
        return $sent;
    }
}

/** A transport's receiver, logging each ack and reject once it returned. */
final class LoggingReceiver implements ReceiverInterface
{
    private $inner;
    public function __construct(ReceiverInterface $inner) { $this->inner = $inner; }
    public function get(): iterable { return $this->inner->get(); }
    public function ack(Envelope $envelope): void { $this->done('acked', 'ack', $envelope); }
    public function reject(Envelope $envelope): void { $this->done('rejected', 'reject', $envelope); }
    private function done(string $verb, string $method, Envelope $envelope): void
    {
        $what = $envelope->getMessage()->key . ' ' . idOf($envelope);
        try {
            $this->inner->$method($envelope);
        } catch (\Throwable $e) {
            Log::line("ackerr $what " . str_replace("\n", ' ', get_class($e) . ': ' . $e->getMessage()));
            throw $e;
        }
        Log::line("$verb $what");
    }
}

final class Locator implements \Psr\Container\ContainerInterface
{
    private $items;
    public function __construct(array $items) { $this->items = $items; }
    public function get($id) { return $this->items[$id]; }
    public function has($id): bool { return isset($this->items[$id]); }
}
}

namespace {
use Doctrine\DBAL\DriverManager;
use Symfony\Component\EventDispatcher\EventDispatcher;
use Symfony\Component\Messenger\Bridge\Doctrine\Transport\Connection;
use Symfony\Component\Messenger\Bridge\Doctrine\Transport\DoctrineTransport;
use Symfony\Component\Messenger\Event\WorkerRunningEvent;
use Symfony\Component\Messenger\EventListener\SendFailedMessageForRetryListener;
use Symfony\Component\Messenger\EventListener\SendFailedMessageToFailureTransportListener;
use Symfony\Component\Messenger\Handler\HandlersLocator;
use Symfony\Component\Messenger\MessageBus;
use Symfony\Component\Messenger\Middleware\HandleMessageMiddleware;
use Symfony\Component\Messenger\Middleware\SendMessageMiddleware;
use Symfony\Component\Messenger\Retry\MultiplierRetryStrategy;
use Symfony\Component\Messenger\Transport\Sender\SendersLocator;
use Symfony\Component\Messenger\Transport\Serialization\PhpSerializer;
use Symfony\Component\Messenger\Worker;
use App\Log;

function opt(array $argv, string $name, $default)
{
    $i = array_search($name, $argv, true);
    return $i === false ? $default : $argv[$i + 1];
}

function report(Throwable $e): void
{
    $text = str_replace("\n", ' ', get_class($e) . ': ' . $e->getMessage());
    Log::line((str_contains($text, 'database is locked') ? 'busy ' : 'oops ') . substr($text, 0, 300));
}

$dbal = DriverManager::getConnection(['driver' => 'pdo_sqlite', 'path' => $file,
                                      'driverOptions' => [PDO::ATTR_TIMEOUT => 10]]);
$timeout = (int) opt($argv, '--redeliver-timeout', 3);
$dsn = ['async' => 'default', 'async_priority_high' => 'high', 'failed' => 'failed'];
$serializer = new PhpSerializer();
$transports = [];
foreach ($dsn as $name => $queue) {
    $config = Connection::buildConfiguration("doctrine://default?queue_name=$queue"
        . "&redeliver_timeout=$timeout&auto_setup=0");
    $transports[$name] = new DoctrineTransport(new Connection($config, $dbal), $serializer);
}

if ($role === 'create') {
    @unlink($file);
    $dbal->executeStatement('PRAGMA journal_mode = WAL');
    $transports['failed']->setup(); // messenger:setup-transports: Connection::setup()
    exit(0);
}

Log::open(opt($argv, '--log', 'php://stdout'));
$stop = opt($argv, '--stop', '');
$senders = [];
foreach ($dsn as $name => $queue) {
    $senders[$name] = new App\LoggingSender($transports[$name], $queue);
}
$routing = [App\Stress::class => ['async'], App\UrgentStress::class => ['async_priority_high']];
$handler = new App\Handler();
$bus = new MessageBus([
    new SendMessageMiddleware(new SendersLocator($routing, new App\Locator($senders))),
    new App\Current(),
    new HandleMessageMiddleware(new HandlersLocator([App\Stress::class => [$handler],
                                                     App\UrgentStress::class => [$handler]])),
]);

if ($role === 'producer') {
    $pause = (int) opt($argv, '--pause-ms', 30);
    $poison = (int) opt($argv, '--poison-percent', 5);
    $slow = (int) opt($argv, '--slow-percent', 0);
    for ($n = 0; !($stop && file_exists($stop)); $n++) {
        $p = random_int(0, 99);
        $kind = $p < $poison ? 'poison' : ($p < $poison + $slow ? 'slow' : 'ok');
        $key = "m$n";
        try {
            $bus->dispatch($n % 3 === 0 ? new App\UrgentStress($key, $kind) : new App\Stress($key, $kind));
            Log::line("put $key $kind");
        } catch (Throwable $e) {
            report($e);
        }
        usleep($pause * 1000);
    }
    exit(0);
}

if ($role === 'worker') {
    App\Handler::$failPercent = (int) opt($argv, '--fail-percent', 15);
    App\Handler::$workMs = (int) opt($argv, '--work-ms', 20);
    $retry = new App\Locator(array_fill_keys(array_keys($dsn), new MultiplierRetryStrategy(2, 1000, 1)));
    $failure = new App\Locator(['async' => $senders['failed'], 'async_priority_high' => $senders['failed']]);
    $receivers = ['async_priority_high' => new App\LoggingReceiver($transports['async_priority_high']),
                  'async' => new App\LoggingReceiver($transports['async'])];
    while (!($stop && file_exists($stop))) {
        // messenger:consume async_priority_high async, with a framework
        // app's failure listeners; stopped by the stop file.
        $events = new EventDispatcher();
        $events->addSubscriber(new SendFailedMessageForRetryListener(new App\Locator($senders), $retry));
        $events->addSubscriber(new SendFailedMessageToFailureTransportListener($failure));
        $events->addListener(WorkerRunningEvent::class, function (WorkerRunningEvent $e) use ($stop) {
            if ($stop && file_exists($stop)) {
                $e->getWorker()->stop();
            }
        });
        try {
            (new Worker($receivers, $bus, $events))->run(['sleep' => 50000]);
        } catch (Throwable $e) {
            report($e);
            usleep(50000);
        }
    }
    exit(0);
}
fwrite(STDERR, "unknown role $role\n");
exit(2);
}
