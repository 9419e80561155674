import { expect } from 'chai';
import { SseParser, type SseEvent } from '../src/index.js';

function parse(chunks: readonly string[]) {
  const events: SseEvent[] = [];
  const retries: number[] = [];
  const comments: string[] = [];
  const parser = new SseParser({
    onEvent: (event) => events.push(event),
    onRetry: (ms) => retries.push(ms),
    onComment: (text) => comments.push(text),
  });
  for (const chunk of chunks) parser.feed(chunk);
  parser.end();
  return { events, retries, comments, lastId: parser.lastId };
}

const STREAM =
  'retry: 3000\n\nid: 12\nevent: message.created\ndata: {"seq":12}\n\n: heartbeat\n\nevent: typing\ndata: {"typing":true}\n\n';

describe('SseParser', () => {
  it('reads the widget-api stream: retry, id, event, data, heartbeat comment', () => {
    const { events, retries, comments, lastId } = parse([STREAM]);
    expect(retries).to.deep.equal([3000]);
    expect(comments).to.deep.equal(['heartbeat']);
    expect(events).to.deep.equal([
      { type: 'message.created', data: '{"seq":12}', lastEventId: '12' },
      { type: 'typing', data: '{"typing":true}', lastEventId: '12' },
    ]);
    expect(lastId).to.equal('12');
  });

  it('gives the same events whatever the chunk boundaries (one character at a time)', () => {
    expect(parse(STREAM.split('')).events).to.deep.equal(parse([STREAM]).events);
  });

  it('gives the same events for every split of the stream into two chunks', () => {
    const whole = parse([STREAM]).events;
    for (let at = 0; at <= STREAM.length; at++) {
      expect(parse([STREAM.slice(0, at), STREAM.slice(at)]).events, `split at ${at}`).to.deep.equal(whole);
    }
  });

  it('accepts CRLF, LF and CR line ends, also a CRLF split between two chunks', () => {
    const crlf = STREAM.replace(/\n/g, '\r\n');
    const cr = STREAM.replace(/\n/g, '\r');
    const whole = parse([STREAM]).events;
    expect(parse([crlf]).events).to.deep.equal(whole);
    expect(parse([cr]).events).to.deep.equal(whole);
    const at = crlf.indexOf('\r\n\r\n') + 1;
    expect(parse([crlf.slice(0, at), crlf.slice(at)]).events).to.deep.equal(whole);
  });

  it('joins multi-line data with \\n and keeps an empty data line', () => {
    const { events } = parse(['data: first\ndata:second\ndata\ndata:  two spaces\n\n']);
    expect(events[0]?.data).to.equal('first\nsecond\n\n two spaces');
  });

  it('dispatches an event whose only data line is empty, and not one without data', () => {
    const { events } = parse(['event: nothing\nid: 3\n\ndata:\n\n']);
    expect(events).to.deep.equal([{ type: 'message', data: '', lastEventId: '3' }]);
  });

  it('ignores comments, unknown fields and an id containing NUL', () => {
    const { events, comments } = parse([':one\n: two\nfoo: bar\nid: 7\nid: 8\u00009\ndata: x\n\n']);
    expect(comments).to.deep.equal(['one', 'two']);
    expect(events).to.deep.equal([{ type: 'message', data: 'x', lastEventId: '7' }]);
  });

  it('takes retry only when it is all ASCII digits', () => {
    expect(parse(['retry: 1500\nretry: 2s\nretry: -1\nretry: 1 0\nretry:\n\n']).retries).to.deep.equal([1500]);
  });

  it('drops a leading byte-order mark and discards an event cut off by the end of the stream', () => {
    const { events } = parse(['\ufeffdata: a\n\ndata: b']);
    expect(events.map((event) => event.data)).to.deep.equal(['a']);
  });

  it('reads a field name without a colon as a field with an empty value', () => {
    const { events } = parse(['data\n\n']);
    expect(events).to.deep.equal([{ type: 'message', data: '', lastEventId: '' }]);
  });
});
