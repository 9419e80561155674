import { In, LessThanOrEqual, type DataSource } from 'typeorm';
import { now, type Logger } from '@svc/kit';
import { FlowRunStatus, type FlowStep } from '@svc/proto/flows/v1';
import { RunRow } from '../entities';
import { runStep, StepError, type StepActions } from './steps';

/** A claimed run is leased: if this replica dies mid-run, another resumes it after the lease. */
const LEASE_MS = 60_000;
const BATCH = 50;
const CONCURRENCY = 4;

/**
 * Executes runs: claims due runs with a conditional update (safe with several replicas), runs their steps in order
 * and records progress after each step, so a crash resumes at the step that was running (that step may repeat:
 * at-least-once towards other services; the run itself is never created twice).
 */
export class Runner {
  private timer: NodeJS.Timeout | undefined;
  private pass: Promise<void> = Promise.resolve();
  private again = false;
  private running = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly actions: StepActions,
    private readonly logger: Logger,
    private readonly intervalMs: number,
  ) {}

  start(): void {
    this.running = true;
    this.timer = setInterval(() => this.wake(), this.intervalMs);
    this.timer.unref();
    this.wake();
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearInterval(this.timer);
    await this.pass;
  }

  wake(): void {
    if (!this.running || this.again) return;
    this.again = true;
    this.pass = this.pass.then(async () => {
      this.again = false;
      try {
        while (this.running && (await this.runDue()) > 0);
      } catch (error) {
        this.logger.warn({ err: error }, 'flow runner pass failed; will retry');
      }
    });
  }

  private async runDue(): Promise<number> {
    const due = await this.dataSource.manager.find(RunRow, {
      select: { id: true },
      where: {
        status: In([FlowRunStatus.QUEUED, FlowRunStatus.WAITING, FlowRunStatus.RUNNING]),
        resumeAt: LessThanOrEqual(now()),
      },
      order: { resumeAt: 'ASC' },
      take: BATCH,
    });
    const queue = due.map((r) => r.id);
    const worker = async () => {
      for (let id = queue.shift(); id; id = queue.shift()) await this.claimAndRun(id);
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    return due.length;
  }

  private async claimAndRun(id: string): Promise<void> {
    const at = now();
    const claimed = await this.dataSource
      .createQueryBuilder()
      .update(RunRow)
      .set({ status: FlowRunStatus.RUNNING, resumeAt: new Date(at.getTime() + LEASE_MS), updatedAt: at })
      .where('id = :id AND status IN (:...due) AND resume_at <= :at', {
        id,
        due: [FlowRunStatus.QUEUED, FlowRunStatus.WAITING, FlowRunStatus.RUNNING],
        at,
      })
      .execute();
    if (!claimed.affected) return;
    const run = await this.dataSource.manager.findOneBy(RunRow, { id });
    if (run) await this.execute(run);
  }

  private async execute(run: RunRow): Promise<void> {
    const steps = JSON.parse(run.steps) as FlowStep[];
    let payload: unknown = {};
    try {
      payload = JSON.parse(run.payload);
    } catch {
      payload = {};
    }
    const context = { orgId: run.orgId, chatId: run.chatId, contactId: run.contactId, payload };
    const log = this.logger.child({ runId: run.id, flowId: run.flowId, orgId: run.orgId });
    for (let index = run.stepIndex; index < steps.length; index += 1) {
      const current = await this.dataSource.manager.findOne(RunRow, {
        select: { status: true },
        where: { id: run.id },
      });
      if (current?.status !== FlowRunStatus.RUNNING) return; // stopped meanwhile
      const step = steps[index];
      if (!step) break;
      try {
        const result = await runStep(step, context, this.actions);
        if (result.kind === 'wait') {
          await this.save(run.id, {
            status: FlowRunStatus.WAITING,
            stepIndex: index + 1,
            resumeAt: new Date(Date.now() + result.seconds * 1000),
          });
          return;
        }
        await this.save(run.id, { stepIndex: index + 1 });
      } catch (error) {
        const message = error instanceof StepError ? error.message : 'a step failed in another service';
        log.warn({ err: error, step: index }, 'flow run failed');
        await this.save(run.id, { status: FlowRunStatus.FAILED, error: message, finishedAt: now(), stepIndex: index });
        return;
      }
    }
    await this.save(run.id, { status: FlowRunStatus.COMPLETED, finishedAt: now(), stepIndex: steps.length });
  }

  private async save(id: string, fields: Partial<RunRow>): Promise<void> {
    // Only a run still ours (not stopped meanwhile) moves on.
    await this.dataSource.manager.update(
      RunRow,
      { id, status: FlowRunStatus.RUNNING },
      { ...fields, updatedAt: now() },
    );
  }
}
