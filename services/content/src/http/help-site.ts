import type { HelpFolderRow } from '../entities';
import type { PublishedArticle, PublishedHelp, PublishedTranslation } from '../domain/public/published-help';
import { byTitle, subtreeCounts } from '../domain/public/published-help';

/** A locale's version of a page, for `hreflang` alternates and the sitemap. */
export interface Alternate {
  locale: string;
  path: string;
}

interface PageBase {
  path: string;
  locale: string;
  /** Every locale's version of this page (itself included), by locale. */
  alternates: Alternate[];
  /** The page for readers whose language none of the alternates is (`hreflang="x-default"`). */
  xDefault: string;
}

export type HelpPage =
  | (PageBase & { kind: 'home' })
  | (PageBase & { kind: 'folder'; folder: HelpFolderRow })
  | (PageBase & { kind: 'article'; article: PublishedArticle; translation: PublishedTranslation });

/** The paths of an org's public help center (docs/decisions/0187). */
export const helpPaths = {
  root: (org: string) => `/help/${org}`,
  sitemap: (org: string) => `/help/${org}/sitemap.xml`,
  home: (org: string, locale: string) => `/help/${org}/${locale}`,
  folder: (org: string, locale: string, folderId: string) =>
    `/help/${org}/${locale}/folders/${encodeURIComponent(folderId)}`,
  article: (org: string, locale: string, slug: string) => `/help/${org}/${locale}/articles/${encodeURIComponent(slug)}`,
};

/**
 * Every public page of an org's help center, derived from its published content alone, so the sitemap and the pages
 * agree by construction (docs/decisions/0187): a home per locale with a published article, a folder page per locale
 * in which the folder (or a sub-folder) holds a published article, and a page per published article translation.
 */
export class HelpSite {
  readonly locales: string[];
  readonly pages: HelpPage[];
  private readonly byPath: Map<string, HelpPage>;
  private readonly countsByLocale: Map<string, Map<string, number>>;

  constructor(
    readonly orgSlug: string,
    readonly help: PublishedHelp,
  ) {
    this.locales = [...new Set(help.articles.flatMap((a) => [...a.translations.keys()]))].sort();
    this.countsByLocale = new Map(
      this.locales.map((locale) => [
        locale,
        subtreeCounts(
          help.folders,
          this.articlesIn(locale).map(({ article }) => article.article.folderId),
        ),
      ]),
    );
    const root = helpPaths.root(orgSlug);
    const homes = this.locales.map((locale) => ({ locale, path: helpPaths.home(orgSlug, locale) }));
    const pages: HelpPage[] = homes.map((home) => ({ kind: 'home', ...home, alternates: homes, xDefault: root }));
    for (const folder of help.folders) {
      const alternates = this.locales
        .filter((locale) => this.articleCount(locale, folder.id) > 0)
        .map((locale) => ({ locale, path: helpPaths.folder(orgSlug, locale, folder.id) }));
      for (const alternate of alternates)
        pages.push({ kind: 'folder', ...alternate, alternates, xDefault: root, folder });
    }
    for (const article of help.articles) {
      const alternates = [...article.translations.values()]
        .map((t) => ({ locale: t.locale, path: helpPaths.article(orgSlug, t.locale, t.slug) }))
        .sort((a, b) => (a.locale < b.locale ? -1 : 1));
      const xDefault =
        alternates.find((alternate) => alternate.locale === article.article.defaultLocale) ?? alternates[0];
      for (const alternate of alternates) {
        const translation = article.translations.get(alternate.locale);
        if (translation && xDefault)
          pages.push({ kind: 'article', ...alternate, alternates, xDefault: xDefault.path, article, translation });
      }
    }
    this.pages = pages;
    this.byPath = new Map(pages.map((page) => [page.path, page]));
  }

  page(path: string): HelpPage | undefined {
    return this.byPath.get(path);
  }

  /** Articles published in `locale`, by title. */
  articlesIn(
    locale: string,
    folderId?: string | null,
  ): { article: PublishedArticle; translation: PublishedTranslation }[] {
    return this.help.articles
      .flatMap((article) => {
        const translation = article.translations.get(locale);
        if (!translation) return [];
        if (folderId !== undefined && article.article.folderId !== folderId) return [];
        return [{ article, translation }];
      })
      .sort((a, b) => byTitle(a.translation, b.translation));
  }

  /** Articles published in `locale` in the folder and its sub-folders. */
  articleCount(locale: string, folderId: string): number {
    return this.countsByLocale.get(locale)?.get(folderId) ?? 0;
  }

  /** The sub-folders (top-level ones for null) holding an article published in `locale`, in their order. */
  foldersIn(locale: string, parentId: string | null): HelpFolderRow[] {
    const known = new Set(this.help.folders.map((folder) => folder.id));
    return this.help.folders.filter(
      (folder) =>
        (folder.parentId && known.has(folder.parentId) ? folder.parentId : null) === parentId &&
        this.articleCount(locale, folder.id) > 0,
    );
  }

  /** The folder and its ancestors, top first (a looping parent link stops at the folder met twice). */
  trail(folderId: string | null): HelpFolderRow[] {
    const byId = new Map(this.help.folders.map((folder) => [folder.id, folder]));
    const trail: HelpFolderRow[] = [];
    for (let folder = folderId ? byId.get(folderId) : undefined; folder && !trail.includes(folder);) {
      trail.unshift(folder);
      folder = folder.parentId ? byId.get(folder.parentId) : undefined;
    }
    return trail;
  }
}
