import type { NewEvent } from '@svc/kit';

/** Help center changes: help_article.*, help_folder.*, help_tag.* (key: the object's id). */
export const HELP_TOPIC = 'svc.content.help.v1';
/** News changes: news_post.*, news_category.*, news_tag.* (key: the object's id). */
export const NEWS_TOPIC = 'svc.content.news.v1';
export const CONTENT_TOPICS = [HELP_TOPIC, NEWS_TOPIC] as const;

/** The objects of the content domain and the topic each one's events go to. */
const TOPIC_OF = {
  help_article: HELP_TOPIC,
  help_folder: HELP_TOPIC,
  help_tag: HELP_TOPIC,
  news_post: NEWS_TOPIC,
  news_category: NEWS_TOPIC,
  news_tag: NEWS_TOPIC,
} as const;
export type ContentObject = keyof typeof TOPIC_OF;

/**
 * The verbs each object's events use: the one list of event types of this service (`<object>.<verb>`); README and
 * tests read it from here.
 */
export const CONTENT_EVENT_VERBS = {
  help_article: ['created', 'updated', 'translation_created', 'published', 'unpublished', 'deleted'],
  help_folder: ['created', 'updated', 'moved', 'deleted'],
  help_tag: ['created', 'updated', 'deleted'],
  news_post: [
    'created',
    'updated',
    'translation_created',
    'published',
    'scheduled',
    'unpublished',
    'archived',
    'deleted',
  ],
  news_category: ['created', 'updated', 'deleted'],
  news_tag: ['created', 'updated', 'deleted'],
} as const satisfies Record<ContentObject, readonly string[]>;

export type ContentVerb<O extends ContentObject> = (typeof CONTENT_EVENT_VERBS)[O][number];

export interface ContentChange<O extends ContentObject> {
  object: O;
  verb: ContentVerb<O>;
  orgId: string;
  id: string;
  /** The translation concerned, when the change is to one. */
  locale?: string;
  /** The state after the change (articles and posts). */
  status?: string;
}

/** The event of one change, written through the outbox in the transaction that made the change. */
export function contentEvent<O extends ContentObject>(change: ContentChange<O>): NewEvent {
  return {
    topic: TOPIC_OF[change.object],
    key: change.id,
    type: `${change.object}.${change.verb}`,
    orgId: change.orgId,
    payload: {
      content: { object: change.object, id: change.id, locale: change.locale ?? '', status: change.status ?? '' },
    },
  };
}
