import { Entity, Index, PrimaryColumn } from 'typeorm';
import {
  CodePointTextColumn,
  DateTimeColumn,
  EnumColumn,
  IdColumn,
  LongTextColumn,
  RefColumn,
  TextColumn,
} from '@svc/kit';
import { HelpArticleStatus } from '@svc/proto/content/v1/content';

/** A help article: what its translations share (folder, tags, author). Its text lives in its translations. */
@Entity('help_articles')
@Index('ix_help_articles_org_folder', ['orgId', 'folderId', 'id'])
@Index('ix_help_articles_org_created', ['orgId', 'createdAt', 'id'])
export class HelpArticleRow {
  @IdColumn() id!: string;
  @RefColumn({ name: 'org_id' }) orgId!: string;
  @RefColumn({ name: 'folder_id', nullable: true }) folderId!: string | null;
  /** The member or API key that created it (the principal's id). */
  @TextColumn(64, { name: 'author_id' }) authorId!: string;
  /** The locale it was written in (BCP-47, canonical): its first translation, the last fallback for readers. */
  @TextColumn(35, { name: 'default_locale' }) defaultLocale!: string;
  @DateTimeColumn({ name: 'created_at' }) createdAt!: Date;
  @DateTimeColumn({ name: 'updated_at' }) updatedAt!: Date;
}

/** One locale of an article, with its own state: the article's own text is its default-locale translation. */
@Entity('help_article_translations')
@Index('ux_help_article_translations_locale', ['articleId', 'locale'], { unique: true })
@Index('ux_help_article_translations_slug', ['orgId', 'locale', 'slug'], { unique: true })
@Index('ix_help_article_translations_org_status', ['orgId', 'status', 'locale', 'articleId'])
export class HelpArticleTranslationRow {
  @IdColumn() id!: string;
  @RefColumn({ name: 'org_id' }) orgId!: string;
  @RefColumn({ name: 'article_id' }) articleId!: string;
  @TextColumn(35) locale!: string;
  @TextColumn(300) title!: string;
  /** URL segment of the public page, unique per org and locale. */
  @CodePointTextColumn(200) slug!: string;
  @LongTextColumn({ name: 'body_markdown' }) bodyMarkdown!: string;
  /** The body rendered and sanitised when written (domain/markdown.ts): readers never render. */
  @LongTextColumn({ name: 'body_html' }) bodyHtml!: string;
  @EnumColumn([HelpArticleStatus.DRAFT, HelpArticleStatus.PUBLISHED]) status!: HelpArticleStatus;
  @DateTimeColumn({ name: 'published_at', nullable: true }) publishedAt!: Date | null;
  @DateTimeColumn({ name: 'created_at' }) createdAt!: Date;
  @DateTimeColumn({ name: 'updated_at' }) updatedAt!: Date;
}

@Entity('help_article_tags')
@Index('ix_help_article_tags_tag', ['orgId', 'tagId', 'articleId'])
export class HelpArticleTagRow {
  @PrimaryColumn({ type: 'varchar', length: 24, name: 'article_id' }) articleId!: string;
  @PrimaryColumn({ type: 'varchar', length: 24, name: 'tag_id' }) tagId!: string;
  @RefColumn({ name: 'org_id' }) orgId!: string;
}

/**
 * The search index of article translations: one row per distinct folded word of the title and body (the inbox's
 * tokenisation, docs/decisions/0053), so text queries are prefix matches on an index on both database families.
 */
@Entity('help_article_terms')
@Index('ix_help_article_terms_org_term', ['orgId', 'term', 'translationId'])
export class HelpArticleTermRow {
  @PrimaryColumn({ type: 'varchar', length: 24, name: 'translation_id' }) translationId!: string;
  @CodePointTextColumn(64, { primary: true }) term!: string;
  @RefColumn({ name: 'org_id' }) orgId!: string;
  @RefColumn({ name: 'article_id' }) articleId!: string;
}
