import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import type { BlobStore } from './blob-store';

const KEY = /^[0-9a-f]{24}\/[0-9a-f]{24}$/;

/**
 * Blobs as files under one directory: `<root>/<orgId>/<mediaId>`. A put writes a temporary file, syncs it and renames
 * it into place, so a crash leaves either the whole blob or none.
 */
export class LocalDiskBlobStore implements BlobStore {
  constructor(private readonly root: string) {}

  async put(key: string, bytes: Buffer): Promise<void> {
    const target = this.pathOf(key);
    await fs.mkdir(path.dirname(target), { recursive: true });
    const temporary = `${target}.${randomBytes(6).toString('hex')}.partial`;
    const file = await fs.open(temporary, 'wx', 0o640);
    try {
      await file.writeFile(bytes);
      await file.sync();
    } finally {
      await file.close();
    }
    try {
      await fs.rename(temporary, target);
    } catch (error) {
      await fs.rm(temporary, { force: true });
      throw error;
    }
  }

  async open(key: string): Promise<Readable | undefined> {
    const file = this.pathOf(key);
    try {
      await fs.access(file);
    } catch {
      return undefined;
    }
    return createReadStream(file);
  }

  async delete(key: string): Promise<void> {
    await fs.rm(this.pathOf(key), { force: true });
  }

  async healthy(): Promise<boolean> {
    await fs.mkdir(this.root, { recursive: true });
    await fs.access(this.root, fs.constants.W_OK);
    return true;
  }

  private pathOf(key: string): string {
    // Keys are built from ids, never from user input; the check keeps a bug from escaping the root.
    if (!KEY.test(key)) throw new Error(`invalid blob key ${key}`);
    return path.join(this.root, key);
  }
}
