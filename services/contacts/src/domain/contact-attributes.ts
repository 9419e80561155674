import type { EntityManager } from 'typeorm';
import { Counter, Forbidden, PrincipalKind, metricsRegistry, type Logger, type Principal } from '@svc/kit';
import { AttributeSource } from '@svc/proto/contacts/v1';
import type { ContactRow } from '../entities';
import { writePeopleFieldValues, type ValuePatch, type ValueWriteOptions } from './people-fields';

/** The widget's attributes a lenient write left out, by reason (never the key's value: it is personal data). */
export const skippedAttributes = new Counter({
  name: 'svc_contacts_attributes_skipped_total',
  help: 'Custom attribute entries a lenient write (the widget profile) left out, by reason.',
  labelNames: ['reason'] as const,
  registers: [metricsRegistry],
});

const fieldOf = (key: string) => `customAttributes.${key}`;

/** What a write of `customAttributes` does with its values: the source's parsing, and rejecting or skipping. */
export interface AttributeWrite {
  options: Omit<ValueWriteOptions, 'creating'>;
  /** A member or key creating a contact gives every required field; services creating one for a visitor cannot. */
  requireOnCreate: boolean;
}

/**
 * How a caller's attributes are read (docs/decisions/0156): the API's typed JSON, refused at the first invalid entry;
 * flows' text, refused the same way; the widget's text, invalid entries left out. Only services pick the source.
 */
export function attributeWriteOf(principal: Principal, source: AttributeSource | undefined): AttributeWrite {
  const system = principal.kind === PrincipalKind.SYSTEM;
  const chosen = source ?? AttributeSource.ATTRIBUTE_SOURCE_UNSPECIFIED;
  if (!system && chosen !== AttributeSource.ATTRIBUTE_SOURCE_UNSPECIFIED)
    throw new Forbidden('only services of this installation may choose how attributes are read');
  switch (chosen) {
    case AttributeSource.ATTRIBUTE_SOURCE_TEXT:
      return { options: { source: 'text', onInvalid: 'reject', fieldOf }, requireOnCreate: false };
    case AttributeSource.ATTRIBUTE_SOURCE_TEXT_LENIENT:
      return { options: { source: 'text', onInvalid: 'skip', fieldOf }, requireOnCreate: false };
    default:
      return { options: { source: 'json', onInvalid: 'reject', fieldOf }, requireOnCreate: !system };
  }
}

/**
 * Writes a contact's `customAttributes` through the one validating write of people field values, inside the
 * contact's transaction. Entries a lenient write left out are logged by key and reason, and counted.
 */
export async function writeContactAttributes(
  manager: EntityManager,
  row: ContactRow,
  patch: ValuePatch | undefined,
  write: AttributeWrite,
  creating: boolean,
  logger: Logger,
): Promise<void> {
  const requireAll = creating && write.requireOnCreate;
  if (!patch && !requireAll) return;
  const result = await writePeopleFieldValues(manager, row.orgId, row.id, patch ?? {}, {
    ...write.options,
    creating: requireAll,
  });
  for (const skipped of result.skipped) {
    skippedAttributes.inc({ reason: skipped.reason });
    logger.warn({ contactId: row.id, key: skipped.key, reason: skipped.reason }, 'custom attribute left out');
  }
}
