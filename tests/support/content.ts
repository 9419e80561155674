import { newId } from '@svc/kit';
import {
  HelpArticleRow,
  HelpArticleTranslationRow,
  HelpFolderRow,
  type HelpTagRow,
  NewsCategoryRow,
  NewsPostCategoryRow,
  NewsPostRow,
  NewsPostTagRow,
  NewsPostTranslationRow,
  NewsTagRow,
  indexTranslation,
  renderMarkdown,
} from '@svc/content';
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

/**
 * Help and news content of one org written straight into the content service's database, as its write operations
 * store it (rendered Markdown, search index rows): for the public reads' tests, independent of the GraphQL writes.
 */
export class ContentFixtures {
  private position = 0;

  constructor(
    readonly harness: StackHarness,
    readonly orgId: string,
  ) {}

  private get dataSource() {
    return this.harness.stack.content.dataSource;
  }

  async folder(name: string, parentId: string | null = null, description: string | null = null): Promise<string> {
    const at = new Date();
    const id = newId();
    this.position += 1;
    await this.dataSource.getRepository(HelpFolderRow).insert({
      id,
      orgId: this.orgId,
      parentId,
      name,
      description,
      position: this.position,
      createdAt: at,
      updatedAt: at,
    });
    return id;
  }

  /** An article whose first translation's locale is its default; each translation DRAFT unless said otherwise. */
  async article(translations: TranslationSeed[], folderId: string | null = null): Promise<string> {
    const at = new Date();
    const id = newId();
    await this.dataSource.transaction(async (manager) => {
      await manager.getRepository(HelpArticleRow).insert({
        id,
        orgId: this.orgId,
        folderId,
        authorId: newId(),
        defaultLocale: translations[0]?.locale ?? 'en',
        createdAt: at,
        updatedAt: at,
      });
      for (const seed of translations) {
        const markdown = seed.markdown ?? `About ${seed.title}.`;
        const status = seed.status ?? HelpArticleStatus.DRAFT;
        const row = Object.assign(new HelpArticleTranslationRow(), {
          id: newId(),
          orgId: this.orgId,
          articleId: id,
          locale: seed.locale,
          title: seed.title,
          slug: seed.slug ?? `${seed.title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-${newId().slice(-4)}`,
          bodyMarkdown: markdown,
          bodyHtml: renderMarkdown(markdown),
          status,
          publishedAt: status === HelpArticleStatus.PUBLISHED ? at : null,
          createdAt: at,
          updatedAt: at,
        });
        await manager.getRepository(HelpArticleTranslationRow).insert(row);
        await indexTranslation(manager, row);
      }
    });
    return id;
  }

  async newsPost(
    post: { status: NewsPostStatus; publishedAt?: Date; categories?: string[]; tags?: string[] },
    translations: { locale: string; title: string; markdown?: string }[],
  ): Promise<string> {
    const at = new Date();
    const id = newId();
    const repo = <T extends object>(target: new () => T) => this.dataSource.getRepository(target);
    await repo(NewsPostRow).insert({
      id,
      orgId: this.orgId,
      authorId: newId(),
      defaultLocale: translations[0]?.locale ?? 'en',
      status: post.status,
      scheduledAt: post.status === NewsPostStatus.SCHEDULED ? new Date(Date.now() + 86_400_000) : null,
      publishedAt: post.publishedAt ?? (post.status === NewsPostStatus.DRAFT ? null : at),
      archivedAt: post.status === NewsPostStatus.ARCHIVED ? at : null,
      createdAt: at,
      updatedAt: at,
    });
    for (const seed of translations) {
      const markdown = seed.markdown ?? `News: ${seed.title}.`;
      await repo(NewsPostTranslationRow).insert({
        id: newId(),
        orgId: this.orgId,
        postId: id,
        locale: seed.locale,
        title: seed.title,
        bodyMarkdown: markdown,
        bodyHtml: renderMarkdown(markdown),
        createdAt: at,
        updatedAt: at,
      });
    }
    for (const name of post.categories ?? []) {
      const categoryId = await this.term(NewsCategoryRow, name);
      await repo(NewsPostCategoryRow).insert({ postId: id, categoryId, orgId: this.orgId });
    }
    for (const name of post.tags ?? []) {
      const tagId = await this.term(NewsTagRow, name);
      await repo(NewsPostTagRow).insert({ postId: id, tagId, orgId: this.orgId });
    }
    return id;
  }

  /** The id of the org's help tag, news category or news tag of this name, created when missing. */
  async term(target: typeof HelpTagRow | typeof NewsCategoryRow | typeof NewsTagRow, name: string): Promise<string> {
    const repository = this.dataSource.getRepository<HelpTagRow | NewsCategoryRow | NewsTagRow>(target);
    const nameKey = name.trim().toLowerCase();
    const found = await repository.findOneBy({ orgId: this.orgId, nameKey });
    if (found) return found.id;
    const at = new Date();
    const id = newId();
    await repository.insert({ id, orgId: this.orgId, name, nameKey, createdAt: at, updatedAt: at });
    return id;
  }
}
