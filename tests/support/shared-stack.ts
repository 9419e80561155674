import { StackHarness } from './stack-harness';

/**
 * One whole stack for the e2e files that need nothing of their own (docs/decisions/0210): started by the first file
 * that asks, reused by the files after it, stopped when any other stack starts (`StackHarness.beforeStart`) or after
 * the last file by the root hook below; a later file asking again gets a new one. Each file still makes its own orgs,
 * so its tests see only their own data. A file that sets service settings, stops or kills services, controls the clock
 * or holds consumers keeps its own `new StackHarness(...)`.
 *
 * The hook is registered by `.mocharc.e2e.json` (`require`), which `npm run test:e2e` and `npm run test:infra` use.
 */
let shared: { harness: StackHarness; started: Promise<StackHarness> } | undefined;
let rootHookRan = false;

export function sharedStack(): Promise<StackHarness> {
  // Without the root hook nothing would stop the stack and mocha would never exit.
  if (!rootHookRan)
    throw new Error('sharedStack() needs mocha --require tests/dist/support/shared-stack.js (see .mocharc.e2e.json)');
  if (!shared) {
    const harness = new StackHarness();
    shared = { harness, started: harness.start().then(() => harness) };
  }
  return shared.started;
}

async function stopSharedStack(): Promise<void> {
  const stopping = shared;
  shared = undefined;
  // A start that failed was reported by the file that asked; there is nothing to stop.
  const harness = await stopping?.started.catch(() => undefined);
  await harness?.stop();
}

StackHarness.beforeStart = async (starting) => {
  if (shared && starting !== shared.harness) await stopSharedStack();
};

/** Mocha root hooks (https://mochajs.org/#root-hook-plugins). */
export const mochaHooks = {
  beforeAll(): void {
    rootHookRan = true;
  },
  afterAll: stopSharedStack,
};
