import { ChannelType } from '@svc/proto/channels/v1';
import type { PlatformChannelType } from '../entities/platform-channel';

/** Which connected channels a part of an app-level webhook is for. */
export type AccountRef =
  /** The channel whose account is this id (CHAT_APP_A phone number id, SOCIAL_APP_D page id). */
  | { by: 'account'; id: string }
  /** Every CHAT_APP_A channel of this business account (template status updates name no number). */
  | { by: 'business_account'; id: string };

export interface WebhookPart {
  ref: AccountRef;
  /** One entry of the platform's envelope, narrowed to what concerns `ref`. */
  entry: Record<string, unknown>;
}

export interface SplitWebhook {
  object: unknown;
  parts: WebhookPart[];
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const idOf = (value: unknown): string | undefined =>
  typeof value === 'string' && value ? value : typeof value === 'number' ? String(value) : undefined;

/**
 * Splits a Graph API webhook (`{object, entry: [...]}`) delivered to the installation's app by the account each part
 * is about (decision 0146). CHAT_APP_A: each change of an entry on its own, by `value.metadata.phone_number_id`, else
 * (template status updates) by the entry's business account id. SOCIAL_APP_D: each entry by its page id. Throws when
 * the body is not that envelope; an entry or change naming no account is left out.
 */
export function splitAppWebhook(type: PlatformChannelType, rawBody: Buffer): SplitWebhook {
  const body: unknown = JSON.parse(rawBody.toString('utf8'));
  if (!isObject(body) || !Array.isArray(body.entry)) throw new Error('not a Graph API webhook: entry[] missing');
  const parts: WebhookPart[] = [];
  for (const entry of body.entry) {
    if (!isObject(entry)) continue;
    const entryId = idOf(entry.id);
    if (type === ChannelType.SOCIAL_APP_D) {
      if (entryId) parts.push({ ref: { by: 'account', id: entryId }, entry });
      continue;
    }
    for (const change of Array.isArray(entry.changes) ? entry.changes : []) {
      const value: unknown = isObject(change) ? change.value : undefined;
      const metadata: unknown = isObject(value) ? value.metadata : undefined;
      const number = isObject(metadata) ? idOf(metadata.phone_number_id) : undefined;
      const ref: AccountRef | undefined = number
        ? { by: 'account', id: number }
        : entryId
          ? { by: 'business_account', id: entryId }
          : undefined;
      if (ref) parts.push({ ref, entry: { ...entry, changes: [change] } });
    }
  }
  return { object: body.object, parts };
}

/** One channel's share, in the platform's own envelope so the channel's adapter parses it as if sent to it alone. */
export function channelBody(object: unknown, entries: Json[]): Buffer {
  return Buffer.from(JSON.stringify({ object, entry: entries }));
}
