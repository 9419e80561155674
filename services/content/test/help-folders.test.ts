import { expect } from 'chai';
import type { DataSource } from 'typeorm';
import {
  DomainError,
  OutboxEvent,
  dropTestDatabase,
  newId,
  now,
  openDataSource,
  systemPrincipal,
  testDbUrl,
  type OutboxRelay,
} from '@svc/kit';
import { ApiScope, PrincipalKind, type Principal } from '@svc/proto/common/v1';
import { HelpArticleStatus } from '@svc/proto/content/v1/content';
import { Envelope } from '@svc/proto/events/v1';
import { contentData } from '../src/data';
import { HelpArticleRow, HelpArticleTranslationRow, HelpFolderRow } from '../src/entities';
import {
  FolderTree,
  HelpFolderReads,
  HelpFolderWrites,
  MAX_DEPTH,
  rollUp,
  siblingOrder,
} from '../src/domain/help-folders';

/** A folder row as stored, for the pure tree functions. */
function folder(id: string, parentId: string | null, position: number): HelpFolderRow {
  const at = new Date(0);
  return { id, orgId: 'org', parentId, name: id, description: null, position, createdAt: at, updatedAt: at };
}

async function failure(promise: Promise<unknown> | (() => unknown)): Promise<DomainError> {
  try {
    await (typeof promise === 'function' ? promise() : promise);
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a domain error');
}

describe('help folders: the tree', () => {
  //  a ─┬─ b ── c
  //     └─ d
  //  e
  const tree = new FolderTree([
    folder('c', 'b', 0),
    folder('e', null, 1),
    folder('d', 'a', 1),
    folder('b', 'a', 0),
    folder('a', null, 0),
  ]);

  it('orders siblings by position and lists every folder before the folders under it', () => {
    expect(tree.preorder().map((row) => row.id)).to.deep.equal(['a', 'b', 'c', 'd', 'e']);
    expect(tree.childrenOf('a').map((row) => row.id)).to.deep.equal(['b', 'd']);
    expect(['a', 'b', 'c', 'e'].map((id) => tree.depthOf(id))).to.deep.equal([0, 1, 2, 0]);
    expect(tree.heightOf('a')).to.equal(3);
  });

  it('refuses a folder under itself or under a folder below it (FAILED_PRECONDITION naming parentId)', async () => {
    for (const [moving, parent] of [
      ['a', 'a'],
      ['a', 'b'],
      ['a', 'c'],
      ['b', 'c'],
    ] as const) {
      const error = await failure(() => tree.checkPlacement(moving, parent));
      expect([error.code, error.details.field], `${moving} under ${parent}`).to.deep.equal([
        'FAILED_PRECONDITION',
        'parentId',
      ]);
    }
    tree.checkPlacement('b', null);
    tree.checkPlacement('b', 'e');
    tree.checkPlacement('d', 'b');
  });

  it(`refuses nesting deeper than ${MAX_DEPTH} levels, counting the moved sub-tree`, async () => {
    const chain = Array.from({ length: MAX_DEPTH }, (_, level) =>
      folder(`l${level}`, level ? `l${level - 1}` : null, 0),
    );
    const deep = new FolderTree([...chain, folder('x', null, 1), folder('y', 'x', 0)]);
    deep.checkPlacement(undefined, `l${MAX_DEPTH - 2}`);
    expect((await failure(() => deep.checkPlacement(undefined, `l${MAX_DEPTH - 1}`))).code).to.equal(
      'FAILED_PRECONDITION',
    );
    // x has a child: under l(MAX-3) the child would sit at the deepest allowed level, under l(MAX-2) below it.
    deep.checkPlacement('x', `l${MAX_DEPTH - 3}`);
    expect((await failure(() => deep.checkPlacement('x', `l${MAX_DEPTH - 2}`))).code).to.equal('FAILED_PRECONDITION');
  });

  it('places a folder among its new siblings at a position, last by default, refusing one past the end', async () => {
    expect(siblingOrder(tree, 'a', ['e'], 0)).to.deep.equal(['e', 'b', 'd']);
    expect(siblingOrder(tree, 'a', ['e'], undefined)).to.deep.equal(['b', 'd', 'e']);
    expect(siblingOrder(tree, 'a', ['b'], 1)).to.deep.equal(['d', 'b']);
    expect(siblingOrder(tree, null, ['new'], 1)).to.deep.equal(['a', 'new', 'e']);
    for (const position of [-1, 3, 1.5]) {
      const error = await failure(() => siblingOrder(tree, 'a', ['e'], position));
      expect([error.code, error.details.field], String(position)).to.deep.equal(['BAD_USER_INPUT', 'position']);
    }
  });

  it('counts a folder’s articles with those of every folder under it', () => {
    const direct = new Map([
      ['a', { published: 1, draft: 0 }],
      ['c', { published: 2, draft: 3 }],
      ['d', { published: 0, draft: 1 }],
      ['e', { published: 7, draft: 7 }],
    ]);
    expect(rollUp(tree, direct, 'a')).to.deep.equal({
      folderId: 'a',
      published: 3,
      draft: 4,
      directPublished: 1,
      directDraft: 0,
    });
    expect(rollUp(tree, direct, 'b')).to.deep.include({ published: 2, draft: 3, directPublished: 0, directDraft: 0 });
  });
});

describe('help folders: counts and deletes against the database', () => {
  let dataSource: DataSource;
  const url = testDbUrl('content-folders');
  const orgId = newId();
  const manager: Principal = {
    ...systemPrincipal(orgId),
    kind: PrincipalKind.API_KEY,
    scopes: [ApiScope.CONTENT_READ, ApiScope.CONTENT_MANAGE],
  };
  const noRelay = () => ({ nudge: () => undefined }) as unknown as OutboxRelay;
  let reads: HelpFolderReads;
  let writes: HelpFolderWrites;

  /** An article in `folderId` with a translation per entry (the first is its default locale). */
  async function article(
    folderId: string | null,
    translations: [locale: string, status: HelpArticleStatus][],
    org = orgId,
  ): Promise<string> {
    const at = now();
    const id = newId(at);
    const [first] = translations;
    await dataSource.manager.insert(HelpArticleRow, {
      id,
      orgId: org,
      folderId,
      authorId: 'author',
      defaultLocale: first?.[0] ?? 'en',
      createdAt: at,
      updatedAt: at,
    });
    for (const [locale, status] of translations)
      await dataSource.manager.insert(HelpArticleTranslationRow, {
        id: newId(),
        orgId: org,
        articleId: id,
        locale,
        title: `${id} ${locale}`,
        slug: `${id}-${locale}`,
        bodyMarkdown: '',
        bodyHtml: '',
        status,
        publishedAt: status === HelpArticleStatus.PUBLISHED ? at : null,
        createdAt: at,
        updatedAt: at,
      });
    return id;
  }

  const create = (name: string, parentId?: string) => writes.create(manager, { name, parentId });
  /** The types of the events in the outbox, sorted (one transaction's events share a time). */
  const eventTypes = async () =>
    (await dataSource.manager.find(OutboxEvent, { order: { createdAt: 'ASC', id: 'ASC' } }))
      .map((row) => Envelope.decode(Buffer.from(row.payload, 'base64')).type)
      .sort();

  before(async () => {
    dataSource = await openDataSource({ ...contentData, url }, { migrate: true });
    reads = new HelpFolderReads(dataSource);
    writes = new HelpFolderWrites(dataSource, noRelay);
  });

  after(async () => {
    await dataSource.destroy();
    await dropTestDatabase(url);
  });

  beforeEach(async () => {
    for (const table of [HelpArticleTranslationRow, HelpArticleRow, HelpFolderRow, OutboxEvent])
      await dataSource.manager.clear(table);
  });

  it('counts each article once by its default-locale translation, or by its translation in the locale asked', async () => {
    const top = await create('Top');
    const sub = await create('Sub', top.id);
    const { PUBLISHED, DRAFT } = HelpArticleStatus;
    await article(top.id, [
      ['en', PUBLISHED],
      ['de', DRAFT],
    ]);
    await article(sub.id, [
      ['en', DRAFT],
      ['de', PUBLISHED],
    ]);
    await article(sub.id, [['pt-BR', PUBLISHED]]);
    // Another org's article filed under our folder id counts nowhere.
    await article(sub.id, [['en', PUBLISHED]], newId());
    const [byDefault, inGerman] = [
      await reads.counts(manager, [top.id, sub.id], undefined, 'ids'),
      await reads.counts(manager, [top.id, sub.id], 'de', 'ids'),
    ];
    expect(byDefault).to.deep.equal([
      { folderId: top.id, published: 2, draft: 1, directPublished: 1, directDraft: 0 },
      { folderId: sub.id, published: 1, draft: 1, directPublished: 1, directDraft: 1 },
    ]);
    expect(inGerman).to.deep.equal([
      { folderId: top.id, published: 1, draft: 1, directPublished: 0, directDraft: 1 },
      { folderId: sub.id, published: 1, draft: 0, directPublished: 1, directDraft: 0 },
    ]);
  });

  it('refuses deleting a folder with content, and with moveContentToParent moves it up in the folder’s place', async () => {
    const top = await create('Top');
    const [first, middle, last] = [await create('1', top.id), await create('2', top.id), await create('3', top.id)];
    const [inner1, inner2] = [await create('2.1', middle.id), await create('2.2', middle.id)];
    const filed = await article(middle.id, [['en', HelpArticleStatus.DRAFT]]);
    const error = await failure(writes.delete(manager, { id: middle.id }));
    expect([error.code, error.details.field]).to.deep.equal(['FAILED_PRECONDITION', 'id']);
    expect(error.message).to.contain('2 sub-folder(s) and 1 article(s)');
    await dataSource.manager.clear(OutboxEvent);

    const result = await writes.delete(manager, { id: middle.id, moveContentToParent: true });
    expect(result).to.deep.equal({ id: middle.id, movedFolders: 2, movedArticles: 1 });
    const children = (await reads.list(manager, { page: undefined, parentId: top.id })).data;
    expect(children.map((row) => [row.id, row.position, row.depth])).to.deep.equal([
      [first.id, 0, 1],
      [inner1.id, 1, 1],
      [inner2.id, 2, 1],
      [last.id, 3, 1],
    ]);
    expect((await dataSource.manager.findOneByOrFail(HelpArticleRow, { id: filed })).folderId).to.equal(top.id);
    expect(await eventTypes()).to.deep.equal([
      'help_article.updated',
      'help_folder.deleted',
      'help_folder.moved',
      'help_folder.moved',
    ]);
  });

  it('deleting a top-level folder with moveContentToParent leaves its articles in no folder', async () => {
    const top = await create('Top');
    const filed = await article(top.id, [['en', HelpArticleStatus.PUBLISHED]]);
    await writes.delete(manager, { id: top.id, moveContentToParent: true });
    expect((await dataSource.manager.findOneByOrFail(HelpArticleRow, { id: filed })).folderId).to.equal(null);
    expect((await reads.wholeTree(manager)).data).to.deep.equal([]);
  });

  it('moves a folder with its sub-tree, closing the gap it leaves and emitting one event', async () => {
    const [a, b] = [await create('A'), await create('B')];
    const [a1, a2] = [await create('A1', a.id), await create('A2', a.id)];
    const a11 = await create('A11', a1.id);
    await dataSource.manager.clear(OutboxEvent);
    const moved = await writes.move(manager, { id: a1.id, parentId: b.id, position: 0 });
    expect(moved).to.deep.include({ parentId: b.id, position: 0, depth: 1 });
    const tree = (await reads.wholeTree(manager)).data;
    expect(tree.map((node) => [node.name, node.children.map((child) => [child.name, child.position])])).to.deep.equal([
      ['A', [['A2', 0]]],
      ['B', [['A1', 0]]],
    ]);
    expect(tree[1]?.children[0]?.children.map((node) => [node.id, node.depth])).to.deep.equal([[a11.id, 2]]);
    expect(await eventTypes()).to.deep.equal(['help_folder.moved']);
    // Where it already is: nothing changes, nothing is emitted.
    await writes.move(manager, { id: a2.id, parentId: a.id });
    expect(await eventTypes()).to.deep.equal(['help_folder.moved']);
  });
});
