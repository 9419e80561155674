import { Entity, PrimaryColumn } from 'typeorm';
import { DateTimeColumn } from '@svc/kit';

/**
 * A contact the inbox erased (docs/decisions/0169): ids and a time, no personal data. Written in the transaction of
 * the inbox's part of the erasure and kept, so no later write (a chat opened, a message received, a file stored for
 * the contact) creates anything for that contact id again.
 */
@Entity('erased_contacts')
export class ErasedContactRow {
  @PrimaryColumn({ type: 'varchar', length: 24, name: 'org_id' }) orgId!: string;
  @PrimaryColumn({ type: 'varchar', length: 24, name: 'contact_id' }) contactId!: string;
  @DateTimeColumn({ name: 'erased_at' }) erasedAt!: Date;
}
