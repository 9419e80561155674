import type { DataSource } from 'typeorm';
import { entitySql, isDuplicateKeyError, type EntitySql } from '@svc/kit';
import { LeaseRow } from '../../entities';

/**
 * A named lease in the `leases` table (docs/decisions/0191): one holder at a time, until `expires_at`. Taking it is a
 * conditional update (free, expired, or already ours), or the insert of its row the first time; a holder that dies
 * simply stops renewing, and the lease passes to another after it expires.
 */
export class Lease {
  private readonly leases: EntitySql<LeaseRow>;

  constructor(
    private readonly dataSource: DataSource,
    readonly name: string,
    readonly holder: string,
    private readonly leaseMs: number,
  ) {
    this.leases = entitySql(dataSource, LeaseRow);
  }

  /** Takes or renews the lease at `at`: true when this holder holds it until `at + leaseMs`. */
  async acquire(at: Date): Promise<boolean> {
    const expiresAt = new Date(at.getTime() + this.leaseMs);
    const manager = this.dataSource.manager;
    const taken = await this.leases.update(
      manager,
      { holder: this.holder, expiresAt },
      { name: this.name },
      {
        sql: `(${this.leases.column('holder')} = ? OR ${this.leases.column('expiresAt')} <= ?)`,
        parameters: [this.holder, this.leases.value('expiresAt', at)],
      },
    );
    if (taken > 0) return true;
    try {
      await this.leases.insert(manager, [{ name: this.name, holder: this.holder, expiresAt }]);
      return true;
    } catch (error) {
      // Another holder's row: it holds the lease (the update above found it unexpired).
      if (isDuplicateKeyError(error)) return false;
      throw error;
    }
  }

  /** Gives the lease up (a clean stop), so another holder takes it at once rather than after it expires. */
  async release(at: Date): Promise<void> {
    await this.leases.update(this.dataSource.manager, { expiresAt: at }, { name: this.name, holder: this.holder });
  }
}
