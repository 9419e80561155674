import { expect } from 'chai';
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { createLogger, eventually } from '@svc/kit';
import { AuthorType, ChatStatus, DeliveryStatus, MessageDirection, MessageType } from '@svc/proto/inbox/v1';
import type { VisitorEvent, VisitorEventPage } from '@svc/proto/inbox/v1/visitor';
import type { Backends, VisitorIdentityOfSession } from '../src/domain/backends';
import { RealtimeHub } from '../src/realtime/hub';

/** A response that records what is written to it. */
class FakeResponse extends EventEmitter {
  text = '';
  ended = false;
  writeHead() {
    return this;
  }
  write(chunk: string) {
    this.text += chunk;
    return true;
  }
  end() {
    this.ended = true;
    this.emit('close');
  }
  /** The ids of the events written, in order. */
  get ids(): number[] {
    return [...this.text.matchAll(/^id: (\d+)$/gm)].map((match) => Number(match[1]));
  }
}

/** The chat's event log, served as ListVisitorEvents does (after a seq, oldest first, pages of `pageSize`). */
class FakeInbox {
  log: VisitorEvent[] = [];
  calls: number[] = [];
  sent: string[][] = [];
  gate: Promise<void> = Promise.resolve();
  pageSize = 200;

  append(direction = MessageDirection.INBOUND, status = DeliveryStatus.NOT_APPLICABLE): void {
    const seq = this.log.length + 1;
    this.log.push({
      seq,
      type: 'message.created',
      chatId: 'chat1',
      occurredAt: new Date().toISOString(),
      chatStatus: ChatStatus.CHAT_STATUS_UNSPECIFIED,
      message: {
        _id: `m${seq}`,
        chatId: 'chat1',
        direction,
        author: { type: AuthorType.API_KEY, displayName: '', avatarUrl: '' },
        type: MessageType.TEXT,
        text: `hello ${seq}`,
        media: [],
        location: undefined,
        contactCard: undefined,
        buttons: [],
        deliveryStatus: status,
        createdAt: new Date().toISOString(),
        deleted: false,
      },
    });
  }

  readonly backends = {
    listVisitorEvents: async (
      _v: VisitorIdentityOfSession,
      _chat: string,
      after: number,
    ): Promise<VisitorEventPage> => {
      this.calls.push(after);
      await this.gate;
      const data = this.log.filter((event) => event.seq > after).slice(0, this.pageSize);
      const last = data.at(-1)?.seq ?? after;
      return { data, hasNext: last < this.log.length, lastEventSeq: this.log.length };
    },
    updateDeliveryStatus: async (_v: VisitorIdentityOfSession, _chat: string, ids: string[]) => {
      this.sent.push(ids);
      return ids;
    },
  } as unknown as Backends;
}

describe('WidgetApi.RealtimeHub', () => {
  const visitor = { orgId: 'o', channelId: 'c', contactId: 'p' };
  const view = { teamName: 'Acme support', teamAvatarUrl: '' };
  const logger = createLogger('test', 'silent');
  let inbox: FakeInbox;
  let hub: RealtimeHub;

  beforeEach(() => {
    inbox = new FakeInbox();
    hub = new RealtimeHub(inbox.backends, { heartbeatMs: 60_000, retryMs: 1000, typingTimeoutMs: 50 }, logger);
  });
  afterEach(() => hub.close());

  const open = (after: number) => {
    const response = new FakeResponse();
    hub.open('chat1', visitor, view, response as unknown as ServerResponse, after, {});
    return response;
  };

  it('replays what came after Last-Event-ID, in order, with retry first and the team name for API keys', async () => {
    for (let i = 0; i < 5; i += 1) inbox.append();
    const response = open(2);
    await eventually(async () => response.ids.length === 3);
    expect(response.ids).to.deep.equal([3, 4, 5]);
    expect(response.text.startsWith('retry: 1000\n\n')).to.equal(true);
    expect(response.text).to.include('"displayName":"Acme support"');
  });

  it('pages through a long backlog', async () => {
    inbox.pageSize = 2;
    for (let i = 0; i < 5; i += 1) inbox.append();
    const response = open(0);
    await eventually(async () => response.ids.length === 5);
    expect(response.ids).to.deep.equal([1, 2, 3, 4, 5]);
  });

  it('coalesces changes during a fetch into one more fetch, and writes each stream only what it lacks', async () => {
    inbox.append();
    inbox.append();
    const behind = open(0);
    const current = open(2);
    await eventually(async () => behind.ids.length === 2);
    let release = () => {};
    inbox.gate = new Promise((resolve) => (release = resolve));
    inbox.calls = [];
    inbox.append();
    hub.changed('chat1');
    inbox.append();
    hub.changed('chat1');
    hub.changed('chat1');
    release();
    await eventually(async () => behind.ids.length === 4 && current.ids.length === 2);
    expect(inbox.calls.length).to.be.at.most(2);
    expect(behind.ids).to.deep.equal([1, 2, 3, 4]);
    expect(current.ids).to.deep.equal([3, 4]);
  });

  it('reports the queued agent messages it wrote as SENT, not the visitor’s own', async () => {
    inbox.append(MessageDirection.INBOUND);
    inbox.append(MessageDirection.OUTBOUND, DeliveryStatus.QUEUED);
    inbox.append(MessageDirection.OUTBOUND, DeliveryStatus.READ);
    open(0);
    await eventually(async () => inbox.sent.length === 1);
    expect(inbox.sent).to.deep.equal([['m2']]);
  });

  it('relays typing without an id and turns it off by itself', async () => {
    const response = open(0);
    hub.typing('chat1', { typing: true, displayName: 'Ann', avatarUrl: '' });
    expect(response.text).to.include('event: typing\ndata: {"typing":true,"displayName":"Ann"}');
    await eventually(async () => response.text.includes('"typing":false'));
    expect(response.ids).to.deep.equal([]);
  });

  it('writes a heartbeat comment to every open stream on one shared tick', async () => {
    hub.close();
    hub = new RealtimeHub(inbox.backends, { heartbeatMs: 20, retryMs: 1000, typingTimeoutMs: 50 }, logger);
    const streams = [open(0), open(0)];
    await eventually(async () => streams.every((s) => s.text.includes(':\n\n')));
    expect(streams.map((s) => s.ids)).to.deep.equal([[], []]);
  });

  it("ends the streams of an erased contact only, not another visitor's in the same chat", async () => {
    inbox.append();
    const erased = open(0);
    const other = new FakeResponse();
    hub.open('chat1', { ...visitor, contactId: 'q' }, view, other as unknown as ServerResponse, 0, {});
    await eventually(async () => erased.ids.length === 1 && other.ids.length === 1);
    expect(hub.endContact('p')).to.equal(1);
    expect(erased.ended).to.equal(true);
    expect(other.ended).to.equal(false);
    expect(hub.streamCount).to.equal(1);
  });

  it('ends every stream on close and forgets closed ones', async () => {
    const first = open(0);
    const second = open(0);
    expect(hub.streamCount).to.equal(2);
    first.end();
    expect(hub.streamCount).to.equal(1);
    hub.close();
    expect(second.ended).to.equal(true);
    expect(hub.streamCount).to.equal(0);
  });
});
