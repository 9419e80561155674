import { Entity, Index } from 'typeorm';
import { DateTimeColumn, EnumColumn, IdColumn, RefColumn, TextColumn } from '@svc/kit';
import { IdentifierType } from '@svc/proto/contacts/v1';

export const IDENTITY_TYPES = [
  IdentifierType.EMAIL,
  IdentifierType.PHONE_NUMBER,
  IdentifierType.CHANNEL_USER_ID,
  IdentifierType.CHAT_ID,
] as const;

/**
 * Something that points at one contact: an email, a phone number, a channel user id within one connected channel
 * (`scope`), or a chat the contact owns. Unique per org, so a lookup resolves to at most one contact.
 */
@Entity('contact_identities')
@Index('ux_identities_lookup', ['orgId', 'type', 'scope', 'value'], { unique: true })
@Index('ix_identities_contact', ['orgId', 'contactId', 'type', 'createdAt'])
export class IdentityRow {
  @IdColumn() id!: string;
  @RefColumn({ name: 'org_id' }) orgId!: string;
  @RefColumn({ name: 'contact_id' }) contactId!: string;
  @EnumColumn(IDENTITY_TYPES) type!: IdentifierType;
  /** The channel integration id for CHANNEL_USER_ID, '' otherwise (NULLs would not be unique in an index). */
  @TextColumn(24) scope!: string;
  @TextColumn(255) value!: string;
  @DateTimeColumn({ name: 'created_at' }) createdAt!: Date;
}
