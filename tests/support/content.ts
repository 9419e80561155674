import { HelpArticleStatus, NewsPostState_Status as NewsPostStatus } from '@svc/proto/content/v1/content';
import type { StackHarness } from './stack-harness';

export { HelpArticleStatus, NewsPostStatus };

export interface TranslationSeed {
  locale: string;
  title: string;
  slug?: string;
  markdown?: string;
  status?: HelpArticleStatus;
}

/** The states a seeded post is moved to from DRAFT, each by one public operation. */
type SeededNewsStatus =
  NewsPostStatus.DRAFT | NewsPostStatus.SCHEDULED | NewsPostStatus.PUBLISHED | NewsPostStatus.ARCHIVED;
const NEWS_MOVES: Record<Exclude<SeededNewsStatus, NewsPostStatus.DRAFT>, string> = {
  [NewsPostStatus.SCHEDULED]: 'mutation($id: String!, $at: DateTime!) { scheduleNewsPost(id: $id, at: $at) { id } }',
  [NewsPostStatus.PUBLISHED]: 'mutation($id: String!) { publishNewsPost(id: $id) { id } }',
  [NewsPostStatus.ARCHIVED]: 'mutation($id: String!) { archiveNewsPost(id: $id) { id } }',
};

/**
 * Help and news content of one org written through the public GraphQL operations (with a token holding
 * CONTENT_MANAGE), so their checks, rendering, search index and events run as for any client.
 */
export class ContentFixtures {
  /** Help tags, news categories and news tags made here, by kind and name. */
  private readonly terms = new Map<string, string>();

  constructor(
    readonly harness: StackHarness,
    readonly token: string,
  ) {}

  private async call<T>(query: string, variables: Record<string, unknown>): Promise<T> {
    const response = await this.harness.graphql<T>(query, variables, this.token);
    if (!response.body.data || response.body.errors) throw new Error(`${query}: ${JSON.stringify(response.body)}`);
    return response.body.data;
  }

  async folder(name: string, parentId: string | null = null, description: string | null = null): Promise<string> {
    const { createHelpFolder } = await this.call<{ createHelpFolder: { id: string } }>(
      'mutation($i: CreateHelpFolderInput!) { createHelpFolder(input: $i) { id } }',
      { i: { name, parentId, description } },
    );
    return createHelpFolder.id;
  }

  /** An article whose first translation's locale is its default; each translation DRAFT unless said otherwise. */
  async article(translations: TranslationSeed[], folderId: string | null = null): Promise<string> {
    const [first, ...others] = translations;
    if (!first) throw new Error('an article needs a translation');
    const body = (seed: TranslationSeed) => ({
      locale: seed.locale,
      title: seed.title,
      bodyMarkdown: seed.markdown ?? `About ${seed.title}.`,
      slug: seed.slug,
    });
    const { createHelpArticle } = await this.call<{ createHelpArticle: { id: string } }>(
      'mutation($i: CreateHelpArticleInput!) { createHelpArticle(input: $i) { id } }',
      { i: { ...body(first), folderId } },
    );
    const id = createHelpArticle.id;
    for (const seed of others)
      await this.call(
        'mutation($id: String!, $i: CreateHelpArticleTranslationInput!) { createHelpArticleTranslation(id: $id, input: $i) { id } }',
        { id, i: body(seed) },
      );
    for (const seed of translations.filter((seed) => seed.status === HelpArticleStatus.PUBLISHED))
      await this.call('mutation($id: String!, $l: String) { publishHelpArticle(id: $id, locale: $l) { id } }', {
        id,
        l: seed.locale,
      });
    return id;
  }

  /**
   * A post moved from DRAFT to `status` (publishing stamps the time it is called: posts published one after the other
   * list newest last); a SCHEDULED one is due in a day.
   */
  async newsPost(
    post: { status: SeededNewsStatus; categories?: string[]; tags?: string[] },
    translations: { locale: string; title: string; markdown?: string }[],
  ): Promise<string> {
    const [first, ...others] = translations;
    if (!first) throw new Error('a news post needs a translation');
    const body = (seed: (typeof translations)[number]) => ({
      locale: seed.locale,
      title: seed.title,
      bodyMarkdown: seed.markdown ?? `News: ${seed.title}.`,
    });
    const categoryIds = [];
    for (const name of post.categories ?? []) categoryIds.push(await this.term('NewsCategory', name));
    const tagIds = [];
    for (const name of post.tags ?? []) tagIds.push(await this.term('NewsTag', name));
    const { createNewsPost } = await this.call<{ createNewsPost: { id: string } }>(
      'mutation($i: CreateNewsPostInput!) { createNewsPost(input: $i) { id } }',
      { i: { ...body(first), categoryIds, tagIds } },
    );
    const id = createNewsPost.id;
    for (const seed of others)
      await this.call(
        'mutation($id: String!, $i: CreateNewsPostTranslationInput!) { createNewsPostTranslation(id: $id, input: $i) { id } }',
        { id, i: body(seed) },
      );
    if (post.status === NewsPostStatus.SCHEDULED)
      await this.call(NEWS_MOVES[post.status], { id, at: new Date(Date.now() + 86_400_000).toISOString() });
    else if (post.status !== NewsPostStatus.DRAFT) await this.call(NEWS_MOVES[post.status], { id });
    return id;
  }

  /** The id of the org's help tag, news category or news tag of this name, created here the first time. */
  async term(kind: 'HelpTag' | 'NewsCategory' | 'NewsTag', name: string): Promise<string> {
    const known = this.terms.get(`${kind}:${name}`);
    if (known) return known;
    const created = await this.call<Record<string, { id: string }>>(
      `mutation($i: TaxonomyTermInput!) { create${kind}(input: $i) { id } }`,
      { i: { name } },
    );
    const id = created[`create${kind}`]?.id ?? '';
    this.terms.set(`${kind}:${name}`, id);
    return id;
  }
}
