import { expect } from 'chai';
import { DEFAULT_TRIM_EVERY_MS, ERASURE_PARTICIPANTS, eventually } from '@svc/kit';
import { SAMPLES } from '../support/media-samples';
import type { StackHarness } from '../support/stack-harness';
import { SITE, web, type SessionBody } from '../support/widget';
import {
  allowedLeftover,
  byKind,
  leftovers,
  person,
  startErasureWorld,
  tracesOf,
  type ContactLookups,
  type ErasureWorld,
  type Receipt,
  type RunningErasureWorld,
} from './erasure-fixtures';

const ERASE = `mutation($c: String!) { eraseContact(contactId: $c) {
  id contactId requestedBy requestedAt status completedAt services { service confirmed confirmedAt counts { kind count } } } }`;

/**
 * widget-api lagging behind an erasure (its erasure consumer held back, decision 0174): the inbox has erased its part
 * and confirmed, the person's widget session still exists. Its refresh token and its session token must not give the
 * erased contact anything again: the refresh is 401 and the inbox holds no chat of theirs (the inbox refuses OpenChat
 * for a contact it erased, decision 0169), an upload is 401, and `start-anonymous` with an erased anonymous visitor's
 * refresh token starts a new visitor; once widget-api consumes the request the erasure
 * completes and nothing of the person stays.
 */
describe('Contact erasure with widget-api lagging: the old widget session reopens nothing', function () {
  this.timeout(180_000);
  let running: RunningErasureWorld | undefined;
  let harness: StackHarness;
  let world: ErasureWorld;
  let lookups: ContactLookups;

  before(async function () {
    running = await startErasureWorld('Erasure, widget lagging', {}, { holdWidgetErasureRequests: true });
    ({ world, lookups } = running);
    ({ harness } = world);
  });

  after(async () => running?.stop());

  const erase = async (contactId: string) => {
    const response = await harness.graphql<{ eraseContact: Receipt }>(ERASE, { c: contactId }, world.key);
    expect(response.body.errors, JSON.stringify(response.body.errors)).to.equal(undefined);
    return (response.body.data as { eraseContact: Receipt }).eraseContact;
  };
  const inboxRows = async (table: 'chats' | 'conversations', contactId: string) => {
    const [row] = (await harness.stack.inbox.dataSource.query(
      `SELECT COUNT(*) AS n FROM ${table} WHERE contact_id = ?`,
      [contactId],
    )) as { n: number | string }[];
    return Number(row?.n);
  };

  it("start-anonymous with the refresh token of an erased anonymous visitor starts a new visitor, and the old session's refresh is 401", async () => {
    const started = await web<SessionBody>(harness.url, '/visitor/start-anonymous', {
      body: { publicKey: world.publicKey },
      origin: SITE,
    });
    expect(started.status, JSON.stringify(started.body)).to.equal(200);
    const chat = await harness.graphql<{ chat: { contact: { _id: string } } }>(
      'query($c: String!) { chat(chatId: $c) { contact { _id } } }',
      { c: started.body.chat._id },
      world.key,
    );
    const contactId = chat.body.data?.chat.contact._id ?? '';
    await erase(contactId);
    await eventually(
      async () => (await erase(contactId)).services.find((s) => s.service === 'inbox')?.confirmed,
      60_000,
      'the inbox to confirm',
    );
    const again = await web<SessionBody>(harness.url, '/visitor/start-anonymous', {
      body: { publicKey: world.publicKey, refreshToken: started.body.refreshToken },
      origin: SITE,
    });
    expect(again.status, JSON.stringify(again.body)).to.equal(200);
    expect(again.body.chat._id).not.to.equal(started.body.chat._id);
    expect(again.body.messages.data).to.deep.equal([]);
    expect(await inboxRows('chats', contactId)).to.equal(0);
    // The old session ended: its refresh token is refused before widget-api's part runs (held until the next test).
    const refreshed = await web<SessionBody>(harness.url, '/visitor/refresh', {
      body: { publicKey: world.publicKey, refreshToken: started.body.refreshToken },
      origin: SITE,
    });
    expect(refreshed.status).to.equal(401);
  });

  it('refresh and upload answer 401 before widget-api erased the session; no chat appears; the erasure then completes', async () => {
    const p = await person(world, lookups, 'late');
    expect(await inboxRows('chats', p.contactId)).to.equal(2);
    const requested = await erase(p.contactId);
    const waiting = await eventually(
      async () => {
        const receipt = await erase(p.contactId);
        const unconfirmed = receipt.services.filter((s) => !s.confirmed).map((s) => s.service);
        return unconfirmed.length === 1 && receipt;
      },
      60_000,
      'every participant but widget-api to confirm',
    );
    expect(waiting.services.filter((s) => !s.confirmed).map((s) => s.service)).to.deep.equal(['widget-api']);
    expect(await inboxRows('chats', p.contactId)).to.equal(0);

    // The session's token still verifies (its row is there): the inbox refuses the erased contact's upload.
    const upload = await fetch(`${harness.url}/api/web/media`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${p.session.sessionToken}`,
        'content-type': 'image/png',
        'x-file-name': 'a.png',
      },
      body: SAMPLES.png,
    });
    expect(upload.status).to.equal(401);
    const refreshed = await web<SessionBody>(harness.url, '/visitor/refresh', {
      body: { publicKey: world.publicKey, refreshToken: p.session.refreshToken },
      origin: SITE,
    });
    expect(refreshed.status, JSON.stringify(refreshed.body)).to.equal(401);
    expect(await inboxRows('chats', p.contactId)).to.equal(0);
    expect(await inboxRows('conversations', p.contactId)).to.equal(0);

    // Released only after the embedded bus has trimmed what every group it knows has read (on Kafka nothing is
    // trimmed): the held consumer must still find the requests then, as a participant that lags finds them.
    await new Promise((resolve) => setTimeout(resolve, 2 * DEFAULT_TRIM_EVERY_MS));
    await harness.stack.widget.consumeErasureRequests();
    const receipt = await eventually(
      async () => {
        const current = await erase(p.contactId);
        return current.status === 'COMPLETED' && current;
      },
      60_000,
      'the erasure to complete once widget-api consumes',
    );
    expect(receipt.id).to.equal(requested.id);
    expect(receipt.services.map((s) => [s.service, s.confirmed])).to.deep.equal(
      ERASURE_PARTICIPANTS.map((service) => [service, true]),
    );
    // The ended session is still the contact's, and goes with the erasure.
    expect(byKind(receipt.services, 'widget-api')).to.deep.equal({ widget_sessions: 1 });
    expect(byKind(receipt.services, 'inbox')).to.include({ chats: 2 });
    expect(await inboxRows('chats', p.contactId)).to.equal(0);
    expect(await leftovers(harness, tracesOf(p), allowedLeftover(p))).to.deep.equal([]);
  });
});
