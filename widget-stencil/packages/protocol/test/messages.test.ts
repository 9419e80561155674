import { expect } from 'chai';
import {
  createMessage,
  parseHostToWidget,
  parseWidgetToHost,
  PROTOCOL_VERSION,
  type HostToWidgetMessage,
  type WidgetToHostMessage,
} from '../src/index.js';

const user = { userId: 'user-1', userHash: 'a1b2c3', name: 'Ada' };

const hostToWidget: HostToWidgetMessage[] = [
  { version: 1, type: 'svc:identify:v1', payload: { user } },
  { version: 1, type: 'svc:identify:v1', payload: { user: null } },
  { version: 1, type: 'svc:prefill:v1', payload: { prefill: { name: 'Ada', email: 'ada@example.com' } } },
  { version: 1, type: 'svc:prefill:v1', payload: { prefill: {} } },
  { version: 1, type: 'svc:shutdown:v1' },
  { version: 1, type: 'svc:show-article:v1', payload: { articleId: 'art-1' } },
  { version: 1, type: 'svc:show-news:v1' },
];

const widgetToHost: WidgetToHostMessage[] = [
  { version: 1, type: 'svc:widget:ready:v1' },
  { version: 1, type: 'svc:widget:open:v1' },
  { version: 1, type: 'svc:widget:close:v1' },
  { version: 1, type: 'svc:widget:resize:v1', payload: { width: 376, height: 620.5 } },
  { version: 1, type: 'svc:widget:resize:v1', payload: { width: 0, height: 0 } },
];

/** Data that is close to a valid message but is not one: each must parse to null. */
function junk(type: string, payload: unknown): [string, unknown][] {
  const withPayload = (value: unknown) => ({ version: 1, type, payload: value });
  const cases: [string, unknown][] = [
    ['without version', { type, payload }],
    ['with version 2', { version: 2, type, payload }],
    ['with version "1"', { version: '1', type, payload }],
    ['with an extra envelope field', { version: 1, type, payload, sender: 'x' }],
    ['as a JSON string', JSON.stringify({ version: 1, type, payload })],
  ];
  if (payload === undefined) {
    cases.push(['with a payload', withPayload({})], ['with a null payload', withPayload(null)]);
  } else {
    cases.push(
      ['without payload', { version: 1, type }],
      ['with a null payload', withPayload(null)],
      ['with an array payload', withPayload([payload])],
      ['with an extra payload field', withPayload({ ...(payload as object), extra: true })],
    );
  }
  return cases;
}

function describeParser(
  name: string,
  parse: (data: unknown) => unknown,
  valid: { type: string; payload?: unknown }[],
  otherDirection: { type: string; payload?: unknown }[],
  wrongPayloads: [string, unknown][],
) {
  describe(name, () => {
    for (const message of valid) {
      it(`accepts ${message.type} ${JSON.stringify(message.payload ?? '')}`, () => {
        expect(parse(structuredClone(message))).to.deep.equal(message);
      });
    }
    for (const type of new Set(valid.map((message) => message.type))) {
      const example = valid.find((message) => message.type === type)!;
      for (const [what, data] of junk(type, example.payload)) {
        it(`ignores ${type} ${what}`, () => expect(parse(data)).to.equal(null));
      }
    }
    for (const [what, data] of wrongPayloads) {
      it(`ignores ${what}`, () => expect(parse(data)).to.equal(null));
    }
    for (const message of otherDirection) {
      it(`ignores ${message.type}, a message of the other direction`, () => expect(parse(message)).to.equal(null));
    }
    const strangers: [string, unknown][] = [
      ['an unknown svc type', { version: 1, type: 'svc:open:v1' }],
      ['a v2 type', { version: 1, type: valid[0]!.type.replace(':v1', ':v2'), payload: valid[0]!.payload }],
      ['a type named like an Object.prototype member', { version: 1, type: 'toString' }],
      ['a type named __proto__', JSON.parse('{"version":1,"type":"__proto__"}')],
      ["another script's message", { type: 'webpackOk' }],
      ['null', null],
      ['undefined', undefined],
      ['a number', 1],
      ['an array', [valid[0]]],
    ];
    for (const [what, data] of strangers) {
      it(`ignores ${what}`, () => expect(parse(data)).to.equal(null));
    }
  });
}

describeParser('parseHostToWidget', parseHostToWidget, hostToWidget, widgetToHost, [
  [
    'svc:identify:v1 with an identity without proof',
    { version: 1, type: 'svc:identify:v1', payload: { user: { name: 'Ada' } } },
  ],
  [
    'svc:identify:v1 with userId but no userHash',
    { version: 1, type: 'svc:identify:v1', payload: { user: { userId: 'u' } } },
  ],
  ['svc:identify:v1 without user', { version: 1, type: 'svc:identify:v1', payload: {} }],
  [
    'svc:prefill:v1 with an unknown prefill field',
    { version: 1, type: 'svc:prefill:v1', payload: { prefill: { age: '3' } } },
  ],
  [
    'svc:prefill:v1 with a prefill that is not an object',
    { version: 1, type: 'svc:prefill:v1', payload: { prefill: 'Ada' } },
  ],
  ['svc:show-article:v1 with a blank id', { version: 1, type: 'svc:show-article:v1', payload: { articleId: ' ' } }],
  ['svc:show-article:v1 with a numeric id', { version: 1, type: 'svc:show-article:v1', payload: { articleId: 7 } }],
  ['svc:show-article:v1 without id', { version: 1, type: 'svc:show-article:v1', payload: {} }],
]);

const resize = (width: unknown, height: unknown) => ({
  version: 1,
  type: 'svc:widget:resize:v1',
  payload: { width, height },
});
describeParser('parseWidgetToHost', parseWidgetToHost, widgetToHost, hostToWidget, [
  ['svc:widget:resize:v1 with a NaN width', resize(NaN, 600)],
  ['svc:widget:resize:v1 with an infinite height', resize(376, Infinity)],
  ['svc:widget:resize:v1 with a negative width', resize(-1, 600)],
  ['svc:widget:resize:v1 with a size in a string', resize('376px', 600)],
  ['svc:widget:resize:v1 without height', { version: 1, type: 'svc:widget:resize:v1', payload: { width: 376 } }],
]);

describe('createMessage', () => {
  it('builds envelopes both parsers accept', () => {
    const built = [
      createMessage('svc:identify:v1', { user }),
      createMessage('svc:prefill:v1', { prefill: { phone: '+33100000000' } }),
      createMessage('svc:shutdown:v1'),
    ];
    expect(built.map(parseHostToWidget)).to.deep.equal(built);
    const size = createMessage('svc:widget:resize:v1', { width: 1, height: 2 });
    expect(parseWidgetToHost(size)).to.deep.equal({
      version: PROTOCOL_VERSION,
      type: 'svc:widget:resize:v1',
      payload: { width: 1, height: 2 },
    });
    expect(createMessage('svc:widget:ready:v1')).to.deep.equal({ version: 1, type: 'svc:widget:ready:v1' });
  });
});
