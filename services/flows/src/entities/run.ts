import { Column, Entity, Index } from 'typeorm';
import { DateTimeColumn, EnumColumn, IdColumn, LongTextColumn, RefColumn, TextColumn } from '@svc/kit';
import { FlowRunStatus, FlowTriggerType } from '@svc/proto/flows/v1';

/**
 * One run of a flow. The steps are a snapshot taken when the run starts, so editing a flow never changes a run in
 * progress; `step_index` is the next step to run.
 */
@Entity('flow_runs')
@Index('ix_runs_flow_created', ['orgId', 'flowId', 'createdAt', 'id'])
@Index('ix_runs_due', ['status', 'resumeAt'])
@Index('ux_runs_event_flow', ['eventId', 'flowId'], { unique: true })
@Index('ix_runs_chat', ['orgId', 'chatId', 'flowId', 'status'])
@Index('ix_runs_contact', ['orgId', 'contactId'])
export class RunRow {
  @IdColumn() id!: string;
  @RefColumn({ name: 'org_id' }) orgId!: string;
  @RefColumn({ name: 'flow_id' }) flowId!: string;
  @EnumColumn([
    FlowRunStatus.QUEUED,
    FlowRunStatus.RUNNING,
    FlowRunStatus.WAITING,
    FlowRunStatus.COMPLETED,
    FlowRunStatus.FAILED,
    FlowRunStatus.STOPPED,
  ])
  status!: FlowRunStatus;
  @EnumColumn([FlowTriggerType.WEBHOOK_RECEIVED, FlowTriggerType.STARTED_FOR_CHAT]) trigger!: FlowTriggerType;
  @RefColumn({ name: 'chat_id', nullable: true }) chatId!: string | null;
  @RefColumn({ name: 'contact_id', nullable: true }) contactId!: string | null;
  /** The inbound request (webhook-ingress history id) that started it. */
  @RefColumn({ name: 'request_id', nullable: true }) requestId!: string | null;
  /** The `webhook.received` event that started it: with flow_id, unique (never two runs for one delivery). */
  @RefColumn({ name: 'event_id', nullable: true }) eventId!: string | null;
  /**
   * The context of the request that started it (kit `RequestContext` as JSON: trace context and x-request-id), so the
   * run's steps join that request's trace and logs when the runner gets to it.
   */
  @LongTextColumn({ name: 'request_context', nullable: true }) requestContext!: string | null;
  /** The webhook payload as JSON text ('{}' for chat-started runs). */
  @LongTextColumn() payload!: string;
  @LongTextColumn() steps!: string;
  @Column({ type: 'int', name: 'step_index' }) stepIndex!: number;
  /** When the run may continue (now for queued runs, the end of a wait, the end of a crashed runner's lease). */
  @DateTimeColumn({ name: 'resume_at' }) resumeAt!: Date;
  /**
   * Why the run failed; while it waits to retry a step whose call failed transiently, that last failure
   * (docs/decisions/0070).
   */
  @TextColumn(500, { nullable: true }) error!: string | null;
  /** Attempts at the step `step_index` that failed transiently (UNAVAILABLE, DEADLINE_EXCEEDED); 0 once it succeeds. */
  @Column({ type: 'int', name: 'step_attempts', default: 0 }) stepAttempts!: number;
  /** When the first of those attempts failed: how long the step has been retried. */
  @DateTimeColumn({ name: 'step_failing_since', nullable: true }) stepFailingSince!: Date | null;
  @DateTimeColumn({ name: 'created_at' }) createdAt!: Date;
  @DateTimeColumn({ name: 'updated_at' }) updatedAt!: Date;
  @DateTimeColumn({ name: 'finished_at', nullable: true }) finishedAt!: Date | null;
}
