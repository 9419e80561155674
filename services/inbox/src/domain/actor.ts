import type { Principal } from '@svc/kit';
import { PrincipalKind } from '@svc/proto/common/v1';
import { AuthorType } from '@svc/proto/inbox/v1';

/** Who is acting, as messages, reactions and edits record it. */
export function authorOf(principal: Principal): { authorType: AuthorType; authorId: string } {
  switch (principal.kind) {
    case PrincipalKind.MEMBER_SESSION:
      return { authorType: AuthorType.MEMBER, authorId: principal.memberId };
    case PrincipalKind.API_KEY:
      return { authorType: AuthorType.API_KEY, authorId: principal.keyId };
    case PrincipalKind.VISITOR:
      return { authorType: AuthorType.CONTACT, authorId: principal.visitorContactId };
    default:
      return { authorType: AuthorType.SYSTEM, authorId: '' };
  }
}

/**
 * Whose read position a read or an unread count uses: the member for a dashboard session, the key itself for an API
 * key (an integration reading on an operator's behalf keeps its own position). SYSTEM callers have none.
 */
export function readerOf(principal: Principal): string | undefined {
  const { authorId } = authorOf(principal);
  return authorId || undefined;
}
