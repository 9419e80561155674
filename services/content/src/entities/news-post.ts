import { Entity, Index, PrimaryColumn } from 'typeorm';
import { DateTimeColumn, EnumColumn, IdColumn, LongTextColumn, RefColumn, TextColumn } from '@svc/kit';
import { NewsPostState_Status as NewsPostStatus } from '@svc/proto/content/v1/content';

/** A news post: its state is the post's (its translations follow it), its text lives in its translations. */
@Entity('news_posts')
@Index('ix_news_posts_org_status', ['orgId', 'status', 'publishedAt', 'id'])
@Index('ix_news_posts_org_created', ['orgId', 'createdAt', 'id'])
@Index('ix_news_posts_due', ['status', 'scheduledAt'])
export class NewsPostRow {
  @IdColumn() id!: string;
  @RefColumn({ name: 'org_id' }) orgId!: string;
  @TextColumn(64, { name: 'author_id' }) authorId!: string;
  @TextColumn(35, { name: 'default_locale' }) defaultLocale!: string;
  @EnumColumn([NewsPostStatus.DRAFT, NewsPostStatus.SCHEDULED, NewsPostStatus.PUBLISHED, NewsPostStatus.ARCHIVED])
  status!: NewsPostStatus;
  @DateTimeColumn({ name: 'scheduled_at', nullable: true }) scheduledAt!: Date | null;
  @DateTimeColumn({ name: 'published_at', nullable: true }) publishedAt!: Date | null;
  @DateTimeColumn({ name: 'archived_at', nullable: true }) archivedAt!: Date | null;
  @DateTimeColumn({ name: 'created_at' }) createdAt!: Date;
  @DateTimeColumn({ name: 'updated_at' }) updatedAt!: Date;
}

@Entity('news_post_translations')
@Index('ux_news_post_translations_locale', ['postId', 'locale'], { unique: true })
export class NewsPostTranslationRow {
  @IdColumn() id!: string;
  @RefColumn({ name: 'org_id' }) orgId!: string;
  @RefColumn({ name: 'post_id' }) postId!: string;
  @TextColumn(35) locale!: string;
  @TextColumn(300) title!: string;
  @LongTextColumn({ name: 'body_markdown' }) bodyMarkdown!: string;
  @LongTextColumn({ name: 'body_html' }) bodyHtml!: string;
  @DateTimeColumn({ name: 'created_at' }) createdAt!: Date;
  @DateTimeColumn({ name: 'updated_at' }) updatedAt!: Date;
}

@Entity('news_post_categories')
@Index('ix_news_post_categories_category', ['orgId', 'categoryId', 'postId'])
export class NewsPostCategoryRow {
  @PrimaryColumn({ type: 'varchar', length: 24, name: 'post_id' }) postId!: string;
  @PrimaryColumn({ type: 'varchar', length: 24, name: 'category_id' }) categoryId!: string;
  @RefColumn({ name: 'org_id' }) orgId!: string;
}

@Entity('news_post_tags')
@Index('ix_news_post_tags_tag', ['orgId', 'tagId', 'postId'])
export class NewsPostTagRow {
  @PrimaryColumn({ type: 'varchar', length: 24, name: 'post_id' }) postId!: string;
  @PrimaryColumn({ type: 'varchar', length: 24, name: 'tag_id' }) tagId!: string;
  @RefColumn({ name: 'org_id' }) orgId!: string;
}
