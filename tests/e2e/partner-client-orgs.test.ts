import { expect } from 'chai';
import { ApiScope, ORG_ERASURE_PARTICIPANTS, OrgKind, eventually, newId, publishOrgEraseConfirmation } from '@svc/kit';
import {
  ALL_SCOPES_BUT_PARTNER,
  type GraphQLResponse,
  type StackHarness,
  type TestOrg,
} from '../support/stack-harness';
import { sharedStack } from '../support/shared-stack';
import { SAMPLES } from '../support/media-samples';
import { dataOf, expectField, refusalOf } from './inbox-fixtures';

/**
 * Partner administration of client orgs through the gateway (spec 4.2, 5.1 points 2 and 6; docs/decisions/0211-0214):
 * createClientOrg, clientOrgs and deprovisionClientOrg for TECH_PROVIDER orgs only, and `X-Svc-Org` acting inside a
 * client org on every surface that takes the gateway's credentials.
 */

interface ClientOrg {
  id: string;
  name: string;
  slug: string;
  status: string;
  createdAt: string;
  deprovisionRequestedAt: string | null;
  deprovisionedAt: string | null;
  deprovisioning: { service: string; confirmed: boolean; confirmedAt: string | null; counts: { kind: string }[] }[];
}

const ORG = `id name slug status createdAt deprovisionRequestedAt deprovisionedAt
  deprovisioning { service confirmed confirmedAt counts { kind count } }`;
const CREATE = `mutation($n: String!, $o: ClientOrgOwnerInput) {
  createClientOrg(name: $n, owner: $o) { org { ${ORG} } owner { id email name oneTimePassword } } }`;
const LIST = `query($l: Int, $o: Int, $s: ClientOrgStatus) {
  clientOrgs(limit: $l, offset: $o, status: $s) { data { ${ORG} } totalCount hasMore } }`;
const DEPROVISION = `mutation($id: String!) { deprovisionClientOrg(id: $id) { ${ORG} } }`;

const LABEL = 'mutation($n: String!) { createLabel(input: { name: $n }) { _id } }';
const READ_LABEL = 'query($id: String!) { label(labelId: $id) { _id name } }';
const CONTACT = 'mutation($n: String!) { createContactApi(input: { name: $n }) { id } }';
const READ_CONTACT = 'query($id: ID!) { contactApi(id: $id) { id } }';
const CHANNEL = 'mutation($n: String!) { createWebIntegration(input: { name: $n }) { integration { id } } }';
const READ_CHANNEL = 'query($id: ID!) { webIntegrationById(id: $id) { id } }';
const FOLDER = 'mutation($n: String!) { createHelpFolder(input: { name: $n }) { id } }';
const READ_FOLDER = 'query($id: String!) { helpFolder(id: $id) { id } }';

/** One object per domain surface: how to create it and read it back by id. */
const SURFACES = [
  { domain: 'inbox', create: LABEL, read: READ_LABEL, id: (d: Json) => (d.createLabel as Json)._id },
  { domain: 'contacts', create: CONTACT, read: READ_CONTACT, id: (d: Json) => (d.createContactApi as Json).id },
  {
    domain: 'channels',
    create: CHANNEL,
    read: READ_CHANNEL,
    id: (d: Json) => ((d.createWebIntegration as Json).integration as Json).id,
  },
  { domain: 'content', create: FOLDER, read: READ_FOLDER, id: (d: Json) => (d.createHelpFolder as Json).id },
] as const;

type Json = Record<string, unknown>;

describe('Partner client orgs (createClientOrg, clientOrgs, deprovisionClientOrg, X-Svc-Org) over the gateway', function () {
  this.timeout(120_000);
  let harness: StackHarness;
  let provider: TestOrg;
  let partnerKey: string;
  let sibling: TestOrg;
  let standard: TestOrg;

  const gql = <T = Json>(query: string, variables: Json, token: string, actAs?: string) =>
    harness.graphql<T>(query, variables, token, actAs ? { 'x-svc-org': actAs } : {});

  /** A client org of `owner` with its owner logged in and an API key holding every scope. */
  async function clientOf(owner: TestOrg | string) {
    const token = typeof owner === 'string' ? owner : owner.sessionToken;
    const email = `client-${newId()}@example.com`;
    const created = dataOf(
      await gql<{ createClientOrg: { org: ClientOrg; owner: { oneTimePassword: string } } }>(
        CREATE,
        { n: `Client ${newId().slice(-6)}`, o: { email, name: 'Cleo Client' } },
        token,
      ),
    ).createClientOrg;
    const login = dataOf(
      await harness.graphql<{ login: { token: string } }>(
        'mutation($e: String!, $p: String!) { login(email: $e, password: $p) { token } }',
        { e: email, p: created.owner.oneTimePassword },
      ),
    ).login;
    const session = login.token;
    const minted = dataOf(
      await gql<{ mintOrgApiKey: { key: string } }>(
        'mutation($s: [ApiScope!]!) { mintOrgApiKey(name: "client", scopes: $s) { key } }',
        { s: ALL_SCOPES_BUT_PARTNER },
        session,
      ),
    ).mintOrgApiKey;
    return { org: created.org, session, key: minted.key };
  }

  const codeOf = (response: GraphQLResponse) => response.body.errors?.[0]?.extensions?.code;

  before(async () => {
    harness = await sharedStack();
    provider = await harness.newOrg('Provider', OrgKind.TECH_PROVIDER);
    partnerKey = (await provider.mintKey([...ALL_SCOPES_BUT_PARTNER, ApiScope.PARTNER_ADMIN])).key;
    sibling = await harness.newOrg('Sibling provider', OrgKind.TECH_PROVIDER);
    standard = await harness.newOrg('Standard');
  });

  describe('createClientOrg and clientOrgs', () => {
    it('creates client orgs with a PARTNER_ADMIN key and with a provider member login, and lists them with status', async () => {
      const byKey = await clientOf(partnerKey);
      const bySession = await clientOf(provider);
      expect(byKey.org).to.include({ status: 'ACTIVE', deprovisionRequestedAt: null, deprovisionedAt: null });
      expect(byKey.org.deprovisioning).to.deep.equal([]);
      const page = dataOf(await gql<{ clientOrgs: { data: ClientOrg[] } }>(LIST, { l: 100 }, partnerKey)).clientOrgs;
      const ids = page.data.map((org) => org.id);
      expect(ids).to.include.members([byKey.org.id, bySession.org.id]);
      expect(ids.indexOf(byKey.org.id)).to.be.lessThan(ids.indexOf(bySession.org.id));
      const theirs = dataOf(await gql<{ clientOrgs: { data: ClientOrg[] } }>(LIST, {}, sibling.sessionToken));
      expect(theirs.clientOrgs.data.map((org) => org.id)).not.to.include.members([byKey.org.id]);
    });

    it('pages with limit and offset, never skipping or repeating one', async () => {
      const fresh = await harness.newOrg('Paging provider', OrgKind.TECH_PROVIDER);
      const ids: string[] = [];
      for (let i = 0; i < 5; i += 1)
        ids.push(
          dataOf(await gql<{ createClientOrg: { org: ClientOrg } }>(CREATE, { n: `P${i}` }, fresh.sessionToken))
            .createClientOrg.org.id,
        );
      const seen: string[] = [];
      const hasMore: boolean[] = [];
      for (let offset = 0; offset < 5; offset += 2) {
        const page = dataOf(
          await gql<{ clientOrgs: { data: ClientOrg[]; totalCount: number; hasMore: boolean } }>(
            LIST,
            { l: 2, o: offset },
            fresh.sessionToken,
          ),
        ).clientOrgs;
        expect(page.totalCount).to.equal(5);
        seen.push(...page.data.map((org) => org.id));
        hasMore.push(page.hasMore);
      }
      expect(seen).to.deep.equal(ids);
      expect(hasMore).to.deep.equal([true, true, false]);
    });

    it('refuses bad input naming the field', async () => {
      expectField(await gql(CREATE, { n: '  ' }, partnerKey), 'BAD_USER_INPUT', 'name');
      expectField(await gql(CREATE, { n: 'x', o: { email: 'nope' } }, partnerKey), 'BAD_USER_INPUT', 'email');
      expectField(await gql(DEPROVISION, { id: 'not-an-id' }, partnerKey), 'BAD_USER_INPUT', 'id');
      expectField(await gql(LIST, { l: 0 }, partnerKey), 'BAD_USER_INPUT', 'limit');
      expectField(await gql(LIST, { l: 101 }, partnerKey), 'BAD_USER_INPUT', 'limit');
      expectField(await gql(LIST, { o: -1 }, partnerKey), 'BAD_USER_INPUT', 'offset');
    });

    it('is for TECH_PROVIDER orgs only: every other caller is refused FORBIDDEN', async () => {
      const client = await clientOf(provider);
      const plainKey = (await provider.mintKey(ALL_SCOPES_BUT_PARTNER)).key;
      const standardKey = (await standard.mintKey(ALL_SCOPES_BUT_PARTNER)).key;
      const agentEmail = `agent-${newId()}@example.com`;
      const added = dataOf(
        await gql<{ addOrgMemberDirect: { oneTimePassword: string } }>(
          'mutation($i: AddOrgMemberInput!) { addOrgMemberDirect(input: $i) { oneTimePassword } }',
          { i: { email: agentEmail, name: 'Agent', role: 'AGENT' } },
          provider.sessionToken,
        ),
      ).addOrgMemberDirect;
      const agent = dataOf(
        await harness.graphql<{ login: { token: string } }>(
          'mutation($e: String!, $p: String!) { login(email: $e, password: $p) { token } }',
          { e: agentEmail, p: added.oneTimePassword },
        ),
      ).login.token;
      const callers: [string, string, string?][] = [
        ['a STANDARD org owner', standard.sessionToken],
        ['a STANDARD org key', standardKey],
        ['a provider key without PARTNER_ADMIN', plainKey],
        ['a provider agent', agent],
        ["the client org's own key", client.key],
        ["the client org's owner", client.session],
        ['a PARTNER_ADMIN key acting as its client (X-Svc-Org)', partnerKey, client.org.id],
        ['a provider owner acting as its client (X-Svc-Org)', provider.sessionToken, client.org.id],
      ];
      for (const [who, token, actAs] of callers) {
        expect(codeOf(await gql(CREATE, { n: 'Nope' }, token, actAs)), who).to.equal('FORBIDDEN');
        expect(codeOf(await gql(LIST, {}, token, actAs)), who).to.equal('FORBIDDEN');
        expect(codeOf(await gql(DEPROVISION, { id: client.org.id }, token, actAs)), who).to.equal('FORBIDDEN');
      }
    });
  });

  describe('X-Svc-Org', () => {
    it('acts inside the client org on inbox, contacts, channels and content, with a provider key and a member login', async () => {
      const client = await clientOf(provider);
      for (const [how, token] of [
        ['key', partnerKey],
        ['session', provider.sessionToken],
      ] as const) {
        for (const surface of SURFACES) {
          const where = `${surface.domain} as the provider's ${how}`;
          const created = dataOf(await gql<Json>(surface.create, { n: `${how} ${newId()}` }, token, client.org.id));
          const id = surface.id(created) as string;
          // The object is the client's: its own key reads it, the provider (without the header) does not see it.
          expect(codeOf(await gql(surface.read, { id }, client.key)), where).to.equal(undefined);
          expect(codeOf(await gql(surface.read, { id }, token, client.org.id)), where).to.equal(undefined);
          const outside = await gql(surface.read, { id }, token);
          const unknown = newId();
          expect(refusalOf(outside, id), where).to.deep.equal(
            refusalOf(await gql(surface.read, { id: unknown }, token), unknown),
          );
          expect(codeOf(outside), where).to.equal('NOT_FOUND');
        }
      }
    });

    it('uploads media into the client org (the multipart surface)', async () => {
      const client = await clientOf(provider);
      const form = new FormData();
      form.append('operations', JSON.stringify({ query: 'mutation($f: File!) { createMedia(file: $f) { _id } }' }));
      form.append('map', JSON.stringify({ 0: ['variables.f'] }));
      form.append('0', new Blob([new Uint8Array(SAMPLES.png)], { type: 'image/png' }), 'a.png');
      const response = await fetch(`${harness.url}/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${partnerKey}`, 'x-svc-org': client.org.id, 'apollo-require-preflight': '1' },
        body: form,
      });
      const body = (await response.json()) as { data?: { createMedia: { _id: string } }; errors?: unknown };
      const mediaId = body.data?.createMedia._id;
      expect(mediaId, JSON.stringify(body)).to.be.a('string');
      const media = (token: string) =>
        gql<{ allMedia: { data: { _id: string }[] } }>('query { allMedia { data { _id } } }', {}, token);
      expect(dataOf(await media(client.key)).allMedia.data.map((m) => m._id)).to.include(mediaId);
      expect(dataOf(await media(partnerKey)).allMedia.data.map((m) => m._id)).not.to.include(mediaId);
    });

    it('refuses a sibling provider’s client, a non-child org and an unknown org (FORBIDDEN), for keys and logins', async () => {
      const theirs = await clientOf(sibling);
      for (const actAs of [theirs.org.id, standard.id, sibling.id, newId()])
        for (const token of [partnerKey, provider.sessionToken]) {
          const response = await gql('query { labels { data { _id } } }', {}, token, actAs);
          expect([response.status, codeOf(response)]).to.deep.equal([403, 'FORBIDDEN']);
        }
    });

    it('never lets a client org’s own key see the provider’s or a sibling client’s objects (NOT_FOUND)', async () => {
      const mine = await clientOf(provider);
      const other = await clientOf(provider);
      for (const surface of SURFACES) {
        const providers = surface.id(dataOf(await gql<Json>(surface.create, { n: newId() }, partnerKey))) as string;
        const siblings = surface.id(dataOf(await gql<Json>(surface.create, { n: newId() }, other.key))) as string;
        for (const id of [providers, siblings])
          expect(codeOf(await gql(surface.read, { id }, mine.key)), surface.domain).to.equal('NOT_FOUND');
      }
      // Nor can it act anywhere else: a client org is no TECH_PROVIDER.
      const response = await gql('query { labels { data { _id } } }', {}, mine.key, other.org.id);
      expect([response.status, codeOf(response)]).to.deep.equal([403, 'FORBIDDEN']);
    });
  });

  describe('deprovisionClientOrg', () => {
    const confirmAs = (orgId: string, service: string) =>
      publishOrgEraseConfirmation(
        harness.stack.identity.bus,
        harness.stack.identity.config.KAFKA_TOPIC_PREFIX,
        { erasureId: orgId, orgId },
        service,
        [{ kind: 'rows', count: 1 }],
      );

    it('refuses the org’s cached credentials and X-Svc-Org at once, is idempotent, and ends DEPROVISIONED', async () => {
      const client = await clientOf(provider);
      const probe = 'query { labels { data { _id } } }';
      // Cached by the gateway before the deprovisioning.
      for (const [token, actAs] of [
        [client.key],
        [client.session],
        [partnerKey, client.org.id],
        [provider.sessionToken, client.org.id],
      ] as const)
        dataOf(await gql(probe, {}, token, actAs));
      const started = dataOf(
        await gql<{ deprovisionClientOrg: ClientOrg }>(DEPROVISION, { id: client.org.id }, partnerKey),
      ).deprovisionClientOrg;
      expect(started.status).to.equal('DEPROVISIONING');
      expect(started.deprovisioning.map((p) => p.service)).to.deep.equal([...ORG_ERASURE_PARTICIPANTS]);
      expect(started.deprovisioning[0]).to.include({ service: 'identity', confirmed: true });
      for (const token of [client.key, client.session]) expect((await gql(probe, {}, token)).status).to.equal(401);
      for (const token of [partnerKey, provider.sessionToken])
        expect((await gql(probe, {}, token, client.org.id)).status).to.equal(403);
      const again = dataOf(
        await gql<{ deprovisionClientOrg: ClientOrg }>(DEPROVISION, { id: client.org.id }, provider.sessionToken),
      ).deprovisionClientOrg;
      expect(again.deprovisionRequestedAt).to.equal(started.deprovisionRequestedAt);
      // The other participants' parts are built elsewhere: their confirmations are simulated here.
      for (const service of ORG_ERASURE_PARTICIPANTS.slice(1)) await confirmAs(client.org.id, service);
      const done = await eventually(async () => {
        const page = dataOf(
          await gql<{ clientOrgs: { data: ClientOrg[] } }>(LIST, { s: 'DEPROVISIONED', l: 100 }, partnerKey),
        ).clientOrgs;
        return page.data.find((org) => org.id === client.org.id);
      });
      expect(done.deprovisionedAt).to.be.a('string');
      expect(done.name).to.equal(client.org.name);
      expect(done.deprovisioning.every((p) => p.confirmed)).to.equal(true);
    });

    it('answers a sibling’s client, a non-child and an unknown id alike (NOT_FOUND)', async () => {
      const theirs = await clientOf(sibling);
      const answers = [theirs.org.id, standard.id, provider.id, newId()].map(async (id) =>
        refusalOf(await gql(DEPROVISION, { id }, partnerKey), id),
      );
      const refusals = await Promise.all(answers);
      expect(refusals[0]?.code).to.equal('NOT_FOUND');
      for (const refusal of refusals) expect(refusal).to.deep.equal(refusals[0]);
      const still = dataOf(await gql<{ clientOrgs: { data: ClientOrg[] } }>(LIST, { l: 100 }, sibling.sessionToken));
      expect(still.clientOrgs.data.find((org) => org.id === theirs.org.id)?.status).to.equal('ACTIVE');
    });
  });
});
