import { decidingProof, type VisitorIdentity } from '@svc-inbox/widget-protocol';
import { WidgetApiError } from './errors.js';
import { call, type Fetch } from './http.js';
import type { TokenStorage } from './storage.js';
import type { VisitorProfile, VisitorSession } from './types.js';

/** What the client keeps in storage: the refresh token and whether its session is identified. Nothing else. */
export interface StoredSession {
  refreshToken: string;
  identified: boolean;
}

/** The storage key of an integration's session (one per public key, so two widgets on a page do not collide). */
export function storageKey(publicKey: string): string {
  return `svc-widget:${publicKey}:session`;
}

export function readStored(storage: TokenStorage, publicKey: string): StoredSession | null {
  const raw = storage.get(storageKey(publicKey));
  if (!raw) return null;
  try {
    const parsed = JSON.parse(raw) as Partial<StoredSession>;
    if (typeof parsed.refreshToken !== 'string' || !parsed.refreshToken) return null;
    return { refreshToken: parsed.refreshToken, identified: parsed.identified === true };
  } catch {
    return null;
  }
}

export function writeStored(storage: TokenStorage, publicKey: string, session: StoredSession): void {
  storage.set(storageKey(publicKey), JSON.stringify(session));
}

export function forgetStored(storage: TokenStorage, publicKey: string): void {
  storage.remove(storageKey(publicKey));
}

/**
 * The handshake body of an identified visitor: the profile and only the proof that decides (spec 2.4:
 * `googleIdToken`, else `jwt`, else `userId` + `userHash`), so a weaker proof never travels next to a stronger one.
 * No proof: refused here, as the server would (`400`).
 */
export function identifiedBody(
  publicKey: string,
  user: VisitorIdentity,
  refreshToken?: string,
): Record<string, unknown> {
  const proof = decidingProof(user);
  if (proof === null) {
    const field = user.userId !== undefined ? 'userHash' : user.userHash !== undefined ? 'userId' : 'googleIdToken';
    throw new WidgetApiError(400, 'BAD_USER_INPUT', 'identify needs googleIdToken, jwt, or userId with userHash', {
      field,
    });
  }
  const proofFields =
    proof === 'userHash' ? { userId: user.userId, userHash: user.userHash } : { [proof]: user[proof] };
  return {
    publicKey,
    ...proofFields,
    name: user.name,
    email: user.email,
    phone: user.phone,
    attributes: user.attributes,
    refreshToken,
  };
}

/** The four session calls of docs/widget-api.md. */
export class SessionCalls {
  constructor(
    private readonly fetcher: Fetch,
    private readonly base: string,
    private readonly publicKey: string,
  ) {}

  async startAnonymous(profile: VisitorProfile = {}, refreshToken?: string): Promise<VisitorSession> {
    const { name, email, phone } = profile;
    return this.session('/visitor/start-anonymous', { publicKey: this.publicKey, refreshToken, name, email, phone });
  }

  startIdentified(user: VisitorIdentity, refreshToken?: string): Promise<VisitorSession> {
    return this.session('/visitor/start-identified', identifiedBody(this.publicKey, user, refreshToken));
  }

  refresh(refreshToken: string): Promise<VisitorSession> {
    return this.session('/visitor/refresh', { publicKey: this.publicKey, refreshToken });
  }

  async end(refreshToken: string): Promise<void> {
    await call(this.fetcher, `${this.base}/visitor/end`, { body: { publicKey: this.publicKey, refreshToken } });
  }

  private async session(path: string, body: Record<string, unknown>): Promise<VisitorSession> {
    const answer = await call<VisitorSession>(this.fetcher, `${this.base}${path}`, { body });
    if (!answer.body) throw new WidgetApiError(answer.status, 'INTERNAL_SERVER_ERROR', 'empty handshake answer');
    return answer.body;
  }
}
