import {
  GraphQLNonNull,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isRequiredInputField,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputField,
  type GraphQLInputType,
} from 'graphql';
import { argumentValues, randomId, type ValuePath } from './argument-values';

/**
 * Where a root field takes ids of the org's objects, found from its types (docs/decisions/0043): an argument or input
 * field is id-valued when its name is `id`, `_id`, or ends in `Id`, `Ids` or `_id`, or when its description says it
 * carries "the id(s) of" something (a flow step's `label`). Free ids the caller makes up itself are not references.
 */

/** The kinds of object an org owns that an id can name. */
export const OBJECT_KINDS = [
  'chat',
  'conversation',
  'message',
  'label',
  'collection',
  'media',
  'contact',
  'flow',
  'connection',
  'member',
  'key',
  'channel',
  'template',
  'peopleField',
  'helpArticle',
  'helpFolder',
  'helpTag',
  'newsCategory',
  'newsTag',
  'newsPost',
  'partnerWebhook',
  'partnerDelivery',
] as const;
export type ObjectKind = (typeof OBJECT_KINDS)[number];

/**
 * `<input type>.<field>` ids that name nothing stored: the caller's own key for a contact, a button's own id, the
 * Google OAuth client id a web integration accepts as audience.
 */
export const FREE_IDS = new Set([
  'ContactApiInput.externalId',
  'MessageButtonInput.id',
  'WebSecurityInput.googleClientId',
  // A messaging platform's own ids of the account being connected (its phone number, business account, page, app).
  'ConnectChatAppAChannelInput.phoneNumberId',
  'ConnectChatAppAChannelInput.businessAccountId',
  'ConnectSocialAppDChannelInput.pageId',
  'ConnectSocialAppDChannelInput.appId',
]);

const ID_NAME = /^_?id$|[a-z0-9](Id|Ids|_id|_ids)$/;
/**
 * "the id of a chat of the org", "CHAT_ID: the id of …": the kind is the word after the article; a leading enum value
 * says the field is an id only when a sibling field holds that value (a Chat ID identity's `value`).
 */
const ID_DESCRIPTION = /^(?:([A-Z][A-Z_]+): )?.*?\bthe ids? of (?:an? |the )?(?:active )?(?:inbound )?(\w+)/;

/** A field name's stem (`operatorId` → `operator`) and the kind it names, by the words the schema uses. */
const KIND_OF_STEM: [RegExp, ObjectKind][] = [
  [/^(channel|channelIntegration)$/i, 'channel'],
  [/^(chat|deletedChat)$/i, 'chat'],
  [/^conversation$/i, 'conversation'],
  [/^message$/i, 'message'],
  [/^label$/i, 'label'],
  [/^collection$/i, 'collection'],
  [/^media$/i, 'media'],
  [/^contact$/i, 'contact'],
  [/^flow$/i, 'flow'],
  [/^connection$/i, 'connection'],
  [/^(member|operator|assignee|uploader|author|reactor|editor)$/i, 'member'],
  [/^key$/i, 'key'],
  [/^template$/i, 'template'],
  // A people field definition (`definitionId`).
  [/^(definition|peopleFieldDefinition)$/i, 'peopleField'],
  [/^(article|helpArticle)$/i, 'helpArticle'],
  [/^(folder|helpFolder)$/i, 'helpFolder'],
  [/^(category|newsCategory)$/i, 'newsCategory'],
  [/^helpTag$/i, 'helpTag'],
  [/^newsTag$/i, 'newsTag'],
  [/^(webhook|partnerWebhook)$/i, 'partnerWebhook'],
  [/^(delivery|partnerWebhookDelivery)$/i, 'partnerDelivery'],
];

/** Stems whose kind depends on the operation: a help article's `tagIds` are help tags, a news post's news tags. */
const KIND_OF_STEM_IN: [RegExp, RegExp, ObjectKind][] = [
  [/^tag$/i, /News/, 'newsTag'],
  [/^tag$/i, /Help/, 'helpTag'],
];

/** For a bare `id`: the object the operation is about, by the words of its name (most specific first). */
const KIND_OF_OPERATION: [RegExp, ObjectKind][] = [
  [/PartnerWebhookDelivery/, 'partnerDelivery'],
  [/PartnerWebhook/, 'partnerWebhook'],
  [/[Nn]ewsPost/, 'newsPost'],
  [/PeopleFieldDefinition/, 'peopleField'],
  [/HelpArticle/, 'helpArticle'],
  [/HelpFolder/, 'helpFolder'],
  [/HelpTag/, 'helpTag'],
  [/NewsCategory/, 'newsCategory'],
  [/NewsTag/, 'newsTag'],
  [/InboundConnection/, 'connection'],
  [/Template/, 'template'],
  [/Channel$|WebIntegration/, 'channel'],
  [/Collection/, 'collection'],
  [/Conversation/, 'conversation'],
  [/Contact/, 'contact'],
  [/Label/, 'label'],
  [/Media/, 'media'],
  [/Message/, 'message'],
  [/Member/, 'member'],
  [/Key/, 'key'],
  [/Flow/, 'flow'],
  [/Chat/, 'chat'],
];

/** An id of `kind` that names nothing, shaped like a real one (a partner delivery's is its `webhook-id`, `msg_…`). */
export function unknownIdOf(kind: ObjectKind): string {
  return kind === 'partnerDelivery' ? `msg_${randomId()}` : randomId();
}

export interface IdSlot {
  /** Argument name, then input field names, `0` for a list element. */
  path: ValuePath;
  /** A sibling field that must hold an enum value for the field to carry an id (`type: CHAT_ID`). */
  when?: { field: string; value: string };
  /** The kinds it can name: one when the name says which, every kind when it does not (a new word). */
  kinds: readonly ObjectKind[];
  /** A list of ids (`labelIds`) rather than one. */
  list: boolean;
}

const stemKind = (stem: string, operation = '') =>
  KIND_OF_STEM_IN.find(([words, within]) => words.test(stem) && within.test(operation))?.[2] ??
  KIND_OF_STEM.find(([words]) => words.test(stem))?.[1];

/** Whether a field carries ids and of what, from its name or its description; undefined when it carries none. */
function idField(
  owner: string,
  field: GraphQLArgument | GraphQLInputField,
  siblings: readonly GraphQLInputField[],
  operation: string,
): Pick<IdSlot, 'kinds' | 'when'> | undefined {
  if (FREE_IDS.has(`${owner}.${field.name}`)) return undefined;
  const described = ID_DESCRIPTION.exec(field.description ?? '');
  if (described) {
    const [, condition, word] = described;
    const kind = stemKind(word ?? '', operation);
    const switcher = siblings.find((sibling) => {
      const type = getNamedType(sibling.type);
      return condition !== undefined && isEnumType(type) && type.getValue(condition) !== undefined;
    });
    return {
      kinds: kind ? [kind] : kindsOf(field.name, operation),
      ...(switcher && condition ? { when: { field: switcher.name, value: condition } } : {}),
    };
  }
  return ID_NAME.test(field.name) ? { kinds: kindsOf(field.name, operation) } : undefined;
}

/** The kinds an id-valued name can name: a bare `id` or a `parentId` names the kind the operation is about. */
export function kindsOf(name: string, operation: string): readonly ObjectKind[] {
  const stem = name.replace(/(_?ids?|Ids?)$/, '');
  const byOperation = KIND_OF_OPERATION.find(([words]) => words.test(operation))?.[1];
  if (!stem || /^parent$/i.test(stem)) return byOperation ? [byOperation] : OBJECT_KINDS;
  return [stemKind(stem, operation) ?? OBJECT_KINDS].flat();
}

function unwrapList(type: GraphQLInputType): { list: boolean; inner: GraphQLInputType } {
  const bare = isNonNullType(type) ? type.ofType : type;
  return isListType(bare) ? { list: true, inner: bare.ofType as GraphQLInputType } : { list: false, inner: bare };
}

/** Every id-valued argument and input field of a root field, nested input objects included (each type once). */
export function idSlots(field: GraphQLField<unknown, unknown>): IdSlot[] {
  const slots: IdSlot[] = [];
  const visit = (
    owner: string,
    fields: readonly (GraphQLArgument | GraphQLInputField)[],
    at: ValuePath,
    seen: string[],
    siblings: readonly GraphQLInputField[],
  ) => {
    for (const child of fields) {
      const { list, inner } = unwrapList(child.type);
      const path = [...at, child.name];
      const named = getNamedType(inner);
      if (isInputObjectType(named)) {
        if (seen.includes(named.name)) continue;
        const nested = list ? [...path, 0] : path;
        const fields = Object.values(named.getFields());
        visit(named.name, fields, nested, [...seen, named.name], fields);
        continue;
      }
      const id = idField(owner, child, siblings, field.name);
      if (id) slots.push({ path, list, ...id });
    }
  };
  visit(field.name, field.args, [], [], []);
  return slots;
}

/**
 * A `fill` for argument-values that puts one of the caller's own objects wherever an id-valued name is required, so
 * the only foreign id in a call is the one under test. `own` answers undefined for a kind the caller has none of.
 */
export function ownIdFill(
  operation: string,
  own: (kind: ObjectKind) => string | undefined,
): (path: ValuePath, type: GraphQLInputType) => unknown {
  return (path, type) => {
    const name = [...path].reverse().find((segment): segment is string => typeof segment === 'string') ?? '';
    if (!ID_NAME.test(name)) return undefined;
    const id = kindsOf(name, operation)
      .map(own)
      .find((found) => found !== undefined);
    if (id === undefined) return undefined;
    return unwrapList(type).list ? [id] : id;
  };
}

/** A value to put at a path (relative to where it is used), with the sibling enum value it needs. */
export interface Assignment {
  path: ValuePath;
  value: unknown;
  when?: IdSlot['when'];
}

/**
 * A value of `type` with its required fields generated (argument-values' rules, ids by `fill`), and every assigned
 * path present even where optional, ending in its value (the containers on the way built the same way).
 */
export function valueWith(
  type: GraphQLInputType,
  at: ValuePath,
  assignments: readonly Assignment[],
  fill: (path: ValuePath, type: GraphQLInputType) => unknown,
): unknown {
  const here = assignments.find((assignment) => !assignment.path.length);
  if (here) return here.value;
  const bare = isNonNullType(type) ? type.ofType : type;
  const rest = (segment: string | number) =>
    assignments.filter((a) => a.path[0] === segment).map((a) => ({ ...a, path: a.path.slice(1) }));
  if (isListType(bare)) return [valueWith(bare.ofType as GraphQLInputType, [...at, 0], rest(0), fill)];
  if (!isInputObjectType(bare)) return assignments[0]?.value;
  const fields = bare.getFields();
  const value: Record<string, unknown> = {};
  for (const field of Object.values(fields).filter(isRequiredInputField))
    value[field.name] = generated(field.type, [...at, field.name], fill);
  for (const name of new Set(assignments.map((a) => String(a.path[0])))) {
    const field = fields[name];
    if (field) value[name] = valueWith(field.type, [...at, name], rest(name), fill);
  }
  for (const { path, when } of assignments) if (path.length === 1 && when) value[when.field] = when.value;
  return value;
}

/** argument-values' value for one type at a path (as if it were a required argument there). */
function generated(
  type: GraphQLInputType,
  at: ValuePath,
  fill: (path: ValuePath, type: GraphQLInputType) => unknown,
): unknown {
  const name = String(at[at.length - 1]);
  const required = isNonNullType(type) ? type : new GraphQLNonNull(type);
  const probe = { name, args: [{ name, type: required, defaultValue: undefined }] };
  const { values } = argumentValues(probe as unknown as GraphQLField<unknown, unknown>, {
    fill: (path, inner) => fill([...at.slice(0, -1), ...path], inner),
  });
  return values[name];
}
