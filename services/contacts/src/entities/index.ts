import { OutboxEvent } from '@svc/kit';
import { ContactRow } from './contact';
import { IdentityRow } from './identity';

export { ContactRow, IdentityRow };
export const entities = [ContactRow, IdentityRow, OutboxEvent];
