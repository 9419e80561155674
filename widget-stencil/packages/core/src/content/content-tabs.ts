import { type VNode, type h as StencilH } from '@stencil/core';
import {
  ContentReader,
  type ContentPage,
  type HelpArticle,
  type HelpArticleSummary,
  type NewsPost,
} from '@svc-inbox/widget-client';
import { type ShippedLocale, type Strings } from '../i18n/strings';
import { CONTENT_CSS } from './content-css';
import { CONTENT_STRINGS, type ContentStrings } from './content-strings';

export type ContentTab = 'help' | 'news';

const PAGE_SIZE = 20;
const SEARCH_DELAY_MS = 250;

interface Listing<T> {
  items: T[];
  hasMore: boolean;
  loading: boolean;
  failed: boolean;
  /** The locale the items were read in: a different UI locale reads them again. */
  locale?: string;
}

type Loaded<T> = { value: T } | 'loading' | 'failed';

// The JSX factory (tsconfig `jsxFactory`) is the element's own, handed over by `createContentTabs`: importing
// Stencil's here would make this chunk and the element's share a chunk, which costs the first paint ~500 B gzip.
let h: Factory;

// What JSX hands Stencil's `h` (whose declared type is narrower: no arrays, no null, `class` as a map only).
type Child = VNode | string | null | Child[];
type Factory = (tag: string, data: Record<string, unknown> | null, ...children: Child[]) => VNode;

function emptyListing<T>(): Listing<T> {
  return { items: [], hasMore: false, loading: false, failed: false };
}

/** The tabs, drawing with `jsx`: the element's `h`. */
export function createContentTabs(jsx: typeof StencilH, options: ContentTabsOptions): ContentTabs {
  h = jsx as unknown as Factory;
  return new ContentTabs(options);
}

export interface ContentTabsOptions {
  api: string;
  publicKey: string;
  /** The widget's UI locale: what the content is asked for in (the server falls back per item). */
  locale(): ShippedLocale;
  /** Called after every change of what the tabs show. */
  changed(): void;
}

/**
 * The Help tab (search, list, one article) and the News tab (newest first): a chunk of its own, loaded the first time
 * a tab is opened (decision 0205). Article and post bodies are the content service's sanitised `bodyHtml`, the only
 * text inserted as HTML; every other field is text.
 */
export class ContentTabs {
  private readonly reader: ContentReader;
  private help = emptyListing<HelpArticleSummary>();
  private news = emptyListing<NewsPost>();
  private query = '';
  private article: Loaded<HelpArticle> | null = null;
  private searchTimer?: ReturnType<typeof setTimeout>;
  // Answers of a superseded request (an older search, an article left) are dropped.
  private helpTicket = 0;
  private articleTicket = 0;

  constructor(private readonly options: ContentTabsOptions) {
    this.reader = new ContentReader(options.api, options.publicKey);
  }

  /** The Help tab: the article `articleId`, else the list (read once per locale). */
  showHelp(articleId?: string): void {
    if (articleId) return void this.openArticle(articleId);
    this.article = null;
    this.options.changed();
    if (this.help.locale !== this.options.locale() && !this.help.loading) void this.loadArticles(false);
  }

  showNews(): void {
    if (this.news.locale !== this.options.locale() && !this.news.loading) void this.loadNews(false);
  }

  render(tab: ContentTab, t: Strings, locale: ShippedLocale) {
    const c = CONTENT_STRINGS[locale];
    return h(
      'div',
      {
        class: 'content',
        role: 'tabpanel',
        id: `svc-${tab}`,
        'aria-labelledby': `svc-tab-${tab}`,
        tabindex: '0',
      },
      h('style', null, CONTENT_CSS),
      tab === 'news' ? this.renderNews(t, c, locale) : this.renderHelp(t, c),
    );
  }

  private async loadArticles(more: boolean) {
    const ticket = ++this.helpTicket;
    const locale = this.options.locale();
    const offset = more ? this.help.items.length : 0;
    this.help = { ...this.help, loading: true, failed: false };
    this.options.changed();
    const page = await this.reader.helpArticles({ locale, q: this.query, limit: PAGE_SIZE, offset }).catch(() => null);
    if (ticket !== this.helpTicket) return;
    this.help = listing(more ? this.help.items : [], page, locale);
    this.options.changed();
  }

  private async loadNews(more: boolean) {
    const locale = this.options.locale();
    this.news = { ...this.news, loading: true, failed: false };
    this.options.changed();
    const offset = more ? this.news.items.length : 0;
    const page = await this.reader.news({ locale, limit: PAGE_SIZE, offset }).catch(() => null);
    this.news = listing(more ? this.news.items : [], page, locale);
    this.options.changed();
  }

  private async openArticle(articleId: string) {
    const ticket = ++this.articleTicket;
    this.article = 'loading';
    this.options.changed();
    const article = await this.reader.helpArticle(articleId, this.options.locale()).catch(() => null);
    if (ticket !== this.articleTicket || this.article === null) return;
    this.article = article ? { value: article } : 'failed';
    this.options.changed();
  }

  private onSearch = (event: Event) => {
    this.query = (event.target as HTMLInputElement).value;
    clearTimeout(this.searchTimer);
    this.searchTimer = setTimeout(() => void this.loadArticles(false), SEARCH_DELAY_MS);
  };

  private onSearchSubmit = (event: Event) => {
    event.preventDefault();
    clearTimeout(this.searchTimer);
    void this.loadArticles(false);
  };

  private back = () => {
    this.articleTicket++;
    this.showHelp();
  };

  private renderHelp(t: Strings, c: ContentStrings) {
    const article = this.article;
    if (article) {
      const shown =
        article === 'loading'
          ? h('p', { class: 'empty', role: 'status' }, c.loading)
          : article === 'failed'
            ? h('p', { class: 'notice error', role: 'alert' }, t.error)
            : h(
                'article',
                { class: 'help-article', lang: article.value.locale },
                h('h3', null, article.value.title),
                // The content service's sanitised HTML (decision 0206): the one field inserted as HTML.
                h('div', { class: 'body', innerHTML: article.value.bodyHtml }),
              );
      return [this.button('back', c.back, this.back), shown];
    }
    const { items, hasMore, loading, failed } = this.help;
    return [
      h(
        'form',
        { role: 'search', onSubmit: this.onSearchSubmit },
        h('input', {
          type: 'search',
          name: 'q',
          'aria-label': c.search,
          placeholder: c.search,
          value: this.query,
          onInput: this.onSearch,
        }),
      ),
      h(
        'ul',
        { class: 'items' },
        items.map((item) =>
          h(
            'li',
            { key: item.id, lang: item.locale },
            h(
              'button',
              { class: 'item', type: 'button', onClick: () => void this.openArticle(item.id) },
              h('strong', null, item.title),
              h('span', null, item.excerpt),
            ),
          ),
        ),
      ),
      this.status(t, c, this.help, c.noArticles),
      hasMore && !loading && !failed ? this.button('more', c.more, () => void this.loadArticles(true)) : null,
    ];
  }

  private renderNews(t: Strings, c: ContentStrings, locale: ShippedLocale) {
    const { items, hasMore, loading, failed } = this.news;
    const date = new Intl.DateTimeFormat(locale, { dateStyle: 'medium' });
    const terms = (post: NewsPost) => [...post.categories, ...post.tags];
    return [
      h(
        'ul',
        { class: 'items' },
        items.map((post) =>
          h(
            'li',
            { key: post.id, lang: post.locale },
            h(
              'article',
              { class: 'post' },
              h('h3', null, post.title),
              h('time', { dateTime: post.publishedAt }, date.format(new Date(post.publishedAt))),
              h('div', { class: 'body', innerHTML: post.bodyHtml }),
              terms(post).length
                ? h(
                    'ul',
                    { class: 'terms' },
                    terms(post).map((term) => h('li', { key: term.id }, term.name)),
                  )
                : null,
            ),
          ),
        ),
      ),
      this.status(t, c, this.news, c.noNews),
      hasMore && !loading && !failed ? this.button('more', c.more, () => void this.loadNews(true)) : null,
    ];
  }

  private status(t: Strings, c: ContentStrings, listing: Listing<unknown>, none: string) {
    if (listing.failed) return h('p', { class: 'notice error', role: 'alert' }, t.error);
    if (listing.loading) return h('p', { class: 'empty', role: 'status' }, c.loading);
    return listing.items.length ? null : h('p', { class: 'empty' }, none);
  }

  private button(kind: 'back' | 'more', label: string, onClick: () => void) {
    return h('button', { class: kind, type: 'button', onClick }, label);
  }
}

function listing<T>(before: T[], page: ContentPage<T> | null, locale: string): Listing<T> {
  if (!page) return { items: before, hasMore: false, loading: false, failed: true };
  return { items: [...before, ...page.data], hasMore: page.hasMore, loading: false, failed: false, locale };
}
