import { expect } from 'chai';
import type { Metadata } from '@grpc/grpc-js';
import type { BeforeQueryEvent, EntitySubscriberInterface } from 'typeorm';
import {
  ApiScope,
  apiKeyPrincipal,
  dropTestDatabase,
  grpcClient,
  newId,
  systemPrincipal,
  testEnv,
  unary,
  type Principal,
  callerMetadata,
} from '@svc/kit';
import { IdentityForTests } from '@svc/identity';
import { InboxServiceClient, type MessagePage } from '@svc/proto/inbox/v1';
import { SearchServiceClient, type SearchConversationsResult } from '@svc/proto/inbox/v1/search';
import { InboxApp, inboxConfig } from '../src';

/** A statement that searches message text: MATCH … AGAINST on the MySQL family, the FTS5 table on SQLite. */
const FULL_TEXT = /\bMATCH\s*\(|messages_fts/i;

/**
 * Each full-text statement reads every message that matches, so at volume a search costs what its passes cost
 * (docs/decisions/0030-inbox-search.md, docs/performance.md): a first page is one pass, totalCount included.
 */
describe('Search: full-text passes per page', () => {
  let app: InboxApp;
  let identity: IdentityForTests;
  let inbox: InboxServiceClient;
  let search: SearchServiceClient;
  const statements: string[] = [];
  const as = (principal: Principal): Promise<Metadata> => callerMetadata(principal, 'inbox');
  const orgId = newId();
  const key = apiKeyPrincipal(orgId, [ApiScope.MESSAGES_READ, ApiScope.MESSAGES_SEND]);

  const fullTextPasses = async (call: () => Promise<unknown>) => {
    statements.length = 0;
    await call();
    return statements.filter((sql) => FULL_TEXT.test(sql)).length;
  };

  before(async () => {
    const config = inboxConfig(testEnv('inbox'));
    identity = new IdentityForTests();
    await identity.start();
    app = new InboxApp(config, { identityAddress: () => identity.address });
    await app.start();
    const recorder: EntitySubscriberInterface = {
      beforeQuery: (event: BeforeQueryEvent<unknown>) => void statements.push(event.query),
    };
    app.dataSource.subscribers.push(recorder);
    inbox = grpcClient(InboxServiceClient, `127.0.0.1:${app.grpcPort}`);
    search = grpcClient(SearchServiceClient, `127.0.0.1:${app.grpcPort}`);
    for (const name of ['Grace Hopper', 'Alan Turing', 'Ada Lovelace']) {
      const chat = await unary(
        inbox.openChat.bind(inbox),
        { channelId: newId(), contact: { _id: newId(), name } },
        as(systemPrincipal(orgId)),
      );
      for (const text of ['The invoice for March', 'Invoice paid, thanks'])
        await unary(inbox.sendMessage.bind(inbox), { chatId: chat._id, input: { text, internal: false } }, as(key));
    }
  });

  after(async () => {
    inbox.close();
    search.close();
    await app.stop();
    await identity.dispose();
    await dropTestDatabase(app.config.DB_URL);
  });

  it('searchConversations: the first page and its totalCount in one pass', async () => {
    let first: SearchConversationsResult | undefined;
    const passes = await fullTextPasses(async () => {
      first = await unary(
        search.searchConversations.bind(search),
        { query: 'invoice', filter: undefined, input: { limit: 2 } },
        as(key),
      );
    });
    expect(passes).to.equal(1);
    expect(first?.data).to.have.length(2);
    expect(first?.totalCount).to.equal(3);
    expect(first?.hasNext).to.equal(true);
    expect(first?.hasPrevious).to.equal(false);
  });

  it('apiSearchMessages: the first page in one pass', async () => {
    let first: MessagePage | undefined;
    const passes = await fullTextPasses(async () => {
      first = await unary(
        search.searchMessages.bind(search),
        { query: 'invoice', filter: undefined, input: { limit: 4 } },
        as(key),
      );
    });
    expect(passes).to.equal(1);
    expect(first?.data).to.have.length(4);
    expect(first?.hasNext).to.equal(true);
    expect(first?.hasPrevious).to.equal(false);
  });

  it('a page after a cursor still probes the other side (no totalCount)', async () => {
    const first = await unary(
      search.searchMessages.bind(search),
      { query: 'invoice', filter: undefined, input: { limit: 4 } },
      as(key),
    );
    let next: MessagePage | undefined;
    const passes = await fullTextPasses(async () => {
      next = await unary(
        search.searchMessages.bind(search),
        { query: 'invoice', filter: undefined, input: { limit: 4, cursor: first.nextCursor } },
        as(key),
      );
    });
    expect(passes).to.equal(2);
    expect(next?.data).to.have.length(2);
    expect(next?.hasPrevious).to.equal(true);
    expect(next?.hasNext).to.equal(false);
  });
});
