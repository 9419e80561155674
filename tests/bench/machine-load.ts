import * as os from 'node:os';

/**
 * The machine's load average (1, 5 and 15 min) and core count, printed by every bench before and after its run: a busy
 * machine flatters a ratio against a bare baseline, so a figure without the load it was taken under cannot be compared.
 */
export function machineLoad(): string {
  const [one, five, fifteen] = os.loadavg().map((n) => n.toFixed(2));
  return `${one} / ${five} / ${fifteen} (1 / 5 / 15 min) on ${os.cpus().length} cores`;
}
