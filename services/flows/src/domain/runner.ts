import type { DataSource } from 'typeorm';
import { continueRequests, detached, entitySql, now, type EntitySql, type Logger, type RequestContext } from '@svc/kit';
import { FlowRunStatus, type FlowStep } from '@svc/proto/flows/v1';
import { RunRow } from '../entities';
import { runStep, StepError, type StepActions } from './steps';
import {
  DEFAULT_STEP_RETRY_POLICY,
  backoffMs,
  isTransient,
  spanOf,
  stepRetries,
  type StepRetryPolicy,
} from './step-retries';

const BATCH = 50;
const CONCURRENCY = 4;
const DUE = [FlowRunStatus.QUEUED, FlowRunStatus.WAITING, FlowRunStatus.RUNNING];

/**
 * Executes runs: claims due runs with a conditional update (safe with several replicas), runs their steps in order
 * and records progress after each step, so a crash resumes at the step that was running (that step may repeat:
 * at-least-once towards other services; the run itself is never created twice). A step whose call failed
 * transiently is retried later by whichever replica claims the run then (`stepFailed`).
 *
 * Per run of a one-step flow that is one read (shared by a batch of due runs), the claim, the step and one update
 * (the last step's progress and the completion together). The claim re-checks the step index it read, and every
 * later update only applies to a run still RUNNING, which is also how a run stopped meanwhile is noticed (no read
 * before each step). Statements are written from the entity metadata (kit `entitySql`): no query builder per run.
 */
export class Runner {
  private timer: NodeJS.Timeout | undefined;
  private pass: Promise<void> = Promise.resolve();
  private again = false;
  private running = false;
  private readonly runs: EntitySql<RunRow>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly actions: StepActions,
    private readonly logger: Logger,
    private readonly intervalMs: number,
    /** A claimed run is leased: if this replica dies mid-run, another resumes it after the lease. */
    private readonly leaseMs = 60_000,
    private readonly retry: StepRetryPolicy = DEFAULT_STEP_RETRY_POLICY,
  ) {
    this.runs = entitySql(dataSource, RunRow);
  }

  start(): void {
    this.running = true;
    this.timer = detached(() => setInterval(() => this.wake(), this.intervalMs));
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
    // Detached from whichever request woke it: each run continues the request that started it (`execute`).
    detached(() => this.schedulePass());
  }

  private schedulePass(): void {
    this.pass = this.pass.then(async () => {
      this.again = false;
      try {
        while (this.running && (await this.runDue()) > 0);
      } catch (error) {
        this.logger.warn({ err: error }, 'flow runner pass failed; will retry');
      }
    });
  }

  /** Due runs, oldest first, read whole: the claim checks that what was read is still current. */
  private async runDue(): Promise<number> {
    const runs = this.runs;
    const due = await runs.select(
      this.dataSource.manager,
      `WHERE ${runs.column('status')} IN (?, ?, ?) AND ${runs.column('resumeAt')} <= ? ORDER BY ${runs.column('resumeAt')} ASC LIMIT ${BATCH}`,
      [...DUE, runs.value('resumeAt', now())],
    );
    const queue = [...due];
    // Once stopping, runs not yet claimed stay due (for the next start or another replica).
    const worker = async () => {
      for (let run = queue.shift(); run && this.running; run = queue.shift()) await this.claimAndRun(run);
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    return due.length;
  }

  /**
   * Claims the run as read: still due, and still at the step read (another replica that ran a step meanwhile moved
   * it on, one that holds it has a lease in the future). What else was read (steps, payload, chat) never changes.
   */
  private async claimAndRun(run: RunRow): Promise<void> {
    const at = now();
    const lease = new Date(at.getTime() + this.leaseMs);
    const claimed = await this.runs.update(
      this.dataSource.manager,
      { status: FlowRunStatus.RUNNING, resumeAt: lease, updatedAt: at },
      { id: run.id, status: DUE, stepIndex: run.stepIndex },
      { sql: `${this.runs.column('resumeAt')} <= ?`, parameters: [this.runs.value('resumeAt', at)] },
    );
    if (!claimed) return;
    // The steps join the trace (and log the x-request-id) of the request that started the run.
    const started: RequestContext[] = run.requestContext ? [JSON.parse(run.requestContext) as RequestContext] : [];
    await continueRequests(
      started,
      { name: 'flow run', attributes: { 'svc.flow.id': run.flowId, 'svc.flow.run.id': run.id } },
      () => this.execute(run),
    );
  }

  private async execute(run: RunRow): Promise<void> {
    const steps = JSON.parse(run.steps) as FlowStep[];
    let payload: unknown = {};
    try {
      payload = JSON.parse(run.payload);
    } catch {
      payload = {};
    }
    const base = { runId: run.id, orgId: run.orgId, chatId: run.chatId, contactId: run.contactId, payload };
    // The step the run resumes at may have failed transiently before: its attempts go on from there.
    let retrying = run.stepAttempts > 0;
    const recovered = (): Partial<RunRow> => {
      if (!retrying) return {};
      retrying = false;
      stepRetries.inc({ outcome: 'recovered' });
      return { stepAttempts: 0, stepFailingSince: null, error: null };
    };
    for (let index = run.stepIndex; index < steps.length; index += 1) {
      const step = steps[index];
      if (!step) break;
      try {
        const result = await runStep(step, { ...base, stepIndex: index }, this.actions);
        if (result.kind === 'wait') {
          await this.save(run.id, {
            status: FlowRunStatus.WAITING,
            stepIndex: index + 1,
            resumeAt: new Date(Date.now() + result.seconds * 1000),
            ...recovered(),
          });
          return;
        }
        if (index + 1 === steps.length) {
          await this.save(run.id, {
            status: FlowRunStatus.COMPLETED,
            finishedAt: now(),
            stepIndex: steps.length,
            ...recovered(),
          });
          return;
        }
        // false: the run was stopped meanwhile, so no further step.
        if (!(await this.save(run.id, { stepIndex: index + 1, ...recovered() }))) return;
      } catch (error) {
        const earlier = retrying ? { attempts: run.stepAttempts, since: run.stepFailingSince } : undefined;
        await this.stepFailed(run, index, error, earlier);
        return;
      }
    }
    await this.save(run.id, { status: FlowRunStatus.COMPLETED, finishedAt: now(), stepIndex: steps.length });
  }

  /**
   * A transient failure (the other service unreachable or past its deadline) puts the run back, due at the same step
   * after a backoff, until the step's attempts are spent; any other failure, or the last attempt's, fails the run.
   * The retried step may have taken effect already (DEADLINE_EXCEEDED): at-least-once, as after a crash.
   */
  private async stepFailed(
    run: RunRow,
    index: number,
    error: unknown,
    earlier: { attempts: number; since: Date | null } | undefined,
  ): Promise<void> {
    const at = now();
    const where = { runId: run.id, flowId: run.flowId, orgId: run.orgId, step: index };
    if (!isTransient(error)) {
      const message = error instanceof StepError ? error.message : 'a step failed in another service';
      this.logger.warn({ ...where, err: error }, 'flow run failed');
      await this.save(run.id, { status: FlowRunStatus.FAILED, error: message, finishedAt: at, stepIndex: index });
      return;
    }
    const attempt = (earlier?.attempts ?? 0) + 1;
    const since = earlier?.since ?? at;
    const failure = `a step failed in another service (${error.code})`;
    if (attempt < this.retry.attempts) {
      const resumeAt = new Date(at.getTime() + backoffMs(attempt, this.retry));
      stepRetries.inc({ outcome: 'retry' });
      this.logger.warn(
        { ...where, err: error, attempt, attempts: this.retry.attempts, resumeAt },
        'flow step failed transiently; retrying',
      );
      await this.save(run.id, {
        status: FlowRunStatus.WAITING,
        stepIndex: index,
        resumeAt,
        stepAttempts: attempt,
        stepFailingSince: since,
        error: `${failure}; attempt ${attempt} of ${this.retry.attempts}, retrying at ${resumeAt.toISOString()}`,
      });
      return;
    }
    stepRetries.inc({ outcome: 'exhausted' });
    const span = spanOf(at.getTime() - since.getTime());
    const message = `${failure} on every attempt: retried ${attempt - 1} times over ${span}`;
    this.logger.warn({ ...where, err: error, attempt }, 'flow run failed after retrying a step');
    await this.save(run.id, {
      status: FlowRunStatus.FAILED,
      error: message,
      finishedAt: at,
      stepIndex: index,
      stepAttempts: attempt,
      stepFailingSince: since,
    });
  }

  /** Records progress of a run still ours (not stopped meanwhile); false if it no longer is. */
  private async save(id: string, fields: Partial<RunRow>): Promise<boolean> {
    const changed = await this.runs.update(
      this.dataSource.manager,
      { ...fields, updatedAt: now() },
      { id, status: FlowRunStatus.RUNNING },
    );
    return changed > 0;
  }
}
