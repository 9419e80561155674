import bcrypt from 'bcrypt';

type Compare = (data: string, encrypted: string) => Promise<boolean>;

/**
 * Wraps `bcrypt.compare` (the verifier calls it through the module object) so a test can count comparisons, see how
 * many ran at once, and — when `held` — keep every comparison from finishing until `release()`. `restore()` puts the
 * real one back.
 */
export function watchBcrypt({ held = false } = {}) {
  const real = bcrypt.compare as Compare;
  const gates: (() => void)[] = [];
  const stats = { calls: 0, running: 0, mostAtOnce: 0 };
  let open = !held;
  (bcrypt as { compare: Compare }).compare = async (data, encrypted) => {
    stats.calls += 1;
    stats.running += 1;
    stats.mostAtOnce = Math.max(stats.mostAtOnce, stats.running);
    try {
      if (!open) await new Promise<void>((resolve) => gates.push(resolve));
      return await real(data, encrypted);
    } finally {
      stats.running -= 1;
    }
  };
  return {
    stats,
    /** Lets every held comparison (and every later one) finish. */
    release() {
      open = true;
      for (const pass of gates.splice(0)) pass();
    },
    restore() {
      (bcrypt as { compare: Compare }).compare = real;
    },
  };
}

/** Lets pending promise callbacks and I/O of this turn run, so "still waiting" is observed, not assumed. */
export const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
