import * as path from 'node:path';
import Mocha from 'mocha';

/**
 * A mocha reporter that says where a run's time goes: in `before` hooks (mostly starting stacks), `after` hooks
 * (mostly stopping them) and tests, per suite file, with the slowest hooks and files. It prints mocha's usual `spec`
 * output first, so a failure still reads as usual. For the CI measurements in docs/performance.md:
 *
 *   npx mocha --config .mocharc.e2e.json --reporter tests/dist/support/timing-reporter.js
 *
 * `TIMING_TOP` (default 15) sets how many hooks and files are listed.
 */
type HookKind = 'before' | 'after' | 'beforeEach' | 'afterEach';

interface Timed {
  label: string;
  file: string;
  ms: number;
}

const { EVENT_HOOK_BEGIN, EVENT_HOOK_END, EVENT_TEST_END, EVENT_RUN_BEGIN, EVENT_RUN_END } = Mocha.Runner.constants;

class TimingReporter extends Mocha.reporters.Spec {
  constructor(runner: Mocha.Runner, options?: Mocha.MochaOptions) {
    super(runner, options);
    const hookStarts = new Map<Mocha.Hook, number>();
    const hooks: (Timed & { kind: HookKind })[] = [];
    const tests: Timed[] = [];
    let runStart = 0;

    runner.on(EVENT_RUN_BEGIN, () => {
      runStart = performance.now();
    });
    runner.on(EVENT_HOOK_BEGIN, (hook: Mocha.Hook) => {
      hookStarts.set(hook, performance.now());
    });
    runner.on(EVENT_HOOK_END, (hook: Mocha.Hook) => {
      const started = hookStarts.get(hook);
      if (started === undefined) return;
      hookStarts.delete(hook);
      hooks.push({
        kind: hookKind(hook),
        label: hook.fullTitle(),
        file: fileOf(hook),
        ms: performance.now() - started,
      });
    });
    // A test's `duration` leaves out its beforeEach/afterEach hooks, which are timed above.
    runner.on(EVENT_TEST_END, (test: Mocha.Test) => {
      tests.push({ label: test.fullTitle(), file: fileOf(test), ms: test.duration ?? 0 });
    });
    runner.once(EVENT_RUN_END, () => {
      printSummary(hooks, tests, performance.now() - runStart);
    });
  }
}

function hookKind(hook: Mocha.Hook): HookKind {
  // Mocha titles hooks '"before all" hook…', '"after each" hook…'.
  const title = hook.title;
  if (title.startsWith('"before all"')) return 'before';
  if (title.startsWith('"after all"')) return 'after';
  if (title.startsWith('"before each"')) return 'beforeEach';
  return 'afterEach';
}

function fileOf(runnable: Mocha.Runnable): string {
  // Root hooks (tests/support/shared-stack.ts) belong to no file.
  return runnable.file ? path.basename(runnable.file) : '(root)';
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

function sum(items: readonly Timed[]): number {
  return items.reduce((total, item) => total + item.ms, 0);
}

function top<T extends Timed>(items: readonly T[], count: number): T[] {
  return [...items].sort((a, b) => b.ms - a.ms).slice(0, count);
}

function printSummary(hooks: readonly (Timed & { kind: HookKind })[], tests: readonly Timed[], totalMs: number): void {
  const count = Number(process.env.TIMING_TOP ?? 15);
  const of = (kind: HookKind) => hooks.filter((hook) => hook.kind === kind);
  const lines: string[] = ['', 'Timing (tests/support/timing-reporter.ts)'];
  lines.push(`  total                  ${seconds(totalMs)}`);
  lines.push(`  before hooks (all)     ${seconds(sum(of('before')))}  (${of('before').length})`);
  lines.push(`  after hooks (all)      ${seconds(sum(of('after')))}  (${of('after').length})`);
  lines.push(`  beforeEach hooks       ${seconds(sum(of('beforeEach')))}`);
  lines.push(`  afterEach hooks        ${seconds(sum(of('afterEach')))}`);
  lines.push(`  tests                  ${seconds(sum(tests))}  (${tests.length})`);

  for (const kind of ['before', 'after'] as const) {
    lines.push('', `  slowest ${kind} hooks:`);
    for (const hook of top(of(kind), count))
      lines.push(`    ${seconds(hook.ms).padStart(8)}  ${hook.file}  ${hook.label}`);
  }

  const files = new Map<string, { before: number; after: number; each: number; tests: number }>();
  for (const item of [...hooks, ...tests]) {
    const row = files.get(item.file) ?? { before: 0, after: 0, each: 0, tests: 0 };
    if (!('kind' in item)) row.tests += item.ms;
    else if (item.kind === 'before') row.before += item.ms;
    else if (item.kind === 'after') row.after += item.ms;
    else row.each += item.ms;
    files.set(item.file, row);
  }
  const fileTotals = [...files].map(([file, row]) => ({
    label: `before ${seconds(row.before)}, after ${seconds(row.after)}, each-hooks ${seconds(row.each)}, tests ${seconds(row.tests)}`,
    file,
    ms: row.before + row.after + row.each + row.tests,
  }));
  lines.push('', '  slowest files (before / after / each-hooks / tests):');
  for (const file of top(fileTotals, count))
    lines.push(`    ${seconds(file.ms).padStart(8)}  ${file.file}  ${file.label}`);
  console.log(lines.join('\n'));
}

export = TimingReporter;
