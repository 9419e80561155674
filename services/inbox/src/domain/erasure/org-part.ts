import { OrgRowsErasure, orgRowsPart, type OrgErasurePart } from '@svc/kit';
import { BlobDeletionRow, MediaRow } from '../../entities';
import type { BlobDeletions } from '../blob-deletions';

/**
 * What the inbox deletes of a deprovisioned org (docs/erasure.md "Erasing an org", decision 0222): every row of its
 * conversations, chats, messages, notes, edits, reactions, labels, collections, search terms, read positions, visitor
 * event logs, media and erased-contact tombstones. The pending blob deletions name blob keys, not orgs.
 */
export const INBOX_ORG_ROWS = new OrgRowsErasure({ noOrgData: [BlobDeletionRow] });

/**
 * The inbox's org part: the media bytes go durably after the commit, as for a contact (decision 0166): their keys are
 * recorded in `blob_deletions` in the erasure's transaction and deleted once it committed, or by the next sweep.
 */
export function inboxOrgPart(blobDeletions: BlobDeletions): OrgErasurePart {
  return orgRowsPart('inbox', INBOX_ORG_ROWS, {
    beforeDelete: async (manager, { orgId }) => {
      const media = await manager.find(MediaRow, { select: { blobKey: true }, where: { orgId } });
      const keys = media.map((row) => row.blobKey);
      await blobDeletions.record(manager, keys);
      return keys.length ? () => blobDeletions.discard(keys) : undefined;
    },
  });
}
