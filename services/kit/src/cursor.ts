import { InvalidArgument } from './errors';
import { isId } from './ids';

/** A position in a list ordered by (timestamp, id): opaque to clients, validated when it comes back. */
export interface KeysetPosition {
  at: Date;
  id: string;
}

export function encodeCursor(position: KeysetPosition): string {
  return Buffer.from(`${position.at.getTime()}:${position.id}`).toString('base64url');
}

export function decodeCursor(cursor: string): KeysetPosition {
  const decoded = Buffer.from(cursor, 'base64url').toString('utf8');
  const [millis, id, extra] = decoded.split(':');
  const at = Number(millis);
  if (extra !== undefined || !Number.isSafeInteger(at) || at < 0 || !isId(id)) {
    throw new InvalidArgument('cursor is not a cursor this API returned', { field: 'cursor' });
  }
  return { at: new Date(at), id };
}
