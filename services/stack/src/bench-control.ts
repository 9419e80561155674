import type { Logger } from '@svc/kit';
import type { Stack } from './stack';

/**
 * Benchmark-only control of a stack process (`tests/bench/stack-process.ts`), over the Node IPC channel its parent
 * opened — never over a port. `npm run bench:ingress` uses it to measure the public webhook endpoint as a
 * webhook-ingress replica sees it: flows' consumer of `svc.webhooks.received.v1` is paused for the measured window
 * (accepted events wait on the bus, as they would in Kafka while flows is scaled down or busy) and resumed afterwards
 * (flows then runs every one of them, exactly once: decision 0010). The same `FlowsApp.stopConsumer()` /
 * `startConsumer()` the end-to-end suite uses. `npm run bench:realtime` asks for the process's memory (`memory`). Off unless `SVC_BENCH_CONTROL=ipc`; production never sets it.
 */
export type BenchCommand = 'pause-flows-consumer' | 'resume-flows-consumer' | 'memory';

/** `memory`: the process's memory after a full GC (when node runs with `--expose-gc`), as `bench:realtime` compares it. */
export interface BenchMemory {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  /** Whether a full GC ran first (node started with `--expose-gc`). */
  collected: boolean;
}

export interface BenchRequest {
  id: number;
  command: BenchCommand;
}

export interface BenchReply {
  id: number;
  ok: boolean;
  error?: string;
  memory?: BenchMemory;
}

const COMMANDS: readonly string[] = ['pause-flows-consumer', 'resume-flows-consumer', 'memory'];

function isBenchRequest(message: unknown): message is BenchRequest {
  const m = message as Partial<BenchRequest> | null;
  return typeof m?.id === 'number' && typeof m.command === 'string' && COMMANDS.includes(m.command);
}

/** Collects garbage (when exposed), then reads the process's memory: as the bare baseline server (tests/bench/bare-server.ts) does. */
function benchMemory(): BenchMemory {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const { rss, heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage();
  return { rss, heapUsed, heapTotal, external, arrayBuffers, collected: gc !== undefined };
}

/**
 * Answers each of the parent's commands once done: a pause once the consumer has left its group (it takes no further
 * event; a batch it was handling still finishes), a resume once it has joined again.
 */
export function serveBenchControl(stack: Stack, logger: Logger): void {
  const send = process.send?.bind(process);
  if (!send) throw new Error('SVC_BENCH_CONTROL=ipc needs a parent process with an IPC channel');
  process.on('message', (message: unknown) => {
    if (!isBenchRequest(message)) return;
    if (message.command === 'memory') {
      send({ id: message.id, ok: true, memory: benchMemory() } satisfies BenchReply);
      return;
    }
    const work = message.command === 'pause-flows-consumer' ? stack.flows.stopConsumer() : stack.flows.startConsumer();
    work.then(
      () => send({ id: message.id, ok: true } satisfies BenchReply),
      (error: unknown) => {
        logger.error({ err: error, command: message.command }, 'bench command failed');
        send({ id: message.id, ok: false, error: String(error) } satisfies BenchReply);
      },
    );
  });
  logger.warn('benchmark control is on (SVC_BENCH_CONTROL=ipc): the parent process can pause flows');
}
