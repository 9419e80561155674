import { isPrefill, isVisitorIdentity, type Prefill, type VisitorIdentity } from './identity.js';
import { hasOnlyKeys, hasOwn, isPlainObject, isText, type PlainObject } from './shape.js';

/**
 * The envelope's version. Every message is `{ version, type, payload? }`; the type names carry their own `:v1`
 * (spec 6.2, 9). A v2 would use a new envelope version and new type names, so a v1 side ignores it (decision 0092).
 */
export const PROTOCOL_VERSION = 1;

export interface WidgetSize {
  width: number;
  height: number;
}

/** Loader (host page) to widget (iframe), spec 6.2. `user: null` logs the visitor out, like `identify(null)`. */
export interface HostToWidgetPayloads {
  'svc:identify:v1': { user: VisitorIdentity | null };
  'svc:prefill:v1': { prefill: Prefill };
  'svc:shutdown:v1': undefined;
  /** `Svc('showArticle', id)`: opens the panel on the Help tab with that published help article. */
  'svc:show-article:v1': { articleId: string };
  /** `Svc('showNews')`: opens the panel on the News tab. */
  'svc:show-news:v1': undefined;
}

/** Widget (iframe) to loader (host page), spec 6.2. */
export interface WidgetToHostPayloads {
  'svc:widget:ready:v1': undefined;
  'svc:widget:open:v1': undefined;
  'svc:widget:close:v1': undefined;
  'svc:widget:resize:v1': WidgetSize;
}

export type Envelope<Payloads, Type extends keyof Payloads> = Payloads[Type] extends undefined
  ? { version: typeof PROTOCOL_VERSION; type: Type }
  : { version: typeof PROTOCOL_VERSION; type: Type; payload: Payloads[Type] };

export type MessageOf<Payloads> = { [Type in keyof Payloads]: Envelope<Payloads, Type> }[keyof Payloads];
export type HostToWidgetMessage = MessageOf<HostToWidgetPayloads>;
export type WidgetToHostMessage = MessageOf<WidgetToHostPayloads>;

/** The payload argument of a type: none when it has no payload. */
export type PayloadArgs<Payloads, Type extends keyof Payloads> = Payloads[Type] extends undefined
  ? []
  : [payload: Payloads[Type]];

/** One payload check per type, `null` for a type without payload; the mapped type keeps it in step with the map. */
type Validators<Payloads> = {
  [Type in keyof Payloads]-?: Payloads[Type] extends undefined ? null : (payload: PlainObject) => boolean;
};

const hostToWidget: Validators<HostToWidgetPayloads> = {
  'svc:identify:v1': (payload) =>
    hasOnlyKeys(payload, ['user']) && (payload.user === null || isVisitorIdentity(payload.user)),
  'svc:prefill:v1': (payload) => hasOnlyKeys(payload, ['prefill']) && isPrefill(payload.prefill),
  'svc:shutdown:v1': null,
  'svc:show-article:v1': (payload) => hasOnlyKeys(payload, ['articleId']) && isText(payload.articleId),
  'svc:show-news:v1': null,
};

const widgetToHost: Validators<WidgetToHostPayloads> = {
  'svc:widget:ready:v1': null,
  'svc:widget:open:v1': null,
  'svc:widget:close:v1': null,
  'svc:widget:resize:v1': (payload) =>
    hasOnlyKeys(payload, ['width', 'height']) && isSize(payload.width) && isSize(payload.height),
};

function isSize(value: unknown): value is number {
  return typeof value === 'number' && isFinite(value) && value >= 0;
}

function parse<Payloads>(validators: Validators<Payloads>, data: unknown): MessageOf<Payloads> | null {
  if (!isPlainObject(data) || data.version !== PROTOCOL_VERSION || typeof data.type !== 'string') return null;
  if (!hasOwn(validators, data.type) || !hasOnlyKeys(data, ['version', 'type', 'payload'])) return null;
  const validate = validators[data.type as keyof Payloads] as ((payload: PlainObject) => boolean) | null;
  const valid = validate ? isPlainObject(data.payload) && validate(data.payload) : data.payload === undefined;
  return valid ? (data as MessageOf<Payloads>) : null;
}

/** The message a widget received, or null for anything that is not exactly a v1 host-to-widget message. */
export function parseHostToWidget(data: unknown): HostToWidgetMessage | null {
  return parse(hostToWidget, data);
}

/** The message a host page received, or null for anything that is not exactly a v1 widget-to-host message. */
export function parseWidgetToHost(data: unknown): WidgetToHostMessage | null {
  return parse(widgetToHost, data);
}

type AllPayloads = HostToWidgetPayloads & WidgetToHostPayloads;

/** Builds the envelope of a message: `createMessage('svc:widget:resize:v1', { width, height })`. */
export function createMessage<Type extends keyof AllPayloads>(
  type: Type,
  ...[payload]: PayloadArgs<AllPayloads, Type>
): Envelope<AllPayloads, Type> {
  return envelope(type, payload) as Envelope<AllPayloads, Type>;
}

/** The untyped envelope builder behind `createMessage` and the channels' `send`. */
export function envelope(type: string, payload: unknown): object {
  return payload === undefined ? { version: PROTOCOL_VERSION, type } : { version: PROTOCOL_VERSION, type, payload };
}
