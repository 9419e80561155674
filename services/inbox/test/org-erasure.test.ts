import { expect } from 'chai';
import type { Readable } from 'node:stream';
import type { DataSource } from 'typeorm';
import {
  checkServiceOrgPart,
  createLogger,
  dropTestDatabase,
  fillOrgRows,
  newId,
  openDataSource,
  testDbUrl,
  testOrgErasure,
} from '@svc/kit';
import { inboxData } from '../src/data';
import { BlobDeletions } from '../src/domain/blob-deletions';
import { INBOX_ORG_ROWS, inboxOrgPart } from '../src/domain/erasure/org-part';
import { BlobDeletionRow, MediaRow } from '../src/entities';
import type { BlobStore } from '../src/storage/blob-store';

/** Blob storage in memory that can be made to fail (a storage outage). */
class MemoryBlobs implements BlobStore {
  readonly keys = new Set<string>();
  failing = false;
  async put(key: string): Promise<void> {
    this.keys.add(key);
  }
  async open(): Promise<Readable | undefined> {
    return undefined;
  }
  async delete(key: string): Promise<void> {
    if (this.failing) throw new Error('storage down');
    this.keys.delete(key);
  }
  async healthy(): Promise<boolean> {
    return true;
  }
}

describe('inbox: erasing a deprovisioned org (docs/erasure.md "Erasing an org", decisions 0221, 0166)', () => {
  const url = testDbUrl('inbox_org_erasure');
  let dataSource: DataSource;
  let blobs: MemoryBlobs;
  let deletions: BlobDeletions;

  before(async () => {
    dataSource = await openDataSource({ ...inboxData, url }, { migrate: true });
  });
  beforeEach(() => {
    blobs = new MemoryBlobs();
    deletions = new BlobDeletions(dataSource, blobs, createLogger('inbox-org-erasure-test', 'silent'));
  });
  after(async () => {
    await dataSource.destroy();
    await dropTestDatabase(url);
  });

  it('deletes every row of the org in every table and its media bytes, nothing of another org; again: zeros', async () => {
    let left: string[] = [];
    await checkServiceOrgPart(inboxData, INBOX_ORG_ROWS, (own) => {
      const part = inboxOrgPart(new BlobDeletions(own, blobs, createLogger('inbox-org-erasure-test', 'silent')));
      return {
        service: part.service,
        erase: async (manager, erasure) => {
          // Every media row has its bytes, as after an upload; the other org's are what must be left.
          const media = await manager.find(MediaRow);
          for (const row of media) await blobs.put(row.blobKey);
          left = media.filter((row) => row.orgId !== erasure.orgId).map((row) => row.blobKey);
          return part.erase(manager, erasure);
        },
      };
    });
    expect([...blobs.keys].sort(), "only the other org's bytes are left").to.deep.equal(left.sort());
  });

  it('keeps the bytes to delete recorded when storage fails after the commit; the sweep deletes them', async () => {
    const orgId = newId();
    await fillOrgRows(dataSource, orgId, INBOX_ORG_ROWS, 1);
    const [media] = await dataSource.manager.findBy(MediaRow, { orgId });
    if (!media) throw new Error('no media row filled');
    await blobs.put(media.blobKey);
    blobs.failing = true;
    const part = inboxOrgPart(deletions);
    const erased = await dataSource.transaction((manager) => part.erase(manager, testOrgErasure(orgId)));
    await erased.afterCommit?.();
    expect(await dataSource.manager.countBy(MediaRow, { orgId })).to.equal(0);
    expect(blobs.keys.has(media.blobKey)).to.equal(true);
    expect(await dataSource.manager.countBy(BlobDeletionRow, { blobKey: media.blobKey })).to.equal(1);
    blobs.failing = false;
    expect(await deletions.sweep()).to.equal(1);
    expect(blobs.keys.has(media.blobKey)).to.equal(false);
  });
});
