import { In, type EntityManager } from 'typeorm';
import { FailedPrecondition, NotFound } from '@svc/kit';
import { LabelRow } from '../entities';

/**
 * The rules of putting labels on a message or a thread: every wanted label is one of the org's (NOT_FOUND naming
 * `field`, also for another org's), and an archived label may stay where it is but cannot be newly applied (`added`).
 */
export async function requireApplicableLabels(
  manager: EntityManager,
  orgId: string,
  wanted: string[],
  added: string[],
  field: string,
): Promise<void> {
  const labels = wanted.length ? await manager.findBy(LabelRow, { orgId, id: In(wanted) }) : [];
  if (labels.length !== wanted.length) throw new NotFound('label not found', { field });
  if (labels.some((label) => label.archivedAt && added.includes(label.id)))
    throw new FailedPrecondition('an archived label cannot be applied; restore it first', { field });
}
