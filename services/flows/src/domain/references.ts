import { FlowStepType, type FlowStep } from '@svc/proto/flows/v1';

/**
 * The org's objects a flow names, each asked of the service that owns it (SYSTEM principal of the org): members of
 * identity (`FindMembers`), labels of the inbox (`FindLabels`), inbound connections of webhook-ingress
 * (`FindInboundConnections`), people fields of contacts (`ListPeopleFieldDefinitions`, by key). Each answers the ids
 * (keys) among those asked that are the org's: another org's id and an unknown one are both simply not found.
 */
export interface OrgDirectory {
  members(orgId: string, ids: string[]): Promise<string[]>;
  labels(orgId: string, ids: string[]): Promise<string[]>;
  connections(orgId: string, ids: string[]): Promise<string[]>;
  peopleFields(orgId: string, keys: string[]): Promise<string[]>;
}

export type ReferenceKind = keyof OrgDirectory;

/** One id a flow stores, and the input field that carries it. */
export interface Reference {
  kind: ReferenceKind;
  id: string;
  field: string;
}

/**
 * The ids a flow names, in the order written: the trigger's connection, then each step's label, assignee or people
 * field (the key a "set a contact attribute" step writes, decision 0158).
 */
export function referencesOf(connectionId: string | null, steps: FlowStep[]): Reference[] {
  const references: Reference[] = connectionId
    ? [{ kind: 'connections', id: connectionId, field: 'trigger.connectionId' }]
    : [];
  steps.forEach((step, index) => {
    const field = `steps[${index}]`;
    if (step.type === FlowStepType.ASSIGN && step.assigneeId)
      references.push({ kind: 'members', id: step.assigneeId, field });
    if (step.type === FlowStepType.ADD_LABEL && step.label) references.push({ kind: 'labels', id: step.label, field });
    if (step.type === FlowStepType.SET_CONTACT_ATTRIBUTE && step.attributeKey)
      references.push({ kind: 'peopleFields', id: step.attributeKey.trim(), field });
  });
  return references;
}

/**
 * The first reference (in the order written) that names nothing of the org, or undefined: at most one question per
 * kind of object, asked in parallel, none for a kind the flow does not name.
 */
export async function firstStranger(
  directory: OrgDirectory,
  orgId: string,
  references: Reference[],
): Promise<Reference | undefined> {
  const kinds = [...new Set(references.map((reference) => reference.kind))];
  const found = new Map(
    await Promise.all(
      kinds.map(async (kind) => {
        const ids = [...new Set(references.filter((r) => r.kind === kind).map((r) => r.id))];
        return [kind, new Set(await directory[kind](orgId, ids))] as const;
      }),
    ),
  );
  return references.find((reference) => !found.get(reference.kind)?.has(reference.id));
}

/** How a refusal names a reference that is not the org's: `now` at authoring, `since` when publishing. */
export function strangerMessage(reference: Reference, when: 'now' | 'since'): string {
  const { field } = reference;
  switch (reference.kind) {
    case 'members':
      return when === 'now'
        ? `${field} assigns someone who is not a member of this org`
        : `${field} assigns someone who is no longer a member of this org; choose another assignee`;
    case 'labels':
      return when === 'now'
        ? `${field} adds a label that is not one of this org`
        : `${field} adds a label that is no longer one of this org; choose another label`;
    case 'connections':
      return when === 'now'
        ? `${field} names no inbound connection of this org`
        : `${field} names an inbound connection that no longer exists; choose another connection`;
    case 'peopleFields':
      return when === 'now'
        ? `${field} sets an attribute that is not a people field of this org`
        : `${field} sets an attribute that is no longer a people field of this org; choose another field`;
  }
}
