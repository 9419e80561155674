import { randomBytes } from 'node:crypto';

const processRandom = randomBytes(5);
let counter = randomBytes(3).readUIntBE(0, 3);

/**
 * A 24-hex id shaped like a MongoDB ObjectId: 4 bytes of seconds, 5 random bytes per process, a 3-byte counter.
 * Ids therefore sort roughly by creation time, which keeps B-tree inserts append-mostly.
 */
export function newId(now: Date = new Date()): string {
  const bytes = Buffer.alloc(12);
  bytes.writeUInt32BE(Math.floor(now.getTime() / 1000), 0);
  processRandom.copy(bytes, 4);
  counter = (counter + 1) % 0x1000000;
  bytes.writeUIntBE(counter, 9, 3);
  return bytes.toString('hex');
}

/** The smallest id `newId` makes at `at` or later: ids below it were made before `at` (to the second). */
export function firstIdAt(at: Date): string {
  return Math.floor(at.getTime() / 1000)
    .toString(16)
    .padStart(8, '0')
    .padEnd(24, '0');
}

const ID_PATTERN = /^[0-9a-f]{24}$/;

export function isId(value: unknown): value is string {
  return typeof value === 'string' && ID_PATTERN.test(value);
}
