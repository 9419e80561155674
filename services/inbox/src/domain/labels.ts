import type { DataSource, EntityManager } from 'typeorm';
import {
  Conflict,
  InvalidArgument,
  enqueueEvents,
  idsOfOrg,
  isDuplicateKeyError,
  keysetPage,
  newId,
  now,
  requireOrg,
  requireScope,
  toIso,
  toIsoOrUndefined,
  type NewEvent,
  type OutboxRelay,
  type PageRequest,
  type Principal,
} from '@svc/kit';
import { ApiScope } from '@svc/proto/common/v1';
import type { Label, LabelPage } from '@svc/proto/inbox/v1/labels';
import { LabelRow } from '../entities';
import { labelEvent } from './events';
import { findLabel } from './lookups';

export const DEFAULT_LABEL_COLOR = '#6b7280';
const COLOR = /^#[0-9a-f]{6}$/i;

export function labelView(row: LabelRow): Label {
  return {
    _id: row.id,
    name: row.name,
    color: row.color,
    description: row.description ?? undefined,
    archived: row.archivedAt !== null,
    archivedAt: toIsoOrUndefined(row.archivedAt),
    createdAt: toIso(row.createdAt),
    updatedAt: toIso(row.updatedAt),
  };
}

function validName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed || trimmed.length > 64) throw new InvalidArgument('name must be 1-64 characters', { field: 'name' });
  return trimmed;
}

function validColor(color: string): string {
  if (!COLOR.test(color)) throw new InvalidArgument('color must be a #rrggbb hex colour', { field: 'color' });
  return color.toLowerCase();
}

function validDescription(description: string): string | null {
  if (description.length > 500)
    throw new InvalidArgument('description must be at most 500 characters', { field: 'description' });
  return description.trim() || null;
}

/** The org's labels: names unique per org regardless of case; archive/restore instead of delete. */
export class Labels {
  constructor(
    private readonly dataSource: DataSource,
    private readonly relay: () => OutboxRelay,
  ) {}

  /** Oldest first; `activeOnly` leaves archived labels out. */
  async list(principal: Principal, page: PageRequest, activeOnly: boolean): Promise<LabelPage> {
    requireScope(principal, ApiScope.MESSAGES_READ);
    const orgId = requireOrg(principal);
    const query = this.dataSource.getRepository(LabelRow).createQueryBuilder('l').where('l.orgId = :orgId', { orgId });
    if (activeOnly) query.andWhere('l.archivedAt IS NULL');
    const rows = await keysetPage(
      query,
      { at: 'l.createdAt', id: 'l.id' },
      (r) => ({ at: r.createdAt, id: r.id }),
      page,
    );
    return { ...rows, data: rows.data.map(labelView) };
  }

  /** Which of `labelIds` name labels of the org, archived or not (SYSTEM callers: flows checks its label steps). */
  find(principal: Principal, labelIds: string[]): Promise<string[]> {
    return idsOfOrg(principal, this.dataSource.manager, LabelRow, labelIds, 'labelIds');
  }

  async get(principal: Principal, labelId: string): Promise<Label> {
    requireScope(principal, ApiScope.MESSAGES_READ);
    return labelView(await findLabel(this.dataSource.manager, requireOrg(principal), labelId));
  }

  async create(
    principal: Principal,
    input: { name: string; color?: string | undefined; description?: string | undefined },
  ): Promise<Label> {
    return this.write(principal, async (manager, orgId, at) => {
      // Validated once the scope is checked: a caller without it learns nothing from its arguments.
      const name = validName(input.name);
      const color = input.color === undefined ? DEFAULT_LABEL_COLOR : validColor(input.color);
      const description = input.description === undefined ? null : validDescription(input.description);
      const row = manager.create(LabelRow, {
        id: newId(at),
        orgId,
        name,
        nameKey: name.toLowerCase(),
        color,
        description,
        archivedAt: null,
        createdAt: at,
        updatedAt: at,
      });
      await manager.insert(LabelRow, row);
      return { row, events: [labelEvent('label.created', row)] };
    });
  }

  async update(
    principal: Principal,
    labelId: string,
    input: { name?: string | undefined; color?: string | undefined; description?: string | undefined },
  ): Promise<Label> {
    return this.write(principal, async (manager, orgId, at) => {
      const name = input.name === undefined ? undefined : validName(input.name);
      const color = input.color === undefined ? undefined : validColor(input.color);
      const description = input.description === undefined ? undefined : validDescription(input.description);
      const row = await findLabel(manager, orgId, labelId);
      const changes: Partial<LabelRow> = {};
      if (name !== undefined && name !== row.name) Object.assign(changes, { name, nameKey: name.toLowerCase() });
      if (color !== undefined && color !== row.color) changes.color = color;
      if (description !== undefined && description !== row.description) changes.description = description;
      if (!Object.keys(changes).length) return { row, events: [] };
      Object.assign(row, changes, { updatedAt: at });
      await manager.update(LabelRow, { id: row.id }, { ...changes, updatedAt: at });
      return { row, events: [labelEvent('label.updated', row)] };
    });
  }

  async archive(principal: Principal, labelId: string): Promise<Label> {
    return this.setArchived(principal, labelId, true);
  }

  async restore(principal: Principal, labelId: string): Promise<Label> {
    return this.setArchived(principal, labelId, false);
  }

  /** Idempotent: archiving an archived label (or restoring an active one) changes nothing. */
  private setArchived(principal: Principal, labelId: string, archived: boolean): Promise<Label> {
    return this.write(principal, async (manager, orgId, at) => {
      const row = await findLabel(manager, orgId, labelId);
      if ((row.archivedAt !== null) === archived) return { row, events: [] };
      row.archivedAt = archived ? at : null;
      row.updatedAt = at;
      await manager.update(LabelRow, { id: row.id }, { archivedAt: row.archivedAt, updatedAt: at });
      return { row, events: [labelEvent(archived ? 'label.archived' : 'label.restored', row)] };
    });
  }

  private async write(
    principal: Principal,
    apply: (manager: EntityManager, orgId: string, at: Date) => Promise<{ row: LabelRow; events: NewEvent[] }>,
  ): Promise<Label> {
    requireScope(principal, ApiScope.CONVERSATIONS_MANAGE);
    const orgId = requireOrg(principal);
    try {
      const row = await this.dataSource.transaction(async (manager) => {
        const at = now();
        const result = await apply(manager, orgId, at);
        await enqueueEvents(manager, result.events, at);
        return result.row;
      });
      this.relay().nudge();
      return labelView(row);
    } catch (error) {
      if (isDuplicateKeyError(error)) throw new Conflict('a label with this name exists', { field: 'name' });
      throw error;
    }
  }
}
