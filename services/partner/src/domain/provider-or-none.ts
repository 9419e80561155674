import { NotFound } from '@svc/kit';

/**
 * The TECH_PROVIDER org managing `orgId`, or '' when it is nobody's client org, an org identity does not know
 * included: it has nobody to tell or bill, so the fan-out sends nothing and usage counts nothing of its events instead
 * of retrying them until they are dead-lettered, which held up every event behind them (docs/decisions/0281).
 * Identity keeps every org row, deprovisioned ones too, so in one installation this is an org that never existed there.
 * Any other failure (identity down, a deadline) still throws, and the bus redelivers.
 */
export async function providerOrNone(providerOf: (orgId: string) => Promise<string>, orgId: string): Promise<string> {
  try {
    return await providerOf(orgId);
  } catch (error) {
    if (error instanceof NotFound) return '';
    throw error;
  }
}
