import type { Logger } from '@svc/kit';
import type { Stack } from './stack';

/**
 * Benchmark-only control of a stack process (`tests/bench/stack-process.ts`), over the Node IPC channel its parent
 * opened — never over a port. `npm run bench:ingress` uses it to measure the public webhook endpoint as a
 * webhook-ingress replica sees it: flows' consumer of `svc.webhooks.received.v1` is paused for the measured window
 * (accepted events wait on the bus, as they would in Kafka while flows is scaled down or busy) and resumed afterwards
 * (flows then runs every one of them, exactly once: decision 0010). The same `FlowsApp.stopConsumer()` /
 * `startConsumer()` the end-to-end suite uses. Off unless `SVC_BENCH_CONTROL=ipc`; production never sets it.
 */
export type BenchCommand = 'pause-flows-consumer' | 'resume-flows-consumer';

export interface BenchRequest {
  id: number;
  command: BenchCommand;
}

export interface BenchReply {
  id: number;
  ok: boolean;
  error?: string;
}

function isBenchRequest(message: unknown): message is BenchRequest {
  const m = message as Partial<BenchRequest> | null;
  return typeof m?.id === 'number' && (m.command === 'pause-flows-consumer' || m.command === 'resume-flows-consumer');
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
