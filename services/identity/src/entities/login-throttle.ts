import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A login token bucket (docs/decisions/0049-login-throttle.md): one per email and one per client address, kept in
 * identity's database so every gateway and identity replica spends from the same one. `holder` is a hash, never the
 * email or address itself; `version` makes each write a compare-and-set.
 */
@Entity('login_throttles')
@Index('ix_login_throttles_at', ['atMs'])
export class LoginThrottleRow {
  @PrimaryColumn({ type: 'varchar', length: 64 }) holder!: string;
  @Column({ type: 'double' }) tokens!: number;
  /** When `tokens` was computed, in epoch milliseconds. */
  @Column({ type: 'double', name: 'at_ms' }) atMs!: number;
  @Column({ type: 'int' }) version!: number;
}
