/**
 * Preloaded (`node -r tests/dist/bench/memory-probe.js`) into a server a bench spawns with an IPC channel: answers the
 * stack's `memory` bench command (`services/stack/src/bench-control.ts`) with the process's memory after a full GC
 * (when node runs with `--expose-gc`), so a process without the stack's bench control (the bare baseline, a standalone
 * widget-api) is measured the same way. Loads nothing else: the baseline's heap stays bare.
 */
import type { ChildProcess } from 'node:child_process';
import type { BenchMemory, BenchReply, BenchRequest } from '@svc/stack';

export const MEMORY_PROBE = __filename;

/** A server process a bench spawned with the probe preloaded. */
export interface ProbedServerProcess {
  pid: number;
  url: string;
  /** Its memory after a full GC when started with `--expose-gc`. */
  memory(): Promise<BenchMemory>;
  stop(): Promise<void>;
}

if (process.send) {
  process.on('message', (message: BenchRequest) => {
    if (message.command !== 'memory') return;
    const gc = (globalThis as { gc?: () => void }).gc;
    gc?.();
    const { rss, heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage();
    const memory = { rss, heapUsed, heapTotal, external, arrayBuffers, collected: gc !== undefined };
    process.send?.({ id: message.id, ok: true, memory } satisfies BenchReply);
  });
  // The IPC channel must not keep the server alive once it has stopped serving.
  process.channel?.unref();
}

let lastId = 0;

/** Asks a child spawned with an IPC channel and this probe preloaded for its memory. */
export function askMemory(child: ChildProcess): Promise<BenchMemory> {
  lastId += 1;
  const id = lastId;
  return new Promise<BenchMemory>((resolve, reject) => {
    const onReply = (reply: BenchReply) => {
      if (reply.id !== id) return;
      child.off('message', onReply);
      if (reply.memory) resolve(reply.memory);
      else reject(new Error(`process ${child.pid ?? '?'} answered no memory`));
    };
    child.on('message', onReply);
    child.send({ id, command: 'memory' } satisfies BenchRequest);
  });
}
