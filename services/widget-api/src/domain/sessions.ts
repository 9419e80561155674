import { createHash, randomBytes } from 'node:crypto';
import { IsNull, type DataSource, type Repository } from 'typeorm';
import { Unauthenticated, entitySql, newId, type PreparedSelect } from '@svc/kit';
import { VisitorSessionRow } from '../entities';

/** A refresh token presented again this soon after it was rotated is taken for a race (two tabs), not for theft. */
const ROTATION_RACE_MS = 60_000;

export interface NewSession {
  orgId: string;
  channelId: string;
  contactId: string;
  userId: string;
}

export interface IssuedSession {
  session: VisitorSessionRow;
  refreshToken: string;
}

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');
const newRefreshToken = () => `wrt_${randomBytes(32).toString('base64url')}`;

/**
 * Visitor sessions and their refresh tokens (docs/decisions/0086): a refresh token is 256 random bits, stored as its
 * SHA-256, valid WIDGET_REFRESH_TTL_SECONDS and replaced on every use (compare-and-set on the hash, so of two
 * concurrent uses one wins). Presenting the token before the current one, later than a race would explain, ends the
 * session: a copied token stops working for the thief and the owner alike.
 */
export class Sessions {
  private readonly rows: Repository<VisitorSessionRow>;
  /** Every visitor request and stream open asks it: a statement prepared once, no query builder per call. */
  private readonly idOf: PreparedSelect<Pick<VisitorSessionRow, 'id'>>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly ttlMs: number,
    private readonly clock: () => number = Date.now,
  ) {
    this.rows = dataSource.getRepository(VisitorSessionRow);
    const sql = entitySql(dataSource, VisitorSessionRow);
    this.idOf = sql.prepareSelect(['id'], `WHERE ${sql.column('id')} = ?`);
  }

  async create(input: NewSession): Promise<IssuedSession> {
    const now = new Date(this.clock());
    const refreshToken = newRefreshToken();
    const session = this.rows.create({
      id: newId(),
      ...input,
      refreshHash: hashOf(refreshToken),
      previousRefreshHash: null,
      generation: 0,
      expiresAt: new Date(now.getTime() + this.ttlMs),
      endedAt: null,
      createdAt: now,
      updatedAt: now,
    });
    await this.rows.insert(session);
    return { session, refreshToken };
  }

  /** The live session a refresh token names on this integration, without rotating it; undefined otherwise. */
  async current(refreshToken: string, channelId: string): Promise<VisitorSessionRow | undefined> {
    const session = await this.rows.findOneBy({ refreshHash: hashOf(refreshToken), endedAt: IsNull() });
    if (!session || session.channelId !== channelId || session.expiresAt.getTime() <= this.clock()) return undefined;
    return session;
  }

  /** A new refresh token for the session the given one names; Unauthenticated when it is unknown, old or ended. */
  async rotate(refreshToken: string, channelId: string): Promise<IssuedSession> {
    const presented = hashOf(refreshToken);
    const session = await this.current(refreshToken, channelId);
    if (!session) {
      await this.endIfReplayed(presented);
      throw new Unauthenticated('refresh token refused');
    }
    const now = new Date(this.clock());
    const next = newRefreshToken();
    const result = await this.rows
      .createQueryBuilder()
      .update()
      .set({
        refreshHash: hashOf(next),
        previousRefreshHash: presented,
        generation: session.generation + 1,
        expiresAt: new Date(now.getTime() + this.ttlMs),
        updatedAt: now,
      })
      .where('id = :id AND refresh_hash = :presented', { id: session.id, presented })
      .execute();
    if (!result.affected) throw new Unauthenticated('refresh token already used');
    return { session: { ...session, refreshHash: hashOf(next), updatedAt: now }, refreshToken: next };
  }

  /** Whether the session's row is there (ended or not): an erasure deletes the contact's rows (decision 0173). */
  async exists(sessionId: string): Promise<boolean> {
    return (await this.idOf.all(this.dataSource.manager, [sessionId])).length > 0;
  }

  async end(sessionId: string): Promise<void> {
    await this.rows.update({ id: sessionId, endedAt: IsNull() }, { endedAt: new Date(this.clock()) });
  }

  /** Ends the session whose previous token this is, unless it was rotated just now (two tabs refreshing at once). */
  private async endIfReplayed(presentedHash: string): Promise<void> {
    const rotated = await this.rows.findOneBy({ previousRefreshHash: presentedHash, endedAt: IsNull() });
    if (rotated && this.clock() - rotated.updatedAt.getTime() > ROTATION_RACE_MS) await this.end(rotated.id);
  }

  /** Drops sessions expired or ended for a day (their refresh tokens are useless). */
  async prune(): Promise<number> {
    const before = new Date(this.clock() - 86_400_000);
    const result = await this.rows
      .createQueryBuilder()
      .delete()
      .where('expires_at < :before OR ended_at < :before', { before })
      .execute();
    return result.affected ?? 0;
  }
}
