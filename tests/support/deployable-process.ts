import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { eventually } from '@svc/kit';

export interface DeployableProcess {
  /** SIGKILL: no shutdown at all. Its consumers stay members of their groups until their session times out. */
  kill(): Promise<void>;
  /**
   * SIGTERM, the graceful stop: its consumers leave their groups, so the next stack on the same topics joins at once
   * instead of waiting out a dead member's session (30 s by default).
   */
  stop(): Promise<void>;
  /** What it logged (its JSON lines), the last 100 000 characters at most. */
  output(): string;
}

/**
 * One service's deployable (`services/<service>/dist/src/main.js`) in its own process with `env` added to this one's,
 * started once it logged `<service> started`.
 */
export async function startDeployable(service: string, env: Record<string, string>): Promise<DeployableProcess> {
  const main = path.resolve(__dirname, `../../../services/${service}/dist/src/main.js`);
  const child = spawn(process.execPath, [main], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
    if (output.length > 100_000) output = output.slice(-10_000);
  });
  await eventually(async () => output.includes(`${service} started`), 60_000, `the ${service} process to start`);
  return {
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
    output: () => output,
  };
}
