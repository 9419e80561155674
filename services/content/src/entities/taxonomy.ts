import { Entity, Index } from 'typeorm';
import { CodePointTextColumn, DateTimeColumn, IdColumn, RefColumn, TextColumn } from '@svc/kit';

/**
 * The shape shared by help tags, news categories and news tags: a name unique per org, compared folded
 * (`name_key`: trimmed, lower case, by code point on both database families).
 */
abstract class TaxonomyTermRow {
  @IdColumn() id!: string;
  @RefColumn({ name: 'org_id' }) orgId!: string;
  @TextColumn(100) name!: string;
  @CodePointTextColumn(100, { name: 'name_key' }) nameKey!: string;
  @DateTimeColumn({ name: 'created_at' }) createdAt!: Date;
  @DateTimeColumn({ name: 'updated_at' }) updatedAt!: Date;
}

@Entity('help_tags')
@Index('ux_help_tags_org_name', ['orgId', 'nameKey'], { unique: true })
export class HelpTagRow extends TaxonomyTermRow {}

@Entity('news_categories')
@Index('ux_news_categories_org_name', ['orgId', 'nameKey'], { unique: true })
export class NewsCategoryRow extends TaxonomyTermRow {}

@Entity('news_tags')
@Index('ux_news_tags_org_name', ['orgId', 'nameKey'], { unique: true })
export class NewsTagRow extends TaxonomyTermRow {}
