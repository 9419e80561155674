/**
 * Shared helpers of the deploy suite: where the repository and the tools are, running helm/skaffold, parsing their
 * output strictly, and validating every rendered object against the Kubernetes schemas.
 *
 * Validation has two layers:
 *   1. kubernetes-models' validators (the OpenAPI schemas of the Kubernetes API): types, required fields, formats.
 *   2. unknown fields: those schemas allow any extra property, so a typo such as `readinesProbe` would pass and the
 *      API server would silently drop it. The same package's TypeScript declarations list every field, so the
 *      rendered object is walked against them with the TypeScript compiler API.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import ts from 'typescript';
import { parseAllDocuments } from 'yaml';
import { Deployment, StatefulSet } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Job } from 'kubernetes-models/batch/v1';
import { Ingress, NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, PersistentVolumeClaim, Secret, Service, ServiceAccount } from 'kubernetes-models/v1';

/** tests/dist/deploy/*.js -> the repository root. */
export const repoRoot = path.resolve(__dirname, '..', '..', '..');
export const chartDir = path.join(repoRoot, 'charts', 'svc');
export const libChartDir = path.join(repoRoot, 'charts', 'svc-lib');
export const releaseName = 'svc';
export const namespace = 'svc-test';

// ---------------------------------------------------------------------------------------------------------------
// Deployables
// ---------------------------------------------------------------------------------------------------------------

/** Folders under services/ that are libraries or the embedded launcher, not deployables. */
const NOT_DEPLOYABLE = new Set(['kit', 'stack']);
/** Source folder -> key under `services:` in charts/svc/values.yaml, where they differ. */
const VALUES_KEY: Record<string, string> = { mesh: 'gateway' };

export interface Deployable {
  /** Source folder relative to the repository root: services/identity, mesh, widget-stencil. */
  folder: string;
  /** Key under `services:` in the chart values, and the component name of its objects. */
  key: string;
  /** node: a Node service (the shared Dockerfile, Kafka, node --watch in dev); nginx: static files. */
  runtime: 'node' | 'nginx';
}

/** The non-Node deployables: their folder, values key and runtime (`runtime` in charts/svc/values.yaml too). */
export const STATIC_DEPLOYABLES: readonly Deployable[] = [
  { folder: 'widget-stencil', key: 'widget', runtime: 'nginx' },
];

/** The Node services: each folder of services/ (but kit and stack) plus mesh, the gateway. */
export function nodeDeployables(): Deployable[] {
  const servicesDir = path.join(repoRoot, 'services');
  const folders = fs
    .readdirSync(servicesDir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && !NOT_DEPLOYABLE.has(d.name))
    .map((d) => `services/${d.name}`);
  folders.push('mesh');
  return folders.sort().map((folder) => {
    const base = path.basename(folder);
    return { folder, key: VALUES_KEY[base] ?? base, runtime: 'node' as const };
  });
}

/** Every deployable: the Node services, then the static ones (the widget's assets). */
export function deployables(): Deployable[] {
  return [...nodeDeployables(), ...STATIC_DEPLOYABLES];
}

// ---------------------------------------------------------------------------------------------------------------
// Tools
// ---------------------------------------------------------------------------------------------------------------

function findOnPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** helm / skaffold: $HELM_BIN / $SKAFFOLD_BIN, else PATH. A missing tool fails the suite (never skips it). */
export function tool(name: 'helm' | 'skaffold'): string {
  const fromEnv = process.env[`${name.toUpperCase()}_BIN`];
  const found = fromEnv || findOnPath(name);
  if (!found || !fs.existsSync(found)) {
    throw new Error(
      `${name} not found (${name.toUpperCase()}_BIN=${fromEnv ?? ''}, PATH). Install the pinned version with ` +
        '`bash tests/infra/tools.sh` and `. tests/infra/.state/tools.env`.',
    );
  }
  return found;
}

/** The version pinned in tests/infra/tools.sh (HELM_VERSION=..., SKAFFOLD_VERSION=...). */
export function pinnedVersion(name: 'helm' | 'skaffold'): string {
  const script = fs.readFileSync(path.join(repoRoot, 'tests', 'infra', 'tools.sh'), 'utf8');
  const match = new RegExp(`^${name.toUpperCase()}_VERSION=(\\S+)$`, 'm').exec(script);
  if (!match?.[1]) throw new Error(`tests/infra/tools.sh pins no ${name.toUpperCase()}_VERSION`);
  return match[1];
}

export interface RunResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** A HOME for skaffold/helm: no usage data, no update check, nothing written to the real home. */
let toolHome: string | undefined;
function isolatedHome(): string {
  if (!toolHome) {
    toolHome = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-deploy-home-'));
    fs.mkdirSync(path.join(toolHome, '.skaffold'));
    fs.writeFileSync(
      path.join(toolHome, '.skaffold', 'config'),
      'global:\n  collect-metrics: false\n  update-check: false\n',
    );
    const home = toolHome;
    process.once('exit', () => fs.rmSync(home, { recursive: true, force: true }));
  }
  return toolHome;
}

export function run(bin: string, args: string[], cwd = repoRoot): RunResult {
  const home = isolatedHome();
  const result = spawnSync(bin, args, {
    cwd,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    timeout: 300_000,
    env: {
      ...process.env,
      HOME: home,
      SKAFFOLD_UPDATE_CHECK: 'false',
      SKAFFOLD_INTERACTIVE: 'false',
      // helm must be the one under test, also when skaffold calls it
      PATH: `${path.dirname(tool('helm'))}${path.delimiter}${process.env.PATH ?? ''}`,
    },
  });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Runs a command that must succeed; its stderr is in the error otherwise. */
export function runOk(bin: string, args: string[]): string {
  const result = run(bin, args);
  if (result.status !== 0) {
    throw new Error(
      `${path.basename(bin)} ${args.join(' ')} exited ${result.status}:\n${result.stderr}${result.stdout}`,
    );
  }
  return result.stdout;
}

/** Packages charts/svc-lib into charts/svc/charts (file:// dependency: offline), so renders see its current source. */
export function buildChartDependencies(): void {
  runOk(tool('helm'), ['dependency', 'build', chartDir]);
}

// ---------------------------------------------------------------------------------------------------------------
// Rendering and parsing
// ---------------------------------------------------------------------------------------------------------------

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

/** Parses a multi-document YAML stream strictly: a syntax error or a duplicate key anywhere fails. */
export function parseManifests(text: string, source: string): K8sObject[] {
  const objects: K8sObject[] = [];
  for (const doc of parseAllDocuments(text, { uniqueKeys: true, strict: true, prettyErrors: true })) {
    if (doc.errors.length > 0) {
      throw new Error(`${source}: invalid YAML:\n${doc.errors.map((e) => e.message).join('\n')}`);
    }
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) continue;
    if (typeof value !== 'object' || Array.isArray(value)) throw new Error(`${source}: a document is not an object`);
    const obj = value as K8sObject;
    if (!obj.apiVersion || !obj.kind || !obj.metadata?.name) {
      throw new Error(
        `${source}: an object lacks apiVersion, kind or metadata.name:\n${JSON.stringify(obj).slice(0, 300)}`,
      );
    }
    objects.push(obj);
  }
  return objects;
}

/** `helm template` of charts/svc with extra arguments (-f file, --set k=v); returns the parsed objects. */
export function helmTemplate(args: string[] = []): K8sObject[] {
  const out = runOk(tool('helm'), ['template', releaseName, chartDir, '--namespace', namespace, ...args]);
  return parseManifests(out, `helm template ${args.join(' ')}`);
}

export function findObject(objects: K8sObject[], kind: string, name: string): K8sObject | undefined {
  return objects.find((o) => o.kind === kind && o.metadata.name === name);
}

export function getObject<T = K8sObject>(objects: K8sObject[], kind: string, name: string): T {
  const found = findObject(objects, kind, name);
  if (!found) {
    const have = objects.map((o) => `${o.kind}/${o.metadata.name}`).join(', ');
    throw new Error(`no ${kind}/${name} rendered (have: ${have})`);
  }
  return found as T;
}

/** The Secret holding webhook-ingress's WEBHOOK_SECRETS_KEYS: the chart's own name for it (<release>-svc-webhook-secrets-keys,
 * from webhookSecretsKeys.value), and the existingSecret of ci/production-values.yaml and of skaffold's default. */
export const WEBHOOK_KEYS_SECRET = `${releaseName}-webhook-secrets-keys`;
/** Likewise for channels' CHANNELS_SECRETS_KEYS (<release>-svc-channels-secrets-keys). */
export const CHANNELS_KEYS_SECRET = `${releaseName}-channels-secrets-keys`;
/** Likewise for partner's PARTNER_SECRETS_KEYS (<release>-svc-partner-secrets-keys). */
export const PARTNER_KEYS_SECRET = `${releaseName}-partner-secrets-keys`;

/**
 * What every install adds to values.yaml: the chart refuses to render without a source of webhook-ingress's
 * WEBHOOK_SECRETS_KEYS (webhookSecretsKeys.existingSecret or .value), of channels' CHANNELS_SECRETS_KEYS and of
 * partner's PARTNER_SECRETS_KEYS. Renders "with default values" pass these; the
 * values files of charts/svc (production, dev) carry their own.
 */
export const REQUIRED_ARGS = [
  '--set',
  `webhookSecretsKeys.existingSecret=${WEBHOOK_KEYS_SECRET}`,
  '--set',
  `channelsSecretsKeys.existingSecret=${CHANNELS_KEYS_SECRET}`,
  '--set',
  `partnerSecretsKeys.existingSecret=${PARTNER_KEYS_SECRET}`,
];

/** Object name of a service's Deployment, Service, ... for the release the suite renders. */
export function objectName(key: string): string {
  return `${releaseName}-${key}`;
}

// ---------------------------------------------------------------------------------------------------------------
// Validation
// ---------------------------------------------------------------------------------------------------------------

interface ModelClass {
  new (data: never): { validate(): void };
}

interface Known {
  model: ModelClass;
  /** Declaration file (relative to kubernetes-models) and interface holding the object's fields. */
  dts: string;
  iface: string;
}

const KNOWN: Record<string, Known> = {
  'v1/ConfigMap': { model: ConfigMap, dts: 'v1/ConfigMap.d.ts', iface: 'IConfigMap' },
  'v1/Secret': { model: Secret, dts: 'v1/Secret.d.ts', iface: 'ISecret' },
  'v1/Service': { model: Service, dts: 'v1/Service.d.ts', iface: 'IService' },
  'v1/ServiceAccount': { model: ServiceAccount, dts: 'v1/ServiceAccount.d.ts', iface: 'IServiceAccount' },
  'v1/PersistentVolumeClaim': {
    model: PersistentVolumeClaim,
    dts: 'v1/PersistentVolumeClaim.d.ts',
    iface: 'IPersistentVolumeClaim',
  },
  'apps/v1/Deployment': { model: Deployment, dts: 'apps/v1/Deployment.d.ts', iface: 'IDeployment' },
  'apps/v1/StatefulSet': { model: StatefulSet, dts: 'apps/v1/StatefulSet.d.ts', iface: 'IStatefulSet' },
  'batch/v1/Job': { model: Job, dts: 'batch/v1/Job.d.ts', iface: 'IJob' },
  'autoscaling/v2/HorizontalPodAutoscaler': {
    model: HorizontalPodAutoscaler,
    dts: 'autoscaling/v2/HorizontalPodAutoscaler.d.ts',
    iface: 'IHorizontalPodAutoscaler',
  },
  'policy/v1/PodDisruptionBudget': {
    model: PodDisruptionBudget,
    dts: 'policy/v1/PodDisruptionBudget.d.ts',
    iface: 'IPodDisruptionBudget',
  },
  'networking.k8s.io/v1/NetworkPolicy': {
    model: NetworkPolicy,
    dts: 'networking.k8s.io/v1/NetworkPolicy.d.ts',
    iface: 'INetworkPolicy',
  },
  'networking.k8s.io/v1/Ingress': { model: Ingress, dts: 'networking.k8s.io/v1/Ingress.d.ts', iface: 'IIngress' },
};

/** Kinds outside kubernetes-models, checked by hand (see checkHttpRoute). */
const HAND_CHECKED = new Set(['gateway.networking.k8s.io/v1/HTTPRoute']);

/** The TypeScript view of kubernetes-models' declarations, built once. */
let typeIndex: { checker: ts.TypeChecker; types: Map<string, ts.Type> } | undefined;
function typesOfModels(): { checker: ts.TypeChecker; types: Map<string, ts.Type> } {
  if (typeIndex) return typeIndex;
  const modelsDir = path.dirname(require.resolve('kubernetes-models/package.json'));
  const roots = Object.values(KNOWN).map((k) => path.join(modelsDir, k.dts));
  const program = ts.createProgram(roots, {
    noEmit: true,
    skipLibCheck: true,
    types: [],
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
  });
  const checker = program.getTypeChecker();
  const types = new Map<string, ts.Type>();
  for (const [key, known] of Object.entries(KNOWN)) {
    const source = program.getSourceFile(path.join(modelsDir, known.dts));
    const moduleSymbol = source && checker.getSymbolAtLocation(source);
    const symbol = moduleSymbol && checker.getExportsOfModule(moduleSymbol).find((s) => s.name === known.iface);
    if (!symbol) throw new Error(`kubernetes-models: no ${known.iface} in ${known.dts}`);
    types.set(key, checker.getDeclaredTypeOfSymbol(symbol));
  }
  typeIndex = { checker, types };
  return typeIndex;
}

/** Fields of `value` that its declared type does not have, as JSON-pointer-like paths. */
function unknownFields(value: unknown, type: ts.Type, at: string, checker: ts.TypeChecker, out: string[]): void {
  if (value === null || typeof value !== 'object') return;
  const nonNull = checker.getNonNullableType(type);
  const objectTypes = nonNull.isUnion()
    ? nonNull.types.filter((t) => (t.flags & ts.TypeFlags.Object) !== 0)
    : (nonNull.flags & ts.TypeFlags.Object) !== 0
      ? [nonNull]
      : [];
  if (objectTypes.length !== 1) return; // a primitive, or ambiguous (int-or-string, ...): layer 1 covers it
  const declared = objectTypes[0]!;
  if (Array.isArray(value)) {
    const element = declared.getNumberIndexType();
    if (element) value.forEach((item, i) => unknownFields(item, element, `${at}/${i}`, checker, out));
    return;
  }
  const index = checker.getIndexInfosOfType(declared).find((info) => info.keyType.flags & ts.TypeFlags.String);
  for (const [key, child] of Object.entries(value)) {
    const property = checker.getPropertyOfType(declared, key);
    if (property) {
      const declaration = property.valueDeclaration ?? property.declarations?.[0];
      if (declaration)
        unknownFields(child, checker.getTypeOfSymbolAtLocation(property, declaration), `${at}/${key}`, checker, out);
    } else if (index) {
      unknownFields(child, index.type, `${at}/${key}`, checker, out);
    } else {
      out.push(`${at}/${key}`);
    }
  }
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** Checks an HTTPRoute (gateway.networking.k8s.io/v1) by hand: its backends must be rendered Services and ports. */
function checkHttpRoute(route: K8sObject, all: K8sObject[]): string[] {
  const problems: string[] = [];
  const spec = route.spec as
    | {
        parentRefs?: { name?: string }[];
        rules?: { matches?: unknown[]; backendRefs?: { name?: string; port?: number }[] }[];
      }
    | undefined;
  if (!spec?.parentRefs?.length || spec.parentRefs.some((p) => !p.name))
    problems.push('spec.parentRefs needs named entries');
  if (!spec?.rules?.length) problems.push('spec.rules is empty');
  for (const rule of spec?.rules ?? []) {
    for (const backend of rule.backendRefs ?? []) {
      const service = all.find((o) => o.kind === 'Service' && o.metadata.name === backend.name);
      const ports = ((service?.spec as { ports?: { port: number }[] } | undefined)?.ports ?? []).map((p) => p.port);
      if (!service) problems.push(`backendRef ${backend.name} is not a rendered Service`);
      else if (typeof backend.port !== 'number' || !ports.includes(backend.port)) {
        problems.push(`backendRef ${backend.name}:${backend.port} is not a port of that Service (${ports.join(', ')})`);
      }
    }
  }
  return problems;
}

/**
 * Validates every object: Kubernetes schema (kubernetes-models), no unknown fields, valid names and label values,
 * no duplicate objects. Returns one message per problem (empty = all valid).
 */
export function validateObjects(objects: K8sObject[]): string[] {
  const problems: string[] = [];
  const { checker, types } = typesOfModels();
  const seen = new Set<string>();
  for (const obj of objects) {
    const key = `${obj.apiVersion}/${obj.kind}`;
    const id = `${obj.kind}/${obj.metadata.name}`;
    if (seen.has(id)) problems.push(`${id}: rendered twice`);
    seen.add(id);
    const name = obj.metadata.name;
    if (name.length > 253 || !DNS_SUBDOMAIN.test(name)) problems.push(`${id}: name is not a DNS subdomain`);
    if (obj.kind === 'Service' && (name.length > 63 || !DNS_LABEL.test(name)))
      problems.push(`${id}: name is not a DNS label (<= 63)`);
    for (const [label, value] of Object.entries(obj.metadata.labels ?? {})) {
      if (typeof value !== 'string' || value.length > 63 || !LABEL_VALUE.test(value)) {
        problems.push(`${id}: label ${label}=${String(value)} is not a valid label value`);
      }
    }
    if (HAND_CHECKED.has(key)) {
      problems.push(...checkHttpRoute(obj, objects).map((p) => `${id}: ${p}`));
      continue;
    }
    const known = KNOWN[key];
    if (!known) {
      problems.push(`${id}: no schema known for ${key} (add it to tests/deploy/support.ts)`);
      continue;
    }
    try {
      new known.model(obj as never).validate();
    } catch (error) {
      problems.push(`${id}: ${(error as Error).message}`);
    }
    const unknown: string[] = [];
    unknownFields(obj, types.get(key)!, '', checker, unknown);
    for (const field of unknown) problems.push(`${id}: unknown field ${field}`);
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------------------------
// Shapes used by the assertions
// ---------------------------------------------------------------------------------------------------------------

export interface Probe {
  grpc?: { port: number; service?: string };
  httpGet?: { path: string; port: number | string };
}
export interface Container {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  ports?: { name?: string; containerPort: number }[];
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  startupProbe?: Probe;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: {
    runAsNonRoot?: boolean;
    allowPrivilegeEscalation?: boolean;
    readOnlyRootFilesystem?: boolean;
    capabilities?: { drop?: string[] };
    seccompProfile?: { type: string };
  };
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}
export interface PodSpec {
  serviceAccountName?: string;
  automountServiceAccountToken?: boolean;
  securityContext?: {
    runAsNonRoot?: boolean;
    runAsUser?: number;
    fsGroup?: number;
    fsGroupChangePolicy?: string;
    seccompProfile?: { type: string };
  };
  containers: Container[];
  volumes?: { name: string; emptyDir?: unknown; persistentVolumeClaim?: { claimName: string } }[];
}
export interface Workload extends K8sObject {
  spec: {
    replicas?: number;
    strategy?: { type: string; rollingUpdate?: { maxSurge?: string | number; maxUnavailable?: string | number } };
    selector: { matchLabels: Record<string, string> };
    template: { metadata: { labels: Record<string, string>; annotations?: Record<string, string> }; spec: PodSpec };
  };
}
/** Kind/name of the workloads (Deployment, StatefulSet, Job) any of whose containers has env var `name`, sorted. */
export function workloadsWithEnv(objects: K8sObject[], name: string): string[] {
  return (objects.filter((o) => ['Deployment', 'StatefulSet', 'Job'].includes(o.kind)) as Workload[])
    .filter((w) => w.spec.template.spec.containers.some((c) => (c.env ?? []).some((e) => e.name === name)))
    .map((w) => `${w.kind}/${w.metadata.name}`)
    .sort();
}

/** Kind/name of the workloads that reference Secret `secret` (secretKeyRef, envFrom or volume), sorted. */
export function workloadsReadingSecret(objects: K8sObject[], secret: string): string[] {
  return (objects.filter((o) => ['Deployment', 'StatefulSet', 'Job'].includes(o.kind)) as Workload[])
    .filter((w) => {
      const spec = w.spec.template.spec;
      const fromEnv = spec.containers.some(
        (c) =>
          (c.env ?? []).some((e) => e.valueFrom?.secretKeyRef?.name === secret) ||
          (c.envFrom ?? []).some((e) => e.secretRef?.name === secret),
      );
      const fromVolume = (spec.volumes ?? []).some(
        (v) => (v as { secret?: { secretName?: string } }).secret?.secretName === secret,
      );
      return fromEnv || fromVolume;
    })
    .map((w) => `${w.kind}/${w.metadata.name}`)
    .sort();
}

export interface PersistentVolumeClaimObject extends K8sObject {
  spec: {
    accessModes: string[];
    storageClassName?: string;
    volumeMode?: string;
    resources: { requests: { storage: string } };
  };
}
