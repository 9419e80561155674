import { expect } from 'chai';
import { ApiScope, newId } from '@svc/kit';
import { HelpArticleStatus } from '@svc/proto/content/v1/content';
import { type StackHarness, type TestOrg } from '../support/stack-harness';
import { sharedStack } from '../support/shared-stack';
import { dataOf, expectError, expectField, refusalOf } from './inbox-fixtures';

interface Folder {
  id: string;
  parentId: string | null;
  name: string;
  description: string | null;
  position: number;
  depth: number;
  createdAt: string;
  updatedAt: string;
}

interface Node {
  id: string;
  name: string;
  position: number;
  depth: number;
  children: Node[];
}

interface Counts {
  folderId: string;
  published: number;
  draft: number;
  directPublished: number;
  directDraft: number;
}

const FOLDER = 'id parentId name description position depth createdAt updatedAt';
const COUNTS = 'folderId published draft directPublished directDraft';
const LIST = `query($limit: Int, $offset: Int, $parentId: String, $topLevel: Boolean) {
  helpFolders(limit: $limit, offset: $offset, parentId: $parentId, topLevel: $topLevel) { data { ${FOLDER} } totalCount hasMore } }`;
const GET = `query($id: String!) { helpFolder(id: $id) { ${FOLDER} } }`;
/** Five levels: as deep as folders go. */
const TREE = `{ helpFolderTree { id name position depth children { id name position depth children { id name position depth
  children { id name position depth children { id name position depth children { id } } } } } } }`;
const COUNT = `query($id: String!, $locale: String) { helpFolderCounts(id: $id, locale: $locale) { ${COUNTS} } }`;
const BATCH = `query($ids: [String!]!, $locale: String) { helpFolderCountsBatch(ids: $ids, locale: $locale) { ${COUNTS} } }`;
const CREATE = `mutation($i: CreateHelpFolderInput!) { createHelpFolder(input: $i) { ${FOLDER} } }`;
const UPDATE = `mutation($id: String!, $i: UpdateHelpFolderInput!) { updateHelpFolder(id: $id, input: $i) { ${FOLDER} } }`;
const MOVE = `mutation($id: String!, $parentId: String, $position: Int) {
  moveHelpFolder(id: $id, parentId: $parentId, position: $position) { ${FOLDER} } }`;
const DELETE = `mutation($id: String!, $move: Boolean) {
  deleteHelpFolder(id: $id, moveContentToParent: $move) { id movedFolders movedArticles } }`;

const READ_WRITE = [ApiScope.CONTENT_READ, ApiScope.CONTENT_MANAGE];

describe('Help folders (whole stack over HTTP)', function () {
  let harness: StackHarness;

  /** A fresh org and a key of it holding CONTENT_READ and CONTENT_MANAGE. */
  async function newOrg(): Promise<{ org: TestOrg; key: string }> {
    const org = await harness.newOrg('Help');
    return { org, key: (await org.mintKey(READ_WRITE)).key };
  }

  function client(key: string) {
    const call = <T = Record<string, unknown>>(query: string, variables: Record<string, unknown> = {}) =>
      harness.graphql<T>(query, variables, key);
    const gql = <T>(query: string, variables: Record<string, unknown> = {}) => call<T>(query, variables).then(dataOf);
    return {
      call,
      create: async (name: string, parentId?: string, extra: Record<string, unknown> = {}) =>
        (await gql<{ createHelpFolder: Folder }>(CREATE, { i: { name, parentId, ...extra } })).createHelpFolder,
      get: async (id: string) => (await gql<{ helpFolder: Folder }>(GET, { id })).helpFolder,
      list: async (variables: Record<string, unknown> = {}) =>
        (
          await gql<{ helpFolders: { data: Folder[]; totalCount: number; hasMore: boolean } }>(LIST, {
            limit: 100,
            ...variables,
          })
        ).helpFolders,
      tree: async () => (await gql<{ helpFolderTree: Node[] }>(TREE)).helpFolderTree,
      move: async (id: string, parentId: string | null, position?: number) =>
        (await gql<{ moveHelpFolder: Folder }>(MOVE, { id, parentId, position })).moveHelpFolder,
      counts: async (id: string, locale?: string) =>
        (await gql<{ helpFolderCounts: Counts }>(COUNT, { id, locale })).helpFolderCounts,
      batch: async (ids: string[], locale?: string) =>
        (await gql<{ helpFolderCountsBatch: Counts[] }>(BATCH, { ids, locale })).helpFolderCountsBatch,
      remove: async (id: string, move?: boolean) =>
        (
          await gql<{ deleteHelpFolder: { id: string; movedFolders: number; movedArticles: number } }>(DELETE, {
            id,
            move,
          })
        ).deleteHelpFolder,
    };
  }

  /** An article filed in `folderId` with a translation per entry (the first in its default locale), through GraphQL. */
  async function fileArticle(
    key: string,
    folderId: string | null,
    translations: [locale: string, status: HelpArticleStatus][],
  ): Promise<string> {
    const gql = <T>(query: string, variables: Record<string, unknown>) =>
      harness.graphql<T>(query, variables, key).then(dataOf);
    const [[locale, status] = ['en', HelpArticleStatus.DRAFT], ...others] = translations;
    const text = { title: `Article ${newId()}`, bodyMarkdown: 'Body' };
    const { id } = (
      await gql<{ createHelpArticle: { id: string } }>(
        'mutation($i: CreateHelpArticleInput!) { createHelpArticle(input: $i) { id } }',
        { i: { ...text, locale, folderId } },
      )
    ).createHelpArticle;
    for (const [other] of others)
      await gql(
        'mutation($id: String!, $i: CreateHelpArticleTranslationInput!) { createHelpArticleTranslation(id: $id, input: $i) { id } }',
        { id, i: { ...text, locale: other } },
      );
    for (const [published] of [[locale, status], ...others].filter(
      ([, state]) => state === HelpArticleStatus.PUBLISHED,
    ))
      await gql('mutation($id: String!, $l: String) { publishHelpArticle(id: $id, locale: $l) { id } }', {
        id,
        l: published,
      });
    return id;
  }

  const folderOfArticle = async (key: string, id: string) =>
    dataOf(
      await harness.graphql<{ helpArticle: { folderId: string | null } }>(
        'query($id: String!) { helpArticle(id: $id) { folderId } }',
        { id },
        key,
      ),
    ).helpArticle.folderId;

  before(async function () {
    this.timeout(120_000);
    harness = await sharedStack();
  });

  describe('reads and writes', () => {
    it('creates folders at positions, reads one, lists children, the top level and every folder in tree order', async () => {
      const { key } = await newOrg();
      const api = client(key);
      const guides = await api.create('  Guides ', undefined, { description: 'How to' });
      expect(guides).to.deep.include({ name: 'Guides', description: 'How to', parentId: null, position: 0, depth: 0 });
      const billing = await api.create('Billing');
      const setup = await api.create('Setup', guides.id);
      const first = await api.create('First steps', guides.id, { position: 0 });
      const faq = await api.create('FAQ', undefined, { position: 1 });
      expect(first).to.deep.include({ parentId: guides.id, position: 0, depth: 1 });
      expect(await api.get(setup.id)).to.deep.include({ id: setup.id, position: 1, depth: 1 });
      expect((await api.list({ parentId: guides.id })).data.map((f) => f.name)).to.deep.equal(['First steps', 'Setup']);
      expect((await api.list({ topLevel: true })).data.map((f) => [f.name, f.position])).to.deep.equal([
        ['Guides', 0],
        ['FAQ', 1],
        ['Billing', 2],
      ]);
      const all = await api.list();
      expect(all.data.map((f) => f.name)).to.deep.equal(['Guides', 'First steps', 'Setup', 'FAQ', 'Billing']);
      expect([all.totalCount, all.hasMore]).to.deep.equal([5, false]);
      expect(all.data.find((f) => f.id === faq.id)).to.deep.equal(await api.get(faq.id));
      expect(billing.id).to.be.a('string');
    });

    it('updates the name and description, keeping what is omitted; an empty description removes it', async () => {
      const { key } = await newOrg();
      const api = client(key);
      const folder = await api.create('Guides', undefined, { description: 'old' });
      const renamed = dataOf(
        await api.call<{ updateHelpFolder: Folder }>(UPDATE, { id: folder.id, i: { name: 'Docs' } }),
      ).updateHelpFolder;
      expect(renamed).to.deep.include({ name: 'Docs', description: 'old', createdAt: folder.createdAt });
      const cleared = dataOf(
        await api.call<{ updateHelpFolder: Folder }>(UPDATE, { id: folder.id, i: { description: '' } }),
      ).updateHelpFolder;
      expect(cleared).to.deep.include({ name: 'Docs', description: null });
      expect(await api.get(folder.id)).to.deep.equal(cleared);
    });

    it('refuses bad input naming the field (BAD_USER_INPUT), and an unknown id (NOT_FOUND)', async () => {
      const { key } = await newOrg();
      const api = client(key);
      const folder = await api.create('Guides');
      const cases: [string, Record<string, unknown>, string][] = [
        [CREATE, { i: { name: ' ' } }, 'name'],
        [CREATE, { i: { name: 'x'.repeat(201) } }, 'name'],
        [CREATE, { i: { name: 'x', description: 'd'.repeat(2001) } }, 'description'],
        [CREATE, { i: { name: 'x', parentId: 'not-an-id' } }, 'parentId'],
        [CREATE, { i: { name: 'x', position: -1 } }, 'position'],
        [CREATE, { i: { name: 'x', position: 2 } }, 'position'],
        [UPDATE, { id: folder.id, i: { name: '' } }, 'name'],
        [MOVE, { id: folder.id, parentId: null, position: 5 }, 'position'],
        [LIST, { limit: 0 }, 'limit'],
        [LIST, { limit: 101 }, 'limit'],
        [LIST, { offset: -1 }, 'offset'],
        [LIST, { parentId: folder.id, topLevel: true }, 'topLevel'],
        [GET, { id: 'nope' }, 'id'],
        [COUNT, { id: folder.id, locale: 'not a locale!' }, 'locale'],
        [BATCH, { ids: Array.from({ length: 101 }, () => folder.id) }, 'ids'],
      ];
      for (const [query, variables, field] of cases)
        expectField(await api.call(query, variables), 'BAD_USER_INPUT', field);
      const unknown = newId();
      for (const [query, variables, field] of [
        [GET, { id: unknown }, 'id'],
        [COUNT, { id: unknown }, 'id'],
        [BATCH, { ids: [folder.id, unknown] }, 'ids'],
        [LIST, { parentId: unknown }, 'parentId'],
        [CREATE, { i: { name: 'x', parentId: unknown } }, 'parentId'],
        [UPDATE, { id: unknown, i: { name: 'x' } }, 'id'],
        [MOVE, { id: unknown }, 'id'],
        [MOVE, { id: folder.id, parentId: unknown }, 'parentId'],
        [DELETE, { id: unknown }, 'id'],
      ] as const)
        expectField(await api.call(query, variables), 'NOT_FOUND', field);
      expect((await api.list()).data.map((f) => f.id)).to.deep.equal([folder.id]);
    });

    it('pages without skips or repeats for every limit, with totalCount and hasMore', async () => {
      const { key } = await newOrg();
      const api = client(key);
      const top = await api.create('Top');
      for (let i = 0; i < 4; i += 1) await api.create(`Child ${i}`, top.id, { position: 0 });
      for (let i = 0; i < 2; i += 1) await api.create(`Top ${i}`);
      for (const filter of [{}, { parentId: top.id }, { topLevel: true }]) {
        const whole = await api.list(filter);
        for (const limit of [1, 2, 3]) {
          const seen: string[] = [];
          for (let offset = 0; ; offset += limit) {
            const page = await api.list({ ...filter, limit, offset });
            expect(page.totalCount).to.equal(whole.totalCount);
            seen.push(...page.data.map((f) => f.id));
            expect(page.hasMore).to.equal(offset + limit < whole.totalCount);
            if (!page.hasMore) break;
          }
          expect(seen, `${JSON.stringify(filter)} by ${limit}`).to.deep.equal(whole.data.map((f) => f.id));
        }
      }
      expect((await api.list({ offset: 100 })).data).to.deep.equal([]);
    });
  });

  describe('the tree and moves', () => {
    it('answers the whole tree nested, five levels deep, and refuses a sixth (FAILED_PRECONDITION)', async () => {
      const { key } = await newOrg();
      const api = client(key);
      const levels: Folder[] = [];
      for (let level = 0; level < 5; level += 1) levels.push(await api.create(`Level ${level}`, levels.at(-1)?.id));
      const other = await api.create('Other');
      expectField(
        await api.call(CREATE, { i: { name: 'Too deep', parentId: levels[4]?.id } }),
        'FAILED_PRECONDITION',
        'parentId',
      );
      const tree = await api.tree();
      expect(tree.map((node) => node.name)).to.deep.equal(['Level 0', 'Other']);
      let node = tree[0];
      for (let level = 0; level < 5; level += 1) {
        expect(node).to.deep.include({ id: levels[level]?.id, depth: level, position: 0 });
        node = level < 4 ? node?.children[0] : node;
      }
      expect(node?.children).to.deep.equal([]);
      expect(other.depth).to.equal(0);
    });

    it('moves a folder with its sub-tree under another, to a position, and back to the top', async () => {
      const { key } = await newOrg();
      const api = client(key);
      const [a, b] = [await api.create('A'), await api.create('B')];
      const [b1, b2] = [await api.create('B1', b.id), await api.create('B2', b.id)];
      const b11 = await api.create('B11', b1.id);
      const moved = await api.move(b1.id, a.id);
      expect(moved).to.deep.include({ id: b1.id, parentId: a.id, position: 0, depth: 1 });
      expect(moved.updatedAt >= b1.updatedAt).to.equal(true);
      expect(await api.get(b11.id)).to.deep.include({ parentId: b1.id, depth: 2 });
      expect(await api.get(b2.id)).to.deep.include({ position: 0 });
      expect(await api.move(b2.id, a.id, 0)).to.deep.include({ position: 0, depth: 1 });
      expect((await api.list({ parentId: a.id })).data.map((f) => [f.name, f.position])).to.deep.equal([
        ['B2', 0],
        ['B1', 1],
      ]);
      expect(await api.move(b1.id, null, 0)).to.deep.include({ parentId: null, position: 0, depth: 0 });
      expect((await api.list({ topLevel: true })).data.map((f) => f.name)).to.deep.equal(['B1', 'A', 'B']);
      // Reordering among the same siblings.
      expect(await api.move(b.id, null, 0)).to.deep.include({ position: 0 });
      expect((await api.list({ topLevel: true })).data.map((f) => f.name)).to.deep.equal(['B', 'B1', 'A']);
    });

    it('refuses moving a folder under itself or a folder under it, or too deep (FAILED_PRECONDITION), changing nothing', async () => {
      const { key } = await newOrg();
      const api = client(key);
      const a = await api.create('A');
      const child = await api.create('Child', a.id);
      const grandchild = await api.create('Grandchild', child.id);
      const before = await api.tree();
      for (const parentId of [a.id, child.id, grandchild.id])
        expectField(await api.call(MOVE, { id: a.id, parentId }), 'FAILED_PRECONDITION', 'parentId');
      const chain: Folder[] = [];
      for (let level = 0; level < 3; level += 1) chain.push(await api.create(`Chain ${level}`, chain.at(-1)?.id));
      // A's three levels under the third of a chain would reach a sixth level.
      expectField(await api.call(MOVE, { id: a.id, parentId: chain[2]?.id }), 'FAILED_PRECONDITION', 'parentId');
      expect(await api.move(a.id, chain[1]?.id as string)).to.deep.include({ depth: 2 });
      expect((await api.tree()).filter((node) => node.id !== chain[0]?.id)).to.deep.equal(
        before.filter((node) => node.id !== a.id),
      );
    });
  });

  describe('counts', () => {
    it('counts published and draft articles with sub-folders, by default locale or the locale asked, one or many', async () => {
      const { key } = await newOrg();
      const api = client(key);
      const top = await api.create('Top');
      const sub = await api.create('Sub', top.id);
      const subsub = await api.create('Subsub', sub.id);
      const empty = await api.create('Empty');
      const { PUBLISHED, DRAFT } = HelpArticleStatus;
      await fileArticle(key, top.id, [['en', PUBLISHED]]);
      await fileArticle(key, top.id, [
        ['en', DRAFT],
        ['pt-BR', PUBLISHED],
      ]);
      await fileArticle(key, sub.id, [
        ['en', PUBLISHED],
        ['pt-BR', DRAFT],
      ]);
      await fileArticle(key, subsub.id, [['pt-BR', PUBLISHED]]);
      await fileArticle(key, null, [['en', PUBLISHED]]);
      expect(await api.counts(top.id)).to.deep.equal({
        folderId: top.id,
        published: 3,
        draft: 1,
        directPublished: 1,
        directDraft: 1,
      });
      expect(await api.counts(top.id, 'pt-br')).to.deep.equal({
        folderId: top.id,
        published: 2,
        draft: 1,
        directPublished: 1,
        directDraft: 0,
      });
      const batch = await api.batch([subsub.id, empty.id, top.id, sub.id, subsub.id]);
      expect(batch.map((c) => [c.folderId, c.published, c.draft, c.directPublished, c.directDraft])).to.deep.equal([
        [subsub.id, 1, 0, 1, 0],
        [empty.id, 0, 0, 0, 0],
        [top.id, 3, 1, 1, 1],
        [sub.id, 2, 0, 1, 0],
      ]);
      expect(await api.batch([])).to.deep.equal([]);
    });
  });

  describe('deleting', () => {
    it('deletes an empty folder; refuses one with content unless moveContentToParent moves it up', async () => {
      const { key } = await newOrg();
      const api = client(key);
      const top = await api.create('Top');
      const [before, middle, after] = [
        await api.create('1', top.id),
        await api.create('2', top.id),
        await api.create('3', top.id),
      ];
      const inner = await api.create('2.1', middle.id);
      const filed = await fileArticle(key, middle.id, [['en', HelpArticleStatus.PUBLISHED]]);
      await fileArticle(key, middle.id, [['en', HelpArticleStatus.DRAFT]]);
      expectField(await api.call(DELETE, { id: middle.id }), 'FAILED_PRECONDITION', 'id');
      expect(await api.get(middle.id)).to.deep.include({ name: '2' });

      expect(await api.remove(middle.id, true)).to.deep.equal({ id: middle.id, movedFolders: 1, movedArticles: 2 });
      expectField(await api.call(GET, { id: middle.id }), 'NOT_FOUND', 'id');
      expect((await api.list({ parentId: top.id })).data.map((f) => [f.id, f.position])).to.deep.equal([
        [before.id, 0],
        [inner.id, 1],
        [after.id, 2],
      ]);
      expect(await api.counts(top.id)).to.deep.include({ published: 1, draft: 1, directPublished: 1, directDraft: 1 });
      expect(await folderOfArticle(key, filed)).to.equal(top.id);

      expect(await api.remove(inner.id)).to.deep.equal({ id: inner.id, movedFolders: 0, movedArticles: 0 });
      expect((await api.list({ parentId: top.id })).data.map((f) => [f.id, f.position])).to.deep.equal([
        [before.id, 0],
        [after.id, 1],
      ]);
    });
  });

  describe('scopes and orgs', () => {
    it('refuses the reads without CONTENT_READ and the writes without CONTENT_MANAGE (403 FORBIDDEN)', async () => {
      const { org, key } = await newOrg();
      const folder = await client(key).create('Guides');
      const readOnly = (await org.mintKey([ApiScope.CONTENT_READ])).key;
      const writeOnly = (await org.mintKey([ApiScope.CONTENT_MANAGE])).key;
      for (const [query, variables] of [
        [LIST, {}],
        [GET, { id: folder.id }],
        [TREE, {}],
        [COUNT, { id: folder.id }],
        [BATCH, { ids: [folder.id] }],
      ] as const)
        expectError(await client(writeOnly).call(query, variables), 403, 'FORBIDDEN');
      for (const [query, variables] of [
        [CREATE, { i: { name: 'x' } }],
        [UPDATE, { id: folder.id, i: { name: 'x' } }],
        [MOVE, { id: folder.id, parentId: null, position: 0 }],
        [DELETE, { id: folder.id }],
      ] as const)
        expectError(await client(readOnly).call(query, variables), 403, 'FORBIDDEN');
      expect(await client(readOnly).get(folder.id)).to.deep.include({ name: 'Guides' });
    });

    it('answers another org’s folder ids exactly like unknown ones, and changes nothing of it', async () => {
      const a = await newOrg();
      const b = await newOrg();
      const [apiA, apiB] = [client(a.key), client(b.key)];
      const theirs = await apiA.create('Theirs');
      const theirChild = await apiA.create('Their child', theirs.id);
      const mine = await apiB.create('Mine');
      const treeBefore = await apiA.tree();
      const calls: [string, (id: string) => Record<string, unknown>][] = [
        [GET, (id) => ({ id })],
        [COUNT, (id) => ({ id })],
        [BATCH, (id) => ({ ids: [mine.id, id] })],
        [LIST, (id) => ({ parentId: id })],
        [CREATE, (id) => ({ i: { name: 'x', parentId: id } })],
        [UPDATE, (id) => ({ id, i: { name: 'x' } })],
        [MOVE, (id) => ({ id, parentId: null })],
        // Moving one's own folder under another org's.
        [MOVE, (id) => ({ id: mine.id, parentId: id })],
        [DELETE, (id) => ({ id, move: true })],
      ];
      for (const [query, variables] of calls) {
        const unknown = newId();
        const foreign = refusalOf(await apiB.call(query, variables(theirs.id)), theirs.id);
        expect(foreign.code, query).to.equal('NOT_FOUND');
        expect(foreign).to.deep.equal(refusalOf(await apiB.call(query, variables(unknown)), unknown));
      }
      expect(await apiA.tree()).to.deep.equal(treeBefore);
      expect((await apiB.tree()).map((node) => [node.id, node.children.length])).to.deep.equal([[mine.id, 0]]);
      expect(await apiA.get(theirChild.id)).to.deep.include({ parentId: theirs.id });
    });
  });
});
