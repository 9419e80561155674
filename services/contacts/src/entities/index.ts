import { OutboxEvent } from '@svc/kit';
import { ContactRow } from './contact';
import { IdentityRow } from './identity';
import { PeopleFieldDefinitionRow, PeopleFieldValueRow } from './people-field';

export { ContactRow, IdentityRow, PeopleFieldDefinitionRow, PeopleFieldValueRow };
export const entities = [ContactRow, IdentityRow, PeopleFieldDefinitionRow, PeopleFieldValueRow, OutboxEvent];
