import { OutboxEvent } from '@svc/kit';
import { ContactRow } from './contact';
import { ErasureConfirmationRow, ErasureRequestRow } from './erasure';
import { IdentityRow } from './identity';
import { PeopleFieldDefinitionRow, PeopleFieldValueRow } from './people-field';

export {
  ContactRow,
  ErasureConfirmationRow,
  ErasureRequestRow,
  IdentityRow,
  PeopleFieldDefinitionRow,
  PeopleFieldValueRow,
};
export const entities = [
  ContactRow,
  IdentityRow,
  PeopleFieldDefinitionRow,
  PeopleFieldValueRow,
  ErasureRequestRow,
  ErasureConfirmationRow,
  OutboxEvent,
];
