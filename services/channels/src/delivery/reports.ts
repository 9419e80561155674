import type { DataSource } from 'typeorm';
import { NotFound, entitySql, type EntitySql, type Logger } from '@svc/kit';
import { DeliveryStatus } from '@svc/proto/inbox/v1';
import { OutboundDeliveryRow } from '../entities';
import type { DeliveryBackends } from './backends';

/** A report not taken at once is made again by a later pass, once the row has been quiet this long. */
const REPORT_AGAIN_AFTER_MS = 10_000;

/**
 * Tells the inbox what became of a delivery (SENT, FAILED with its reason) through UpdateDeliveryStatus, the inbox's
 * forward-only machine (decision 0082) deciding what moves. The state is recorded first with `inbox_reported` false
 * and set true once the inbox answered, so no report is lost to an inbox outage or a crash in between.
 */
export class DeliveryReports {
  private readonly rows: EntitySql<OutboundDeliveryRow>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly backends: DeliveryBackends,
    private readonly logger: Logger,
  ) {
    this.rows = entitySql(dataSource, OutboundDeliveryRow);
  }

  async report(orgId: string, chatId: string, messageId: string, status: DeliveryStatus, reason?: string) {
    try {
      await this.backends.updateDeliveryStatus(orgId, chatId, [messageId], status, reason);
    } catch (error) {
      if (!(error instanceof NotFound)) {
        this.logger.warn({ err: error, messageId, status }, 'delivery status not reported; will report again');
        return;
      }
    }
    await this.rows.update(
      this.dataSource.manager,
      { inboxReported: true },
      { id: messageId, inboxReported: false, state: status === DeliveryStatus.SENT ? 'SENT' : 'FAILED' },
    );
  }

  /** The states recorded and not yet taken by the inbox (a pass of the sender). */
  async reportPending(): Promise<void> {
    const rows = this.rows;
    const quietSince = new Date(Date.now() - REPORT_AGAIN_AFTER_MS);
    const pending = await rows.select(
      this.dataSource.manager,
      `WHERE ${rows.column('inboxReported')} = ? AND ${rows.column('updatedAt')} <= ? LIMIT 100`,
      [rows.value('inboxReported', false), rows.value('updatedAt', quietSince)],
    );
    for (const row of pending) {
      if (row.state === 'SENT') await this.report(row.orgId, row.chatId, row.id, DeliveryStatus.SENT);
      else if (row.state === 'FAILED')
        await this.report(
          row.orgId,
          row.chatId,
          row.id,
          DeliveryStatus.FAILED,
          failureReason(row.failureCode ?? 'unknown', row.failureMessage ?? 'failed'),
        );
    }
  }
}

/** The platform's words and code, as the inbox shows them (at most 500 characters). */
export function failureReason(code: string, message: string): string {
  const reason = `${message} (${code})`;
  return reason.length > 500 ? `${reason.slice(0, 497)}...` : reason;
}
