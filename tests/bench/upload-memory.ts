/**
 * `npm run bench:upload-memory`: how much memory one maximal media upload costs the servers, to size the memory limits
 * of the gateway and the inbox (charts/svc/README.md, "Resources"). Uploads BENCH_FILES files of BENCH_FILE_BYTES
 * (default 10 × 16 MiB, the gateway's UPLOAD_MAX_FILES × UPLOAD_MAX_BYTES) in one `uploadMultipleMedia` request and
 * prints the peak growth of the server process's resident memory (RSS) over its RSS before the first such upload, as a
 * ratio to the bytes uploaded. A measurement, not a test: nothing asserts a number.
 *
 * The stack (`npm start`'s entry point: SQLite, in-process bus) runs in its own process, gateway and inbox in one RSS,
 * talking gRPC over loopback as they do between pods. Two kinds of runs, each in a fresh stack process (a process keeps
 * the memory it once touched, so only the first large upload of a process shows what a pod needs):
 * - **gateway**: the GraphQL multipart request a client sends: gateway (multipart parsing, the files read into
 *   buffers, the gRPC request serialised and framed) plus inbox (the message received, reassembled, decoded, checked
 *   and written to disk);
 * - **inbox only**: the same files sent by this process straight to the inbox's `UploadMultipleMedia` gRPC method, so
 *   the inbox's share can be told apart (gateway ≈ gateway run − inbox run).
 * Each run warms up with small files, then uploads BENCH_ROUNDS (default 2) times; later rounds mostly reuse the
 * memory of the first.
 *
 * Peak RSS: the kernel's high-water mark (VmHWM), reset before each round by writing 5 to /proc/<pid>/clear_refs,
 * plus a 5 ms sampler of VmRSS where the reset is not permitted. Linux only (/proc). The files are random bytes behind
 * a JPEG signature (incompressible, accepted as image/jpeg by the inbox's sniffing). BENCH_KINDS: comma-separated
 * subset of `gateway`, `inbox` (default both). Exits 1 if an upload fails (e.g. HTTP 413 from a body-size limit in
 * front of the multipart limits), after printing what it measured.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { callerMetadata, grpcClient, systemPrincipal, unary } from '@svc/kit';
import { IdentityServiceClient } from '@svc/proto/identity/v1';
import { MediaServiceClient } from '@svc/proto/inbox/v1/media';
import { startStackProcess, type StackProcess } from './stack-process';

const MiB = 1024 * 1024;
const FILES = Number(process.env.BENCH_FILES ?? 10);
const FILE_BYTES = Number(process.env.BENCH_FILE_BYTES ?? 16 * MiB);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
type Kind = 'gateway' | 'inbox';
const KINDS = (process.env.BENCH_KINDS?.split(',') ?? ['gateway', 'inbox']) as Kind[];
const SAMPLE_MS = 5;
const UPLOAD_MANY = 'mutation($fs: [File!]!) { uploadMultipleMedia(files: $fs) { _id sizeBytes contentType } }';

/** A field of /proc/<pid>/status in bytes (VmRSS, VmHWM: "VmRSS:   123456 kB"). */
function procStatus(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status);
  if (!match?.[1]) throw new Error(`/proc/${pid}/status has no ${field}`);
  return Number(match[1]) * 1024;
}

/** Resets the process's peak RSS (VmHWM) to its current RSS (Linux ≥ 4.0); false where that is not permitted. */
function resetPeak(pid: number): boolean {
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** Random bytes behind a JPEG/JFIF signature: what the inbox sniffs as image/jpeg, and nothing compresses. */
function jpegLike(size: number): Buffer {
  const header = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00]);
  return Buffer.concat([header, randomBytes(size - header.length)], size);
}

interface Round {
  /** RSS just before the request. */
  before: number;
  peak: number;
  /** RSS once the answer arrived. */
  after: number;
  /** Whether the peak includes VmHWM (reset before the round) rather than the sampler alone. */
  hwm: boolean;
  /** Why the request failed, if it did (its row then measures the refusal, not the upload). */
  error?: string;
}

/** Runs `request` while watching the process's RSS; the peak is the larger of VmHWM and the samples. */
async function measure(pid: number, request: () => Promise<void>): Promise<Round> {
  const before = procStatus(pid, 'VmRSS');
  const hwm = resetPeak(pid);
  let sampled = before;
  const sampler = setInterval(() => {
    sampled = Math.max(sampled, procStatus(pid, 'VmRSS'));
  }, SAMPLE_MS);
  let error: string | undefined;
  try {
    await request();
  } catch (failure) {
    error = (failure as Error).message;
  } finally {
    clearInterval(sampler);
  }
  const after = procStatus(pid, 'VmRSS');
  const peak = Math.max(sampled, after, hwm ? procStatus(pid, 'VmHWM') : 0);
  return { before, peak, after, hwm, ...(error ? { error } : {}) };
}

/** The GraphQL multipart request (graphql-multipart-request-spec) a client sends for uploadMultipleMedia. */
async function uploadThroughGateway(stack: StackProcess, apiKey: string, files: Buffer[]): Promise<void> {
  const form = new FormData();
  form.append('operations', JSON.stringify({ query: UPLOAD_MANY, variables: { fs: files.map(() => null) } }));
  form.append('map', JSON.stringify(Object.fromEntries(files.map((_, i) => [String(i), [`variables.fs.${i}`]]))));
  files.forEach((bytes, i) =>
    form.append(String(i), new Blob([new Uint8Array(bytes)], { type: 'image/jpeg' }), `bench-${i}.jpg`),
  );
  const response = await fetch(`${stack.url}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}` },
    body: form,
  });
  const body = (await response.json()) as {
    data?: { uploadMultipleMedia?: { sizeBytes: number; contentType: string }[] };
    errors?: unknown[];
  };
  const stored = body.data?.uploadMultipleMedia ?? [];
  if (
    response.status !== 200 ||
    body.errors?.length ||
    stored.length !== files.length ||
    stored.some((m, i) => Number(m.sizeBytes) !== files[i]!.length)
  ) {
    throw new Error(`HTTP ${response.status} ${JSON.stringify(body).slice(0, 300)}`);
  }
}

/** The same files straight to the inbox's gRPC method, with the principal the gateway would send for the API key. */
async function uploaderToInbox(stack: StackProcess, apiKey: string) {
  const inbox = grpcClient(MediaServiceClient, `127.0.0.1:${stack.grpc.inbox}`);
  const identity = grpcClient(IdentityServiceClient, `127.0.0.1:${stack.grpc.identity}`);
  const principal = await unary(
    identity.authenticate.bind(identity),
    { credential: apiKey, actAsOrgId: '' },
    callerMetadata(systemPrincipal(), 'identity'),
  );
  identity.close();
  const metadata = await callerMetadata(principal, 'inbox');
  return {
    upload: async (files: Buffer[]) => {
      const result = await unary(
        inbox.uploadMultipleMedia.bind(inbox),
        {
          files: files.map((content, i) => ({
            fileName: `bench-${i}.jpg`,
            declaredContentType: 'image/jpeg',
            content,
          })),
        },
        metadata,
        300_000,
      );
      if (result.data.length !== files.length) throw new Error(`the inbox stored ${result.data.length} files`);
    },
    close: () => inbox.close(),
  };
}

interface Run {
  kind: Kind;
  /** RSS after the warm-up, before the first large upload. */
  baseline: number;
  rounds: Round[];
}

/** One fresh stack process: warm-up with small files, then ROUNDS large uploads of `kind`. */
async function run(kind: Kind, files: Buffer[]): Promise<Run> {
  // The stack's gateway takes 16 MiB x 10 files (its defaults); the inbox reads its limits from the environment.
  const stack = await startStackProcess({ MEDIA_MAX_BYTES: String(FILE_BYTES), MEDIA_MAX_FILES: String(FILES) });
  const apiKey = stack.demo.SVC_DEMO_API_KEY ?? '';
  const direct = await uploaderToInbox(stack, apiKey);
  try {
    const upload = (batch: Buffer[]) =>
      kind === 'gateway' ? uploadThroughGateway(stack, apiKey, batch) : direct.upload(batch);
    const small = Array.from({ length: FILES }, () => jpegLike(64 * 1024));
    await upload(small).catch((error: unknown) => {
      throw new Error(`the warm-up upload (${kind}) failed: ${(error as Error).message}`);
    });
    const baseline = procStatus(stack.pid, 'VmRSS');
    const rounds: Round[] = [];
    for (let i = 0; i < ROUNDS; i += 1) rounds.push(await measure(stack.pid, () => upload(files)));
    return { kind, baseline, rounds };
  } finally {
    direct.close();
    await stack.stop();
  }
}

const mib = (bytes: number) => `${(bytes / MiB).toFixed(0)} MiB`;

async function main(): Promise<void> {
  if (!fs.existsSync('/proc/self/status')) throw new Error('bench:upload-memory reads /proc: it runs on Linux only');
  const files = Array.from({ length: FILES }, () => jpegLike(FILE_BYTES));
  const uploaded = FILES * FILE_BYTES;
  const runs: Run[] = [];
  for (const kind of KINDS) runs.push(await run(kind, files));

  console.log(
    `uploadMultipleMedia, ${FILES} × ${FILE_BYTES} bytes = ${mib(uploaded)} per request, ${ROUNDS} per run; server: ` +
      `npm start's stack in a fresh process per run (gateway and inbox share its RSS; SQLite, embedded bus)`,
  );
  console.log(
    `${'run'.padEnd(9)} ${'round'.padStart(5)} ${'RSS before'.padStart(11)} ${'peak'.padStart(9)} ${'after'.padStart(9)}   growth over the run's baseline`,
  );
  const ratios: Partial<Record<Kind, number>> = {};
  for (const r of runs) {
    r.rounds.forEach((round, i) => {
      const growth = round.peak - r.baseline;
      console.log(
        `${r.kind.padEnd(9)} ${String(i + 1).padStart(5)} ${mib(round.before).padStart(11)} ${mib(round.peak).padStart(9)} ` +
          `${mib(round.after).padStart(9)}   ${mib(growth)} = ${(growth / uploaded).toFixed(2)} × uploaded` +
          `${round.hwm ? '' : ' (sampled every 5 ms: VmHWM could not be reset)'}${round.error ? `   FAILED: ${round.error}` : ''}`,
      );
    });
    const ok = r.rounds.filter((round) => !round.error);
    if (ok.length) ratios[r.kind] = (Math.max(...ok.map((round) => round.peak)) - r.baseline) / uploaded;
  }
  const show = (value: number | undefined) => (value === undefined ? 'n/a' : value.toFixed(2));
  const gatewayShare =
    ratios.gateway === undefined || ratios.inbox === undefined ? undefined : Math.max(0, ratios.gateway - ratios.inbox);
  console.log(
    `peak growth / bytes uploaded: gateway + inbox ${show(ratios.gateway)}, inbox alone ${show(ratios.inbox)}, ` +
      `so the gateway alone ≈ ${show(gatewayShare)} (n/a: not measured, or every round failed)`,
  );
  if (runs.some((r) => r.rounds.some((round) => round.error))) {
    console.error('some uploads failed (FAILED above); those rows measure the refusal, not the upload');
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
