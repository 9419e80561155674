import { FailedPrecondition } from '@svc/kit';
import { NewsPostState_Status as NewsPostStatus } from '@svc/proto/content/v1/content';
import type { NewsPostRow } from '../../entities';

/** The moves an operation can ask of a post's state (docs/decisions/0190). */
export type NewsPostMove = 'publish' | 'schedule' | 'unpublish' | 'archive';

const { DRAFT, SCHEDULED, PUBLISHED, ARCHIVED } = NewsPostStatus;

/**
 * The one table of legal moves: from each state, the state each move leads to; a move missing from a row is refused
 * (FAILED_PRECONDITION naming the state). Publishing or scheduling brings an archived post back; scheduling a
 * scheduled post moves its time; unpublishing a scheduled post cancels it (back to DRAFT). A move to the state the
 * post is in is a retry and changes nothing (`alreadyThere`).
 */
export const NEWS_POST_TRANSITIONS: Record<NewsPostStatus, Partial<Record<NewsPostMove, NewsPostStatus>>> = {
  [NewsPostStatus.STATUS_UNSPECIFIED]: {},
  [NewsPostStatus.UNRECOGNIZED]: {},
  [DRAFT]: { publish: PUBLISHED, schedule: SCHEDULED, unpublish: DRAFT, archive: ARCHIVED },
  [SCHEDULED]: { publish: PUBLISHED, schedule: SCHEDULED, unpublish: DRAFT, archive: ARCHIVED },
  [PUBLISHED]: { publish: PUBLISHED, unpublish: DRAFT, archive: ARCHIVED },
  [ARCHIVED]: { publish: PUBLISHED, schedule: SCHEDULED, archive: ARCHIVED },
};

/**
 * Whether `move` leads where the post already is (a retried publish, unpublish or archive, or a schedule to the time
 * it has): then it changes nothing and emits no event (docs/decisions/0190).
 */
export function alreadyThere(post: StateFields, move: NewsPostMove, scheduledAt?: Date): boolean {
  if (NEWS_POST_TRANSITIONS[post.status][move] !== post.status) return false;
  return post.status !== SCHEDULED || post.scheduledAt?.getTime() === scheduledAt?.getTime();
}

/** The fields a move sets: the new state and the times that go with it (each time set only in its state). */
export type StateFields = Pick<NewsPostRow, 'status' | 'scheduledAt' | 'publishedAt' | 'archivedAt'>;

/**
 * The post's state fields after `move` at `at` (`scheduledAt`: the time asked for, when scheduling), or
 * FAILED_PRECONDITION naming the state it is in. `publishedAt` is the time of the last publication and stays after
 * unpublishing or archiving.
 */
export function moved(post: StateFields, move: NewsPostMove, at: Date, scheduledAt?: Date): StateFields {
  const status = NEWS_POST_TRANSITIONS[post.status][move];
  if (status === undefined)
    throw new FailedPrecondition(`a ${post.status} news post cannot be ${MOVE_VERB[move]}`, { status: post.status });
  return {
    status,
    scheduledAt: status === SCHEDULED ? (scheduledAt ?? at) : null,
    publishedAt: status === PUBLISHED ? at : post.publishedAt,
    archivedAt: status === ARCHIVED ? at : null,
  };
}

/** The event verb of each move (`news_post.<verb>`), also how a refusal words it. */
export const MOVE_VERB = {
  publish: 'published',
  schedule: 'scheduled',
  unpublish: 'unpublished',
  archive: 'archived',
} as const satisfies Record<NewsPostMove, string>;
