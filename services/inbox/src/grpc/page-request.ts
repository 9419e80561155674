import { pageLimit, type PageRequest } from '@svc/kit';
import type { PaginateMessagesInput } from '@svc/proto/inbox/v1';
import type { GetCursorPaginatedInput } from '@svc/proto/inbox/v1/search';

/** `PaginateMessagesInput.limit` defaults to 30 (spec 2.2); a limit that is set and out of 1-100 (0 too) is refused. */
export const DEFAULT_PAGE_SIZE = 30;

export function pageRequest(input: PaginateMessagesInput | undefined, defaultLimit = DEFAULT_PAGE_SIZE): PageRequest {
  return {
    cursor: input?.cursor || undefined,
    isBefore: input?.isBefore,
    limit: pageLimit(input?.limit, defaultLimit, 'input.limit'),
  };
}

/** `GetCursorPaginatedInput.limit` defaults to 20 (spec 2.2, `searchConversations`); `before` pages backward. */
export const DEFAULT_CONVERSATION_PAGE_SIZE = 20;

export function cursorPageRequest(input: GetCursorPaginatedInput | undefined): PageRequest {
  return {
    cursor: input?.cursor || undefined,
    isBefore: input?.before,
    limit: pageLimit(input?.limit, DEFAULT_CONVERSATION_PAGE_SIZE, 'input.limit'),
  };
}
