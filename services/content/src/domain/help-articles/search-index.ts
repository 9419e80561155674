import type { EntityManager } from 'typeorm';
import { insertRows, prefixRange, termsOf } from '@svc/kit';
import type { HelpArticleStatus } from '@svc/proto/content/v1/content';
import { HelpArticleTermRow, HelpArticleTranslationRow } from '../../entities';

/**
 * Keeps `help_article_terms` in step with the text of article translations, in the caller's transaction: every write
 * of a translation's title or body goes through here (docs/decisions/0186). The words are the inbox's tokenisation
 * (`termsOf`, docs/decisions/0053) of the title and the Markdown body.
 */
export async function indexTranslation(manager: EntityManager, translation: HelpArticleTranslationRow): Promise<void> {
  await manager.delete(HelpArticleTermRow, { translationId: translation.id });
  const terms = termsOf(`${translation.title}\n${translation.bodyMarkdown}`);
  await insertRows(
    manager,
    HelpArticleTermRow,
    terms.map((term) =>
      Object.assign(new HelpArticleTermRow(), {
        translationId: translation.id,
        term,
        orgId: translation.orgId,
        articleId: translation.articleId,
      }),
    ),
  );
}

/**
 * The condition that the translation `alias` (a `help_article_translations` row of the org bound as `:orgId`) holds
 * every word as the prefix of one of its terms: one range of `ix_help_article_terms_org_term` per word. Column names,
 * bound values only (the words come from `searchWords`).
 */
export function translationTermMatch(
  alias: string,
  words: string[],
): { sql: string; parameters: Record<string, string> } {
  const sql: string[] = [];
  const parameters: Record<string, string> = {};
  words.forEach((word, i) => {
    const term = `${alias}_term${i}`;
    const range = prefixRange(term, word, `${alias}Word${i}`);
    sql.push(
      `${alias}.id IN (SELECT ${term}.translation_id FROM help_article_terms ${term}` +
        ` WHERE ${term}.org_id = :orgId AND ${range.sql})`,
    );
    Object.assign(parameters, range.parameters);
  });
  return { sql: sql.length ? sql.join(' AND ') : '1 = 1', parameters };
}

export interface TranslationSearchFilter {
  /** Only translations in this state (the public reads pass PUBLISHED). */
  status?: HelpArticleStatus;
  /** Only translations in one of these locales (canonical tags); unset or empty: every locale. */
  locales?: string[];
}

/**
 * The ids of the org's article translations whose title or body holds every word as a term prefix, in id order.
 * `words` are a query's folded words: `searchWords(query)` from `@svc/kit` (which refuses an empty or too long query).
 */
export async function searchTranslationIds(
  manager: EntityManager,
  orgId: string,
  words: string[],
  filter: TranslationSearchFilter = {},
): Promise<string[]> {
  const match = translationTermMatch('t', words);
  const query = manager
    .createQueryBuilder(HelpArticleTranslationRow, 't')
    .select('t.id', 'id')
    .where('t.org_id = :orgId', { orgId })
    .andWhere(match.sql, match.parameters)
    .orderBy('t.id', 'ASC');
  if (filter.status !== undefined) query.andWhere('t.status = :status', { status: filter.status });
  if (filter.locales?.length) query.andWhere('t.locale IN (:...locales)', { locales: filter.locales });
  const rows = await query.getRawMany<{ id: string }>();
  return rows.map((row) => row.id);
}
