/**
 * charts/svc (and the library chart charts/svc-lib) with the real helm: lint, render with several values files,
 * validate every object against the Kubernetes schemas, check what each deployable must have, and check that wrong
 * values fail with a message naming them.
 */
import * as fs from 'node:fs';
import { BlockList, isIPv6 } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { expect } from 'chai';
import { parse } from 'yaml';
import { appsOfSubgraphs, endpointVariable } from '@svc/gateway';
import { AUDIENCES } from '@svc/kit';
import { isPublicAddress } from '@svc/partner';
import {
  type Container,
  type Deployable,
  type K8sObject,
  type PersistentVolumeClaimObject,
  type Workload,
  REQUIRED_ARGS,
  WEBHOOK_KEYS_SECRET,
  CHANNELS_KEYS_SECRET,
  PARTNER_KEYS_SECRET,
  buildChartDependencies,
  chartDir,
  deployables,
  findObject,
  getObject,
  helmTemplate,
  libChartDir,
  objectName,
  pinnedVersion,
  releaseName,
  repoRoot,
  run,
  runOk,
  tool,
  validateObjects,
  workloadsReadingSecret,
  workloadsWithEnv,
} from './support';

interface ServiceValues {
  enabled: boolean;
  kind: 'grpc' | 'http';
  runtime?: 'node' | 'nginx';
  ports: { grpc?: number; http: number };
  database: { enabled: boolean };
  upstreams: Record<string, string>;
  public: { paths: string[] };
}
interface ChartValues {
  services: Record<string, ServiceValues>;
}

/** The values blocks of the service keys (docs/decisions/0065), the variable each fills and who reads it. */
const TRUST_BLOCKS = [
  {
    block: 'trustJwks',
    env: 'SVC_TRUST_JWKS',
    // every service that verifies principal tokens: the audiences of the trust policy
    readers: [...AUDIENCES],
  },
  { block: 'gatewaySigningKey', env: 'SVC_SIGNING_KEY', readers: ['gateway'] },
  { block: 'inboxSigningKey', env: 'SVC_SIGNING_KEY', readers: ['inbox'] },
  { block: 'contactsSigningKey', env: 'SVC_SIGNING_KEY', readers: ['contacts'] },
  { block: 'flowsSigningKey', env: 'SVC_SIGNING_KEY', readers: ['flows'] },
  { block: 'webhookIngressSigningKey', env: 'SVC_SIGNING_KEY', readers: ['webhook-ingress'] },
  { block: 'widgetApiSigningKey', env: 'SVC_SIGNING_KEY', readers: ['widget-api'] },
  { block: 'channelsSigningKey', env: 'SVC_SIGNING_KEY', readers: ['channels'] },
  { block: 'contentSigningKey', env: 'SVC_SIGNING_KEY', readers: ['content'] },
  { block: 'partnerSigningKey', env: 'SVC_SIGNING_KEY', readers: ['partner'] },
  { block: 'mediaUrlSecret', env: 'MEDIA_URL_SECRET', readers: ['inbox'] },
];
/** The Secret a values block names when it sets no existingSecret: <release>-svc-<block in kebab case>. */
const secretOfBlock = (block: string) => objectName(block.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`));

const defaults = parse(fs.readFileSync(path.join(chartDir, 'values.yaml'), 'utf8')) as ChartValues;
const productionValues = path.join(chartDir, 'ci', 'production-values.yaml');
const devValues = path.join(chartDir, 'values-dev.yaml');
/** Enabled services with public paths (in render order): the ingress controller may reach only these. */
const PUBLIC_SERVICES = ['channels', 'content', 'gateway', 'inbox', 'webhook-ingress', 'widget', 'widget-api'];
/** Where the inbox keeps its media files (services.inbox.persistence.mountPath), exported as MEDIA_DIR. */
const MEDIA_MOUNT = '/var/lib/svc/media';
const BODY_SIZE = 'nginx.ingress.kubernetes.io/proxy-body-size';
/** Two well-formed WEBHOOK_SECRETS_KEYS keys (base64 of 32 bytes), as webhook-ingress's keyring parses them. */
const KEY_A = Buffer.from('0123456789abcdef0123456789abcdef').toString('base64');
const KEY_B = Buffer.from('fedcba9876543210fedcba9876543210').toString('base64');
const WEBHOOK_KEYS = 'WEBHOOK_SECRETS_KEYS';
/** channels' and partner's keys from existingSecrets: what a render that tests webhook-ingress's keys adds. */
const CHANNELS_ARGS = [
  '--set',
  `channelsSecretsKeys.existingSecret=${CHANNELS_KEYS_SECRET}`,
  '--set',
  `partnerSecretsKeys.existingSecret=${PARTNER_KEYS_SECRET}`,
];
/** HTTPRoutes (Gateway API) instead of Ingresses: what a render adds besides ingress.enabled=false. */
const GATEWAY_API = ['--set', 'httpRoute.enabled=true', '--set', 'httpRoute.parentRefs[0].name=public'];

function container(workload: Workload): Container {
  const first = workload.spec.template.spec.containers[0];
  if (!first) throw new Error(`${workload.metadata.name}: no container`);
  return first;
}

function envValue(objects: K8sObject[], workload: Workload, name: string): string | undefined {
  const c = container(workload);
  const direct = c.env?.find((e) => e.name === name);
  if (direct) return direct.value ?? (direct.valueFrom ? '<from secret>' : undefined);
  for (const source of c.envFrom ?? []) {
    const map = source.configMapRef && findObject(objects, 'ConfigMap', source.configMapRef.name);
    const data = (map as { data?: Record<string, string> } | undefined)?.data;
    if (data && name in data) return data[name];
  }
  return undefined;
}

/** Everything one deployable must have in a render where it is enabled. */
function assertDeployable(objects: K8sObject[], d: Deployable, opts: { readOnlyRoot: boolean }): void {
  const values = defaults.services[d.key]!;
  const name = objectName(d.key);
  const deployment = getObject<Workload>(objects, 'Deployment', name);
  const c = container(deployment);
  const pod = deployment.spec.template;
  expect(values.runtime ?? 'node', `services.${d.key}.runtime`).to.equal(d.runtime);

  // image, resources, service account
  expect(c.image, `${name} image`).to.match(/^[^\s:]+(:[\w][\w.-]{0,127})?(@sha256:[a-f0-9]{64})?$/);
  expect(c.resources?.requests?.memory, `${name} memory request`).to.be.a('string');
  expect(c.resources?.limits?.memory, `${name} memory limit`).to.be.a('string');
  expect(pod.spec.serviceAccountName).to.equal(name);
  getObject(objects, 'ServiceAccount', name);
  expect(pod.spec.automountServiceAccountToken).to.equal(false);

  // probes: native gRPC for gRPC services, /readyz + /healthz for HTTP ones
  if (values.kind === 'grpc') {
    for (const probe of [c.readinessProbe, c.livenessProbe, c.startupProbe]) {
      expect(probe?.grpc?.port, `${name} gRPC probe`).to.equal(values.ports.grpc);
    }
  } else {
    expect(c.readinessProbe?.httpGet, `${name} readiness`).to.deep.include({ path: '/readyz', port: 'http' });
    expect(c.livenessProbe?.httpGet, `${name} liveness`).to.deep.include({ path: '/healthz', port: 'http' });
  }
  const portNames = (c.ports ?? []).map((p) => p.name);
  expect(portNames).to.include('http');
  if (values.kind === 'grpc') expect(portNames).to.include('grpc');

  // security: non-root, no privilege escalation, no capabilities, RuntimeDefault seccomp, read-only root
  expect(pod.spec.securityContext?.runAsNonRoot).to.equal(true);
  expect(pod.spec.securityContext?.runAsUser).to.be.a('number').and.not.equal(0);
  expect(pod.spec.securityContext?.seccompProfile?.type).to.equal('RuntimeDefault');
  expect(c.securityContext?.allowPrivilegeEscalation).to.equal(false);
  expect(c.securityContext?.capabilities?.drop).to.deep.equal(['ALL']);
  expect(c.securityContext?.readOnlyRootFilesystem).to.equal(opts.readOnlyRoot);
  expect(c.volumeMounts?.map((m) => m.mountPath)).to.include('/tmp');

  // config: env from the service's ConfigMap, rolled by checksum/config
  expect(pod.metadata.annotations?.['checksum/config']).to.match(/^[a-f0-9]{64}$/);
  if (d.runtime === 'node') {
    // A deployable refuses to start without brokers: the in-process bus is the embedded stack's only (decision 0063).
    expect(envValue(objects, deployment, 'KAFKA_BROKERS'), `${name} KAFKA_BROKERS`).to.match(/^[^,\s]+(,[^,\s]+)*$/);
  } else {
    // static files (nginx): no Node command, no broker, no /metrics to scrape
    expect(c.command, `${name} command`).to.equal(undefined);
    expect(envValue(objects, deployment, 'KAFKA_BROKERS'), `${name} KAFKA_BROKERS`).to.equal(undefined);
    expect(pod.metadata.annotations?.['prometheus.io/scrape'], `${name} scrape`).to.equal(undefined);
  }
  const configMap = c.envFrom?.find((e) => e.configMapRef)?.configMapRef?.name;
  expect(configMap, `${name} envFrom ConfigMap`).to.be.a('string');
  getObject(objects, 'ConfigMap', configMap!);
  if (values.database.enabled) expect(envValue(objects, deployment, 'DB_URL')).to.equal('<from secret>');

  // a Service with the named ports, selecting exactly this Deployment's pods
  const service = getObject<K8sObject & { spec: { selector: Record<string, string>; ports: { name: string }[] } }>(
    objects,
    'Service',
    name,
  );
  expect(service.spec.ports.map((p) => p.name)).to.include.members(
    values.kind === 'grpc' ? ['grpc', 'http'] : ['http'],
  );
  expect(pod.metadata.labels).to.deep.include(service.spec.selector);
  const selecting = objects.filter(
    (o) =>
      (o.kind === 'Deployment' || o.kind === 'StatefulSet') &&
      Object.entries(service.spec.selector).every(([k, v]) => (o as Workload).spec.template.metadata.labels[k] === v),
  );
  expect(
    selecting.map((o) => o.metadata.name),
    `${name} Service selects one workload`,
  ).to.deep.equal([name]);

  // availability and the ingress allow-list
  getObject(objects, 'PodDisruptionBudget', name);
  const policy = getObject<K8sObject & { spec: { podSelector: { matchLabels: Record<string, string> } } }>(
    objects,
    'NetworkPolicy',
    name,
  );
  expect(policy.spec.podSelector.matchLabels).to.deep.equal(deployment.spec.selector.matchLabels);
}

/** What a deployable still lacks (empty when finished): its Dockerfile, values block, skaffold artifact. */
function unfinished(d: Deployable): string[] {
  const missing: string[] = [];
  const dockerfile = `${d.folder}/Dockerfile`;
  if (!fs.existsSync(path.join(repoRoot, dockerfile))) {
    missing.push(`${dockerfile} (copy services/inbox/Dockerfile and set ARG WORKSPACE=${d.folder})`);
  }
  const block = defaults.services[d.key];
  if (!block) missing.push(`a services.${d.key} block in charts/svc/values.yaml (and its key in values.schema.json)`);
  else if (!block.enabled) missing.push(`services.${d.key}.enabled: true in charts/svc/values.yaml`);
  const skaffold = parse(fs.readFileSync(path.join(repoRoot, 'skaffold.yaml'), 'utf8')) as {
    build: { artifacts: { docker?: { dockerfile?: string } }[] };
    deploy: { helm: { releases: { setValueTemplates?: Record<string, string> }[] } };
    profiles: { name: string; build?: { artifacts?: { docker?: { dockerfile?: string } }[] } }[];
  };
  const builds = (artifacts: { docker?: { dockerfile?: string } }[] | undefined) =>
    (artifacts ?? []).some((a) => a.docker?.dockerfile === dockerfile);
  if (!builds(skaffold.build.artifacts)) missing.push(`a build.artifacts entry for ${dockerfile} in skaffold.yaml`);
  const dev = skaffold.profiles.find((p) => p.name === 'dev');
  if (dev?.build?.artifacts && !builds(dev.build.artifacts)) {
    missing.push(`an artifact for ${dockerfile} (with sync rules) in skaffold.yaml's dev profile`);
  }
  const templates = skaffold.deploy.helm.releases[0]?.setValueTemplates ?? {};
  for (const field of ['repository', 'tag', 'digest']) {
    if (!templates[`services.${d.key}.image.${field}`])
      missing.push(`setValueTemplates services.${d.key}.image.${field} in skaffold.yaml`);
  }
  return missing;
}

/** gRPC callers a service's NetworkPolicy admits (component labels of the allowed pods on the grpc port). */
function grpcCallers(objects: K8sObject[], key: string): string[] {
  const policy = getObject<
    K8sObject & {
      spec: {
        ingress: { from: { podSelector?: { matchLabels: Record<string, string> } }[]; ports: { port: string }[] }[];
      };
    }
  >(objects, 'NetworkPolicy', objectName(key));
  return policy.spec.ingress
    .filter((rule) => rule.ports.some((p) => p.port === 'grpc'))
    .flatMap((rule) =>
      rule.from.map((peer) => peer.podSelector?.matchLabels['app.kubernetes.io/component'] ?? '<not a pod>'),
    )
    .sort();
}

/**
 * The pods a gRPC service admits (callers derived from upstreams; production also admits networkPolicy.probeCIDRs,
 * which are not pods) are exactly `callers`, and each of them finds it at `<name>:<grpc port>` in `env`.
 */
function expectCalledBy(objects: K8sObject[], target: string, env: string, callers: string[]): void {
  const pods = grpcCallers(objects, target).filter((caller) => caller !== '<not a pod>');
  expect(pods, `callers of ${target}`).to.deep.equal(callers);
  const address = `${objectName(target)}:${defaults.services[target]!.ports.grpc}`;
  for (const caller of callers) {
    const workload = getObject<Workload>(objects, 'Deployment', objectName(caller));
    expect(envValue(objects, workload, env), `${caller} ${env}`).to.equal(address);
  }
}

interface EgressRule {
  to?: { podSelector?: { matchLabels: Record<string, string> }; ipBlock?: { cidr: string; except?: string[] } }[];
  ports?: { port: number | string; protocol: string }[];
}

/** policyTypes and egress rules of a NetworkPolicy (by object name). */
function egressOf(objects: K8sObject[], name: string): { types: string[]; egress: EgressRule[] } {
  const policy = getObject<K8sObject & { spec: { policyTypes: string[]; egress?: EgressRule[] } }>(
    objects,
    'NetworkPolicy',
    name,
  );
  return { types: policy.spec.policyTypes, egress: policy.spec.egress ?? [] };
}

describe('deploy: pinned tools', () => {
  it('runs the helm version pinned in tests/infra/tools.sh', () => {
    expect(runOk(tool('helm'), ['version', '--template', '{{.Version}}']).trim()).to.equal(pinnedVersion('helm'));
  });
  it('runs the skaffold version pinned in tests/infra/tools.sh', () => {
    expect(runOk(tool('skaffold'), ['version']).trim()).to.equal(pinnedVersion('skaffold'));
  });
});

describe('deploy: charts/svc', function () {
  this.timeout(180_000);

  before(() => buildChartDependencies());

  describe('helm lint', () => {
    for (const [label, args] of [
      ['default values', REQUIRED_ARGS],
      ['production values', ['-f', productionValues]],
      ['dev values', ['-f', devValues]],
    ] as const) {
      it(`passes --strict with ${label}`, () => {
        const result = run(tool('helm'), ['lint', '--strict', chartDir, ...args]);
        expect(result.status, result.stdout + result.stderr).to.equal(0);
      });
    }
    it('passes --strict on the library chart', () => {
      const result = run(tool('helm'), ['lint', '--strict', libChartDir]);
      expect(result.status, result.stdout + result.stderr).to.equal(0);
    });
  });

  const scenarios: { label: string; args: string[] }[] = [
    { label: 'default values', args: REQUIRED_ARGS },
    { label: 'production values', args: ['-f', productionValues] },
    { label: 'dev values (bundled MariaDB + Kafka)', args: ['-f', devValues] },
    {
      label: 'Gateway API instead of Ingress',
      args: [
        '-f',
        productionValues,
        '--set',
        'ingress.enabled=false',
        '--set',
        'httpRoute.enabled=true',
        '--set',
        'httpRoute.parentRefs[0].name=public',
      ],
    },
    {
      label: 'dev values with persistent volumes',
      args: [
        '-f',
        devValues,
        '--set',
        'infra.mariadb.persistence.enabled=true',
        '--set',
        'infra.kafka.persistence.enabled=true',
      ],
    },
    {
      label: 'media on an existing claim, Gateway API and an explicit public URL',
      args: [
        '-f',
        productionValues,
        '--set',
        'services.inbox.persistence.existingClaim=inbox-media',
        '--set',
        'global.publicUrl=https://chat.example.org',
        '--set',
        'ingress.enabled=false',
        '--set',
        'httpRoute.enabled=true',
        '--set',
        'httpRoute.parentRefs[0].name=public',
      ],
    },
    {
      label: 'persistence enabled for another service (the library block is generic)',
      args: [
        ...REQUIRED_ARGS,
        '--set',
        'services.identity.persistence.enabled=true',
        '--set',
        'services.identity.persistence.size=1Gi',
        '--set',
        'services.identity.persistence.mountPath=/var/lib/svc/keys',
        '--set',
        'services.identity.persistence.mountPathEnv=KEYS_DIR',
      ],
    },
    {
      label: 'every planned service enabled',
      args: [
        '-f',
        productionValues,
        ...Object.keys(defaults.services).flatMap((key) => ['--set', `services.${key}.enabled=true`]),
      ],
    },
  ];

  for (const scenario of scenarios) {
    describe(`rendered with ${scenario.label}`, () => {
      let objects: K8sObject[] = [];
      before(() => {
        objects = helmTemplate(scenario.args);
      });

      it('is valid YAML whose every object validates against the Kubernetes schemas, without unknown fields', () => {
        expect(objects.length).to.be.greaterThan(10);
        const problems = validateObjects(objects);
        expect(problems, problems.join('\n')).to.deep.equal([]);
      });

      it('references only ConfigMaps, Secrets, ServiceAccounts and claims that it renders or documents as external', () => {
        const external = new Set([
          // the Secrets of the service keys you create unless values give them (docs/deploy.md "Service keys")
          ...TRUST_BLOCKS.map(({ block }) => `Secret/${secretOfBlock(block)}`),
          'Secret/svc-identity-db',
          'Secret/svc-inbox-db',
          'PersistentVolumeClaim/inbox-media',
        ]);
        const prod = parse(fs.readFileSync(productionValues, 'utf8')) as {
          [block: string]: unknown;
          webhookSecretsKeys: { existingSecret: string };
          channelsSecretsKeys: { existingSecret: string };
          partnerSecretsKeys: { existingSecret: string };
          kafka: { sasl: { existingSecret: string } };
          global: { extraCACerts: { secretName: string } };
          services: Record<string, { database?: { existingSecret?: string } }>;
        };
        for (const { block } of TRUST_BLOCKS)
          external.add(`Secret/${(prod[block] as { existingSecret: string }).existingSecret}`);
        external.add(`Secret/${prod.webhookSecretsKeys.existingSecret}`);
        external.add(`Secret/${WEBHOOK_KEYS_SECRET}`); // REQUIRED_ARGS
        external.add(`Secret/${prod.channelsSecretsKeys.existingSecret}`);
        external.add(`Secret/${CHANNELS_KEYS_SECRET}`); // REQUIRED_ARGS
        external.add(`Secret/${prod.partnerSecretsKeys.existingSecret}`);
        external.add(`Secret/${PARTNER_KEYS_SECRET}`); // REQUIRED_ARGS
        external.add(`Secret/${prod.kafka.sasl.existingSecret}`);
        external.add(`Secret/${prod.global.extraCACerts.secretName}`);
        for (const v of Object.values(prod.services))
          if (v.database?.existingSecret) external.add(`Secret/${v.database.existingSecret}`);
        for (const key of Object.keys(defaults.services)) external.add(`Secret/${objectName(key)}-db`);
        const rendered = new Set(objects.map((o) => `${o.kind}/${o.metadata.name}`));
        const missing: string[] = [];
        for (const w of objects.filter((o) => ['Deployment', 'StatefulSet', 'Job'].includes(o.kind)) as Workload[]) {
          const spec = w.spec.template.spec;
          const refs: string[] = [];
          if (spec.serviceAccountName) refs.push(`ServiceAccount/${spec.serviceAccountName}`);
          for (const c of spec.containers) {
            for (const e of c.envFrom ?? []) {
              if (e.configMapRef) refs.push(`ConfigMap/${e.configMapRef.name}`);
              if (e.secretRef) refs.push(`Secret/${e.secretRef.name}`);
            }
            for (const e of c.env ?? [])
              if (e.valueFrom?.secretKeyRef) refs.push(`Secret/${e.valueFrom.secretKeyRef.name}`);
          }
          for (const v of spec.volumes ?? [])
            if (v.persistentVolumeClaim) refs.push(`PersistentVolumeClaim/${v.persistentVolumeClaim.claimName}`);
          for (const ref of refs)
            if (!rendered.has(ref) && !external.has(ref)) missing.push(`${w.kind}/${w.metadata.name} -> ${ref}`);
        }
        expect(missing, missing.join('\n')).to.deep.equal([]);
      });

      it('points every gRPC upstream env var at a rendered Service port', () => {
        for (const d of objects.filter((o) => o.kind === 'Deployment') as Workload[]) {
          const key = d.metadata.name.slice(releaseName.length + 1);
          for (const [env, target] of Object.entries(defaults.services[key]?.upstreams ?? {})) {
            const value = envValue(objects, d, env);
            const service = findObject(objects, 'Service', objectName(target));
            if (!service) {
              expect(value, `${key}.${env} while ${target} is not rendered`).to.equal(undefined);
              continue;
            }
            expect(value, `${key}.${env}`).to.equal(`${objectName(target)}:${defaults.services[target]!.ports.grpc}`);
          }
        }
      });
    });
  }

  describe('every deployable (services/* but kit and stack, plus mesh)', () => {
    const all = deployables();
    let byScenario: Record<string, K8sObject[]> = {};
    before(() => {
      byScenario = {
        default: helmTemplate(REQUIRED_ARGS),
        production: helmTemplate(['-f', productionValues]),
        dev: helmTemplate(['-f', devValues]),
      };
    });

    it('finds the deployables in the source tree', () => {
      expect(all.map((d) => d.key)).to.include.members(['identity', 'inbox', 'gateway', 'widget']);
    });

    for (const d of all) {
      describe(`${d.folder} (services.${d.key})`, () => {
        it('is complete: Dockerfile, values block enabled by default, skaffold artifact and image values', () => {
          expect(unfinished(d), `${d.folder} is a deployable but is not finished`).to.deep.equal([]);
        });
        if (!defaults.services[d.key]?.enabled) return; // the test above says what is missing
        for (const scenario of ['default', 'production', 'dev']) {
          it(`renders its Deployment, Service, probes, PDB and NetworkPolicy (${scenario})`, () => {
            assertDeployable(byScenario[scenario]!, d, { readOnlyRoot: true });
          });
        }
      });
    }

    it('docs/deploy.md "What runs" lists exactly the deployables enabled by default', () => {
      const guide = fs.readFileSync(path.join(repoRoot, 'docs', 'deploy.md'), 'utf8');
      const section = guide.slice(
        guide.indexOf('## What runs'),
        guide.indexOf('\n## ', guide.indexOf('## What runs') + 1),
      );
      const listed = [...section.matchAll(/^\| `([a-z-]+)` \|/gm)].map((m) => m[1]).sort();
      const enabled = Object.entries(defaults.services)
        .filter(([, v]) => v.enabled)
        .map(([key]) => key)
        .sort();
      expect(listed).to.deep.equal(enabled);
    });

    it('has no values block enabled by default without a source folder', () => {
      const keys = all.map((d: Deployable) => d.key);
      const phantom = Object.entries(defaults.services)
        .filter(([key, v]) => v.enabled && !keys.includes(key))
        .map(([key]) => key);
      expect(phantom, 'enabled values blocks without code').to.deep.equal([]);
    });
  });

  describe('tracing: global.tracing.otlpEndpoint (docs/deploy.md, "Following a request")', () => {
    it('off by default: no deployable gets an OTLP endpoint, so none starts the SDK', () => {
      const objects = helmTemplate(REQUIRED_ARGS);
      for (const d of deployables()) {
        const deployment = getObject<Workload>(objects, 'Deployment', objectName(d.key));
        expect(envValue(objects, deployment, 'OTEL_EXPORTER_OTLP_ENDPOINT'), d.key).to.equal(undefined);
      }
    });
    it('set: every deployable exports to it under its own service name', () => {
      const endpoint = 'http://otel-collector.observability:4318';
      const objects = helmTemplate([...REQUIRED_ARGS, '--set', `global.tracing.otlpEndpoint=${endpoint}`]);
      for (const d of deployables()) {
        const deployment = getObject<Workload>(objects, 'Deployment', objectName(d.key));
        expect(envValue(objects, deployment, 'OTEL_EXPORTER_OTLP_ENDPOINT'), d.key).to.equal(endpoint);
        expect(envValue(objects, deployment, 'OTEL_SERVICE_NAME'), d.key).to.equal(d.key);
      }
    });
  });

  describe('network policies', () => {
    it('admit gRPC only from the services that name the target in their upstreams', () => {
      const objects = helmTemplate(REQUIRED_ARGS);
      expect(grpcCallers(objects, 'identity')).to.deep.equal(['content', 'flows', 'gateway', 'inbox', 'partner']);
      expect(grpcCallers(objects, 'inbox')).to.deep.equal(['channels', 'contacts', 'flows', 'gateway', 'widget-api']);
      expect(grpcCallers(objects, 'contacts')).to.deep.equal([
        'channels',
        'flows',
        'gateway',
        'inbox',
        'webhook-ingress',
        'widget-api',
      ]);
      expect(grpcCallers(objects, 'flows')).to.deep.equal(['contacts', 'gateway', 'webhook-ingress']);
      expect(grpcCallers(objects, 'channels')).to.deep.equal([
        'contacts',
        'gateway',
        'partner',
        'webhook-ingress',
        'widget-api',
      ]);
      expect(grpcCallers(objects, 'content')).to.deep.equal(['gateway', 'widget-api']);
      expect(grpcCallers(objects, 'partner')).to.deep.equal(['contacts', 'gateway']);
    });
    it('give the gateway the address of every service its subgraphs name (it refuses to start without one)', () => {
      const upstreams = defaults.services.gateway!.upstreams;
      for (const app of appsOfSubgraphs()) {
        expect(upstreams[endpointVariable(app)], `services.gateway.upstreams.${endpointVariable(app)}`).to.equal(app);
      }
    });
    it('derive callers from upstreams when planned services are enabled', () => {
      const objects = helmTemplate([
        ...REQUIRED_ARGS,
        ...Object.keys(defaults.services).flatMap((key) => ['--set', `services.${key}.enabled=true`]),
      ]);
      expect(grpcCallers(objects, 'inbox')).to.deep.equal(['channels', 'contacts', 'flows', 'gateway', 'widget-api']);
      expect(grpcCallers(objects, 'contacts')).to.deep.equal([
        'channels',
        'flows',
        'gateway',
        'inbox',
        'webhook-ingress',
        'widget-api',
      ]);
      expect(grpcCallers(objects, 'channels')).to.deep.equal([
        'contacts',
        'gateway',
        'partner',
        'webhook-ingress',
        'widget-api',
      ]);
    });
    it('restrict egress of partner only (its webhook deliveries); every other policy is ingress-only', () => {
      for (const args of [REQUIRED_ARGS, ['-f', productionValues], ['-f', devValues]]) {
        const objects = helmTemplate(args);
        for (const policy of objects.filter((o) => o.kind === 'NetworkPolicy')) {
          expect(
            egressOf(objects, policy.metadata.name).types,
            `${policy.metadata.name} ${args.join(' ')}`,
          ).to.deep.equal(policy.metadata.name === objectName('partner') ? ['Ingress', 'Egress'] : ['Ingress']);
        }
      }
    });
    it('partner may reach DNS, the gRPC port of its upstreams, MySQL and the brokers anywhere, and the internet on 443 only', () => {
      const prod = parse(fs.readFileSync(productionValues, 'utf8')) as { kafka: { brokers: string } };
      const brokerPorts = prod.kafka.brokers.split(',').map((broker) => Number(broker.split(':').at(-1)));
      const objects = helmTemplate(['-f', productionValues]);
      const rules = egressOf(objects, objectName('partner')).egress;
      const anywhere = rules.filter((r) => !r.to).flatMap((r) => (r.ports ?? []).map((p) => `${p.port}/${p.protocol}`));
      expect(anywhere.sort()).to.deep.equal(
        ['53/UDP', '53/TCP', '3306/TCP', ...new Set(brokerPorts.map((port) => `${port}/TCP`))].sort(),
      );
      const pods = rules.filter((r) => r.to?.some((peer) => peer.podSelector));
      expect(pods.map((r) => r.to![0]!.podSelector!.matchLabels['app.kubernetes.io/component']).sort()).to.deep.equal(
        Object.values(defaults.services.partner!.upstreams).sort(),
      );
      for (const rule of pods) expect(rule.ports).to.deep.equal([{ port: 'grpc', protocol: 'TCP' }]);
      const internet = rules.filter((r) => r.to?.some((peer) => peer.ipBlock));
      expect(internet).to.have.length(1);
      expect(internet[0]!.ports).to.deep.equal([{ port: 443, protocol: 'TCP' }]);
      expect(internet[0]!.to!.map((peer) => peer.ipBlock!.cidr)).to.deep.equal(['0.0.0.0/0', '::/0']);
    });
    it("partner's internet rule leaves out every address its own SSRF guard refuses (private, loopback, link-local, metadata, mapped)", () => {
      const rules = egressOf(helmTemplate(REQUIRED_ARGS), objectName('partner')).egress;
      // one list per family, as the policy's two ipBlocks (a BlockList would also match IPv4 against ::ffff:0:0/96)
      const blocked = { ipv4: new BlockList(), ipv6: new BlockList() };
      const family = (address: string) => (isIPv6(address) ? 'ipv6' : 'ipv4');
      for (const peer of rules.flatMap((r) => r.to ?? []).filter((p) => p.ipBlock)) {
        for (const cidr of peer.ipBlock!.except ?? []) {
          const [network, prefix] = cidr.split('/');
          blocked[family(network!)].addSubnet(network!, Number(prefix), family(network!));
          // the chart never blocks what the service would deliver to
          expect(isPublicAddress(network!), `${cidr} is a range the service refuses too`).to.equal(false);
        }
      }
      const internal = [
        '0.0.0.0',
        '10.0.0.1',
        '10.96.0.10',
        '100.64.0.1',
        '127.0.0.1',
        '169.254.169.254',
        '172.16.0.1',
        '172.31.255.254',
        '192.168.1.1',
        '198.18.0.1',
        '224.0.0.1',
        '255.255.255.255',
        '::1',
        'fe80::1',
        'fd00:ec2::254',
        'ff02::1',
        '::ffff:10.0.0.1',
        '::ffff:169.254.169.254',
        '64:ff9b::a00:1',
        '2002:a00:1::1',
      ];
      for (const address of internal) {
        expect(isPublicAddress(address), `the service refuses ${address}`).to.equal(false);
        expect(blocked[family(address)].check(address, family(address)), `the policy blocks ${address}`).to.equal(true);
      }
      for (const address of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111']) {
        expect(isPublicAddress(address), address).to.equal(true);
        expect(blocked[family(address)].check(address, family(address)), `the policy lets ${address} through`).to.equal(
          false,
        );
      }
    });
    it("partner's egress follows the values: the bundled broker, the OTLP collector, other ports, an egress gateway instead, or none", () => {
      const partner = objectName('partner');
      const ports = (rules: EgressRule[]) =>
        rules.filter((r) => !r.to).flatMap((r) => (r.ports ?? []).map((p) => p.port));
      expect(ports(egressOf(helmTemplate(['-f', devValues]), partner).egress)).to.include.members([3306, 9092]);
      const traced = helmTemplate([
        ...REQUIRED_ARGS,
        '--set',
        'global.tracing.otlpEndpoint=http://otel-collector.observability:4318',
      ]);
      expect(ports(egressOf(traced, partner).egress)).to.include(4318);
      const https8443 = helmTemplate([
        ...REQUIRED_ARGS,
        '--set',
        'services.partner.networkPolicy.egress.internet.ports={443,8443}',
      ]);
      const internet = egressOf(https8443, partner).egress.find((r) => r.to?.some((peer) => peer.ipBlock));
      expect(internet?.ports?.map((p) => p.port)).to.deep.equal([443, 8443]);
      const proxied = helmTemplate([
        ...REQUIRED_ARGS,
        '--set',
        'services.partner.networkPolicy.egress.internet.ports=null',
        '--set',
        'services.partner.networkPolicy.egress.extraEgress[0].to[0].namespaceSelector.matchLabels.kubernetes\\.io/metadata\\.name=egress',
      ]);
      const viaGateway = egressOf(proxied, partner).egress;
      expect(
        viaGateway.filter((r) => r.to?.some((peer) => peer.ipBlock)),
        'no direct internet',
      ).to.deep.equal([]);
      expect(viaGateway.at(-1)).to.deep.equal({
        to: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'egress' } } }],
      });
      expect(validateObjects(proxied)).to.deep.equal([]);
      const open = helmTemplate([...REQUIRED_ARGS, '--set', 'services.partner.networkPolicy.egress.enabled=false']);
      expect(egressOf(open, partner).types).to.deep.equal(['Ingress']);
    });
    it('admit the ingress controller to public services only, and Prometheus to every pod', () => {
      const objects = helmTemplate(REQUIRED_ARGS);
      for (const policy of objects.filter((o) => o.kind === 'NetworkPolicy')) {
        const rules = (policy.spec as { ingress: { from: Record<string, unknown>[]; ports: { port: string }[] }[] })
          .ingress;
        const fromIngress = rules.some((r) => JSON.stringify(r.from).includes('ingress-nginx'));
        const fromPrometheus = rules.some(
          (r) => JSON.stringify(r.from).includes('prometheus') && r.ports.some((p) => p.port === 'http'),
        );
        expect(fromIngress, `${policy.metadata.name} admits the ingress controller`).to.equal(
          PUBLIC_SERVICES.map(objectName).includes(policy.metadata.name),
        );
        expect(fromPrometheus, `${policy.metadata.name} admits Prometheus`).to.equal(true);
      }
    });
  });

  describe('values', () => {
    it('production: autoscaled Deployments without fixed replicas, Kafka over TLS + SASL, migration Job hooks', () => {
      const objects = helmTemplate(['-f', productionValues]);
      for (const key of ['identity', 'inbox', 'gateway']) {
        const deployment = getObject<Workload>(objects, 'Deployment', objectName(key));
        expect(deployment.spec.replicas, `${key} replicas`).to.equal(undefined);
        getObject(objects, 'HorizontalPodAutoscaler', objectName(key));
        expect(envValue(objects, deployment, 'KAFKA_SSL')).to.equal('true');
        expect(envValue(objects, deployment, 'KAFKA_SASL_MECHANISM')).to.equal('scram-sha-512');
        expect(envValue(objects, deployment, 'KAFKA_SASL_PASSWORD')).to.equal('<from secret>');
        expect(envValue(objects, deployment, 'NODE_EXTRA_CA_CERTS')).to.equal('/etc/svc/ca/ca.crt');
        expect(container(deployment).image.startsWith(`registry.example.com/svc-inbox/${key}:0.1.0`)).to.equal(true);
      }
      for (const key of ['identity', 'inbox']) {
        const job = getObject<Workload>(objects, 'Job', `${objectName(key)}-migrate`);
        expect(job.metadata.annotations?.['helm.sh/hook']).to.equal('pre-install,pre-upgrade');
        expect(container(job).args).to.deep.equal(['migrate']);
        expect(envValue(objects, getObject<Workload>(objects, 'Deployment', objectName(key)), 'DB_MIGRATE')).to.equal(
          'skip',
        );
      }
      expect(findObject(objects, 'Job', `${objectName('gateway')}-migrate`), 'the gateway has no database').to.equal(
        undefined,
      );
    });

    it('production: an Ingress routes /graphql to the gateway over TLS', () => {
      const objects = helmTemplate(['-f', productionValues]);
      const ingresses = objects.filter((o) => o.kind === 'Ingress');
      expect(ingresses.map((o) => o.metadata.name)).to.deep.equal(PUBLIC_SERVICES.map(objectName));
      const spec = getObject(objects, 'Ingress', objectName('gateway')).spec as {
        tls: unknown[];
        rules: {
          host: string;
          http: { paths: { path: string; backend: { service: { name: string; port: { name: string } } } }[] };
        }[];
      };
      expect(spec.tls).to.have.length(1);
      expect(spec.rules[0]!.host).to.equal('inbox.example.com');
      expect(spec.rules[0]!.http.paths).to.deep.equal([
        {
          path: '/graphql',
          pathType: 'Prefix',
          backend: { service: { name: objectName('gateway'), port: { name: 'http' } } },
        },
      ]);
    });

    it("production: /channels (Prefix) goes to channels' http port (the platforms' webhooks); channels signs its calls", () => {
      const objects = helmTemplate(['-f', productionValues]);
      const spec = getObject(objects, 'Ingress', objectName('channels')).spec as {
        rules: { http: { paths: unknown[] } }[];
      };
      expect(spec.rules[0]!.http.paths).to.deep.equal([
        {
          path: '/channels',
          pathType: 'Prefix',
          backend: { service: { name: objectName('channels'), port: { name: 'http' } } },
        },
      ]);
      const channels = getObject<Workload>(objects, 'Deployment', objectName('channels'));
      expect(envValue(objects, channels, 'CONTACTS_GRPC_URL')).to.match(/contacts/);
      expect(envValue(objects, channels, 'INBOX_GRPC_URL')).to.match(/inbox/);
    });

    it('production: contacts and webhook-ingress find channels (CHANNELS_GRPC_URL)', () => {
      const objects = helmTemplate(['-f', productionValues]);
      for (const name of ['contacts', 'webhook-ingress']) {
        const workload = getObject<Workload>(objects, 'Deployment', objectName(name));
        expect(envValue(objects, workload, 'CHANNELS_GRPC_URL'), name).to.match(/channels/);
      }
    });

    it("production: /widget (Prefix) goes to the widget's http port on the host of /api/web; WIDGET_ORIGIN stays unset", () => {
      const objects = helmTemplate(['-f', productionValues]);
      type Rules = { rules: { host: string; http: { paths: unknown[] } }[] };
      const widget = getObject(objects, 'Ingress', objectName('widget')).spec as Rules;
      expect(widget.rules[0]!.http.paths).to.deep.equal([
        {
          path: '/widget',
          pathType: 'Prefix',
          backend: { service: { name: objectName('widget'), port: { name: 'http' } } },
        },
      ]);
      const api = getObject(objects, 'Ingress', objectName('widget-api')).spec as Rules;
      expect(widget.rules.map((r) => r.host)).to.deep.equal(api.rules.map((r) => r.host));
      // the frame document (widget-api) loads /widget/widget.js from its own origin: this host
      const widgetApi = getObject<Workload>(objects, 'Deployment', objectName('widget-api'));
      expect(envValue(objects, widgetApi, 'WIDGET_ORIGIN')).to.equal(undefined);
      const policy = getObject(objects, 'NetworkPolicy', objectName('widget')).spec as {
        ingress: { from: Record<string, unknown>[]; ports: { port: string }[] }[];
      };
      expect(policy.ingress.flatMap((r) => r.ports.map((p) => p.port))).to.not.include('grpc');
      const controllerRule = policy.ingress.find((r) => JSON.stringify(r.from).includes('ingress-nginx'));
      expect(controllerRule?.ports, 'ingress controller -> widget').to.deep.equal([{ port: 'http', protocol: 'TCP' }]);

      const routed = helmTemplate(['-f', productionValues, '--set', 'ingress.enabled=false', ...GATEWAY_API]);
      const route = getObject(routed, 'HTTPRoute', objectName('widget')).spec as {
        rules: { matches: unknown[]; backendRefs: unknown[] }[];
      };
      expect(route.rules[0]!.matches).to.deep.equal([{ path: { type: 'PathPrefix', value: '/widget' } }]);
      expect(route.rules[0]!.backendRefs).to.deep.equal([{ name: objectName('widget'), port: 8080 }]);

      const off = helmTemplate(['-f', productionValues, '--set', 'services.widget.enabled=false']);
      expect(findObject(off, 'Ingress', objectName('widget'))).to.equal(undefined);
      expect(JSON.stringify(off.filter((o) => o.kind === 'Ingress').map((o) => o.spec))).not.to.include('/widget');
    });

    it('production: content serves /help (Prefix) on its http port, migrates in a Job, is called by the gateway and widget-api and calls identity', () => {
      const objects = helmTemplate(['-f', productionValues]);
      const name = objectName('content');
      const spec = getObject(objects, 'Ingress', name).spec as {
        rules: { host: string; http: { paths: unknown[] } }[];
      };
      expect(spec.rules.map((r) => r.host)).to.deep.equal(['inbox.example.com']);
      expect(spec.rules[0]!.http.paths).to.deep.equal([
        { path: '/help', pathType: 'Prefix', backend: { service: { name, port: { name: 'http' } } } },
      ]);
      const policy = getObject(objects, 'NetworkPolicy', name).spec as {
        ingress: { from: Record<string, unknown>[]; ports: { port: string }[] }[];
      };
      const controllerRule = policy.ingress.find((r) => JSON.stringify(r.from).includes('ingress-nginx'));
      expect(controllerRule?.ports, 'ingress controller -> content').to.deep.equal([{ port: 'http', protocol: 'TCP' }]);
      expectCalledBy(objects, 'content', 'CONTENT_GRPC_URL', ['gateway', 'widget-api']);
      expect(grpcCallers(objects, 'identity')).to.include('content');
      const content = getObject<Workload>(objects, 'Deployment', name);
      expect(envValue(objects, content, 'IDENTITY_GRPC_URL')).to.equal(
        `${objectName('identity')}:${defaults.services.identity!.ports.grpc}`,
      );
      expect(envValue(objects, content, 'DB_MIGRATE')).to.equal('skip');
      expect(envValue(objects, content, 'HTTP_PORT')).to.equal(String(defaults.services.content!.ports.http));
      // the help pages' absolute links (sitemap, hreflang): the public URL, like the inbox's media links
      expect(envValue(objects, content, 'CONTENT_PUBLIC_URL')).to.equal('https://inbox.example.com');
      const job = getObject<Workload>(objects, 'Job', `${name}-migrate`);
      expect(job.metadata.annotations?.['helm.sh/hook']).to.equal('pre-install,pre-upgrade');
      expect(container(job).args).to.deep.equal(['migrate']);

      const routed = helmTemplate(['-f', productionValues, '--set', 'ingress.enabled=false', ...GATEWAY_API]);
      const route = getObject(routed, 'HTTPRoute', name).spec as {
        rules: { matches: unknown[]; backendRefs: unknown[] }[];
      };
      expect(route.rules[0]!.matches).to.deep.equal([{ path: { type: 'PathPrefix', value: '/help' } }]);
      expect(route.rules[0]!.backendRefs).to.deep.equal([{ name, port: defaults.services.content!.ports.http }]);
    });

    it('content disabled: no /help route, no CONTENT_GRPC_URL, identity no longer admits it', () => {
      const off = helmTemplate(['-f', productionValues, '--set', 'services.content.enabled=false']);
      expect(findObject(off, 'Deployment', objectName('content'))).to.equal(undefined);
      expect(JSON.stringify(off.filter((o) => o.kind === 'Ingress').map((o) => o.spec))).not.to.include('/help');
      for (const caller of ['gateway', 'widget-api']) {
        const workload = getObject<Workload>(off, 'Deployment', objectName(caller));
        expect(envValue(off, workload, 'CONTENT_GRPC_URL'), caller).to.equal(undefined);
      }
      expect(grpcCallers(off, 'identity')).not.to.include('content');
      expect(workloadsReadingSecret(off, 'svc-content-signing-key')).to.deep.equal([]);
    });

    it('production: partner migrates in a Job, is called by the gateway and contacts and calls identity and channels; no public route', () => {
      const objects = helmTemplate(['-f', productionValues]);
      const name = objectName('partner');
      expect(findObject(objects, 'Ingress', name), 'partner serves nothing public').to.equal(undefined);
      expectCalledBy(objects, 'partner', 'PARTNER_GRPC_URL', ['contacts', 'gateway']);
      expect(grpcCallers(objects, 'identity')).to.include('partner');
      expect(grpcCallers(objects, 'channels')).to.include('partner');
      const partner = getObject<Workload>(objects, 'Deployment', name);
      for (const [env, target] of [
        ['IDENTITY_GRPC_URL', 'identity'],
        ['CHANNELS_GRPC_URL', 'channels'],
      ] as const) {
        expect(envValue(objects, partner, env), env).to.equal(
          `${objectName(target)}:${defaults.services[target]!.ports.grpc}`,
        );
      }
      expect(envValue(objects, partner, 'DB_URL')).to.equal('<from secret>');
      expect(envValue(objects, partner, 'DB_MIGRATE')).to.equal('skip');
      expect(envValue(objects, partner, 'PARTNER_WEBHOOK_INSECURE_URLS'), 'never in production').to.equal(undefined);
      const job = getObject<Workload>(objects, 'Job', `${name}-migrate`);
      expect(job.metadata.annotations?.['helm.sh/hook']).to.equal('pre-install,pre-upgrade');
      expect(container(job).args).to.deep.equal(['migrate']);
    });

    it('partner disabled: no PARTNER_GRPC_URL, no keys needed, identity and channels no longer admit it', () => {
      const off = helmTemplate([
        '-f',
        productionValues,
        '--set',
        'services.partner.enabled=false',
        '--set',
        'partnerSecretsKeys.existingSecret=',
      ]);
      expect(findObject(off, 'Deployment', objectName('partner'))).to.equal(undefined);
      for (const caller of ['gateway', 'contacts']) {
        const workload = getObject<Workload>(off, 'Deployment', objectName(caller));
        expect(envValue(off, workload, 'PARTNER_GRPC_URL'), caller).to.equal(undefined);
      }
      expect(grpcCallers(off, 'identity')).not.to.include('partner');
      expect(grpcCallers(off, 'channels')).not.to.include('partner');
      expect(workloadsWithEnv(off, 'PARTNER_SECRETS_KEYS')).to.deep.equal([]);
    });

    it('dev: bundled MariaDB and Kafka, services migrate at start-up, one replica each', () => {
      const objects = helmTemplate(['-f', devValues]);
      getObject(objects, 'StatefulSet', `${releaseName}-mariadb`);
      getObject(objects, 'StatefulSet', `${releaseName}-kafka`);
      expect(objects.filter((o) => o.kind === 'Job')).to.deep.equal([]);
      for (const key of ['identity', 'inbox', 'gateway']) {
        const deployment = getObject<Workload>(objects, 'Deployment', objectName(key));
        expect(deployment.spec.replicas).to.equal(1);
        expect(envValue(objects, deployment, 'KAFKA_BROKERS')).to.equal(`${releaseName}-kafka:9092`);
        expect(envValue(objects, deployment, 'DB_MIGRATE')).to.equal(undefined);
      }
      const dsn = getObject<K8sObject & { data: Record<string, string> }>(
        objects,
        'Secret',
        `${objectName('inbox')}-db`,
      );
      expect(Buffer.from(dsn.data.DB_URL!, 'base64').toString()).to.equal(
        `mariadb://root:svc-dev-root@${releaseName}-mariadb:3306/svc_inbox`,
      );
    });

    it('rolls the pods when their configuration changes (checksum/config)', () => {
      const checksum = (objects: K8sObject[]) =>
        getObject<Workload>(objects, 'Deployment', objectName('inbox')).spec.template.metadata.annotations?.[
          'checksum/config'
        ];
      expect(checksum(helmTemplate([...REQUIRED_ARGS, '--set', 'global.logLevel=debug']))).not.to.equal(
        checksum(helmTemplate(REQUIRED_ARGS)),
      );
    });
  });

  describe('media library: inbox volume, /media route, gateway uploads', () => {
    type IngressSpec = {
      rules: {
        host?: string;
        http: {
          paths: { path: string; pathType: string; backend: { service: { name: string; port: { name: string } } } }[];
        };
      }[];
    };
    type RouteSpec = {
      rules: {
        matches: { path: { type: string; value: string } }[];
        backendRefs: { name: string; port: number }[];
        timeouts?: Record<string, string>;
      }[];
    };
    const gatewayApi = GATEWAY_API;
    const claim = (objects: K8sObject[], name = `${objectName('inbox')}-data`) =>
      getObject<PersistentVolumeClaimObject>(objects, 'PersistentVolumeClaim', name);
    const inbox = (objects: K8sObject[]) => getObject<Workload>(objects, 'Deployment', objectName('inbox'));

    /** The inbox mounts claim `claimName` read-write at MEDIA_DIR, writable by its non-root user (fsGroup). */
    function assertMediaVolume(objects: K8sObject[], claimName: string): void {
      const deployment = inbox(objects);
      const pod = deployment.spec.template.spec;
      const volume = pod.volumes?.find((v) => v.persistentVolumeClaim);
      expect(volume?.persistentVolumeClaim?.claimName, 'inbox volume claim').to.equal(claimName);
      const mount = container(deployment).volumeMounts?.find((m) => m.name === volume!.name);
      expect(mount?.mountPath, 'inbox media mount').to.equal(MEDIA_MOUNT);
      expect(mount?.readOnly ?? false, 'the media volume is writable').to.equal(false);
      expect(envValue(objects, deployment, 'MEDIA_DIR')).to.equal(MEDIA_MOUNT);
      expect(pod.securityContext?.runAsNonRoot).to.equal(true);
      expect(pod.securityContext?.fsGroup, 'fsGroup makes the volume writable for uid 1000').to.equal(1000);
      expect(pod.securityContext?.fsGroupChangePolicy).to.equal('OnRootMismatch');
      expect(container(deployment).securityContext?.readOnlyRootFilesystem).to.equal(true);
    }

    it('default: the inbox mounts a ReadWriteMany claim at MEDIA_DIR, kept on helm uninstall, and rolls without downtime', () => {
      const objects = helmTemplate(REQUIRED_ARGS);
      assertMediaVolume(objects, `${objectName('inbox')}-data`);
      const pvc = claim(objects);
      expect(pvc.metadata.annotations?.['helm.sh/resource-policy']).to.equal('keep');
      expect(pvc.spec.accessModes).to.deep.equal(['ReadWriteMany']);
      expect(pvc.spec.resources.requests.storage).to.equal('10Gi');
      expect(pvc.spec.storageClassName, 'empty = the cluster default class').to.equal(undefined);
      expect(pvc.metadata.labels?.['app.kubernetes.io/component']).to.equal('inbox');
      expect(inbox(objects).spec.replicas).to.equal(2);
      expect(inbox(objects).spec.strategy).to.deep.equal({
        type: 'RollingUpdate',
        rollingUpdate: { maxSurge: '25%', maxUnavailable: 0 },
      });
      // opt-in: no other service gets a volume or a claim
      expect(objects.filter((o) => o.kind === 'PersistentVolumeClaim').map((o) => o.metadata.name)).to.deep.equal([
        `${objectName('inbox')}-data`,
      ]);
      for (const d of objects.filter((o) => o.kind === 'Deployment' && o.metadata.name !== objectName('inbox'))) {
        const volumes = (d as Workload).spec.template.spec.volumes ?? [];
        expect(
          volumes.filter((v) => v.persistentVolumeClaim),
          `${d.metadata.name} volumes`,
        ).to.deep.equal([]);
      }
    });

    it('production: the claim uses the configured ReadWriteMany class, size and annotations, still kept', () => {
      const objects = helmTemplate(['-f', productionValues]);
      assertMediaVolume(objects, `${objectName('inbox')}-data`);
      const pvc = claim(objects);
      expect(pvc.spec).to.deep.include({ accessModes: ['ReadWriteMany'], storageClassName: 'nfs-rwx' });
      expect(pvc.spec.resources.requests.storage).to.equal('200Gi');
      expect(pvc.metadata.annotations).to.deep.equal({ 'helm.sh/resource-policy': 'keep', 'k8up.io/backup': 'true' });
      expect(getObject(objects, 'HorizontalPodAutoscaler', objectName('inbox'))).to.be.an('object');
    });

    it('dev: one replica on a ReadWriteOnce claim, rolled with Recreate (a surge pod could not attach it)', () => {
      const objects = helmTemplate(['-f', devValues]);
      assertMediaVolume(objects, `${objectName('inbox')}-data`);
      expect(claim(objects).spec.accessModes).to.deep.equal(['ReadWriteOnce']);
      expect(claim(objects).metadata.annotations?.['helm.sh/resource-policy']).to.equal('keep');
      expect(inbox(objects).spec.replicas).to.equal(1);
      expect(inbox(objects).spec.strategy).to.deep.equal({ type: 'Recreate' });
    });

    it('existingClaim: mounts the named claim and renders none; storageClassName "-" renders an empty class', () => {
      const existing = helmTemplate([
        ...REQUIRED_ARGS,
        '--set',
        'services.inbox.persistence.existingClaim=inbox-media',
      ]);
      assertMediaVolume(existing, 'inbox-media');
      expect(existing.filter((o) => o.kind === 'PersistentVolumeClaim')).to.deep.equal([]);
      const classless = helmTemplate([...REQUIRED_ARGS, '--set', 'services.inbox.persistence.storageClassName=-']);
      expect(claim(classless).spec.storageClassName).to.equal('');
    });

    it('a generic block: any service can mount a volume and get its path in an env var of its choice', () => {
      const objects = helmTemplate([
        ...REQUIRED_ARGS,
        '--set',
        'services.identity.persistence.enabled=true',
        '--set',
        'services.identity.persistence.size=1Gi',
        '--set',
        'services.identity.persistence.mountPath=/var/lib/svc/keys',
        '--set',
        'services.identity.persistence.mountPathEnv=KEYS_DIR',
      ]);
      const identity = getObject<Workload>(objects, 'Deployment', objectName('identity'));
      expect(envValue(objects, identity, 'KEYS_DIR')).to.equal('/var/lib/svc/keys');
      expect(container(identity).volumeMounts?.map((m) => m.mountPath)).to.include('/var/lib/svc/keys');
      expect(
        claim(objects, `${objectName('identity')}-data`).metadata.annotations?.['helm.sh/resource-policy'],
      ).to.equal('keep');
    });

    it('routes /media to the inbox http port (Ingress and HTTPRoute) and admits the ingress controller there', () => {
      const objects = helmTemplate(['-f', productionValues]);
      const spec = getObject(objects, 'Ingress', objectName('inbox')).spec as IngressSpec;
      expect(spec.rules.map((r) => r.host)).to.deep.equal(['inbox.example.com']);
      expect(spec.rules[0]!.http.paths).to.deep.equal([
        {
          path: '/media',
          pathType: 'Prefix',
          backend: { service: { name: objectName('inbox'), port: { name: 'http' } } },
        },
      ]);
      const service = getObject<K8sObject & { spec: { ports: { name: string; port: number }[] } }>(
        objects,
        'Service',
        objectName('inbox'),
      );
      expect(service.spec.ports.find((p) => p.name === 'http')?.port).to.equal(8080);
      const policy = getObject(objects, 'NetworkPolicy', objectName('inbox')).spec as {
        ingress: { from: Record<string, unknown>[]; ports: { port: string }[] }[];
      };
      const controllerRule = policy.ingress.find((r) => JSON.stringify(r.from).includes('ingress-nginx'));
      expect(controllerRule?.ports, 'ingress controller -> inbox').to.deep.equal([{ port: 'http', protocol: 'TCP' }]);

      const routed = helmTemplate(['-f', productionValues, '--set', 'ingress.enabled=false', ...gatewayApi]);
      const rule = (getObject(routed, 'HTTPRoute', objectName('inbox')).spec as RouteSpec).rules[0]!;
      expect(rule.matches).to.deep.equal([{ path: { type: 'PathPrefix', value: '/media' } }]);
      expect(rule.backendRefs).to.deep.equal([{ name: objectName('inbox'), port: 8080 }]);
      expect(rule.timeouts).to.deep.equal({ request: '300s' });
    });

    it('MEDIA_PUBLIC_URL: global.publicUrl, else the TLS host of the Ingress, else unset (relative links)', () => {
      const url = (args: string[]) => {
        const objects = helmTemplate([...REQUIRED_ARGS, ...args]);
        return envValue(objects, inbox(objects), 'MEDIA_PUBLIC_URL');
      };
      expect(url(['-f', productionValues])).to.equal('https://inbox.example.com');
      expect(url(['-f', productionValues, '--set', 'global.publicUrl=https://chat.example.org'])).to.equal(
        'https://chat.example.org',
      );
      expect(url([])).to.equal(undefined);
      expect(url(['--set', 'ingress.enabled=true', '--set', 'ingress.hosts[0]=inbox.example.com'])).to.equal(undefined);
      expect(url([...gatewayApi, '--set', 'httpRoute.hostnames[0]=inbox.example.com'])).to.equal(undefined);
      expect(url([...gatewayApi, '--set', 'global.publicUrl=https://inbox.example.com'])).to.equal(
        'https://inbox.example.com',
      );
      // only the inbox asks for it
      const objects = helmTemplate(['-f', productionValues]);
      expect(
        envValue(objects, getObject<Workload>(objects, 'Deployment', objectName('gateway')), 'MEDIA_PUBLIC_URL'),
      ).to.equal(undefined);
    });

    it('inbox and gateway upload limits are values (env), equal by default', () => {
      const objects = helmTemplate(REQUIRED_ARGS);
      const gateway = getObject<Workload>(objects, 'Deployment', objectName('gateway'));
      expect(envValue(objects, gateway, 'UPLOAD_MAX_BYTES')).to.equal(String(16 * 1024 * 1024));
      expect(envValue(objects, gateway, 'UPLOAD_MAX_FILES')).to.equal('10');
      expect(envValue(objects, inbox(objects), 'MEDIA_MAX_BYTES')).to.equal(String(16 * 1024 * 1024));
      expect(envValue(objects, inbox(objects), 'MEDIA_MAX_FILES')).to.equal('10');
      expect(envValue(objects, inbox(objects), 'MEDIA_URL_TTL_SECONDS')).to.equal('900');
      const smaller = helmTemplate([
        ...REQUIRED_ARGS,
        '--set-string',
        'services.gateway.env.UPLOAD_MAX_BYTES=1048576',
        '--set-string',
        'services.gateway.env.UPLOAD_MAX_FILES=3',
      ]);
      const g = getObject<Workload>(smaller, 'Deployment', objectName('gateway'));
      expect(envValue(smaller, g, 'UPLOAD_MAX_BYTES')).to.equal('1048576');
      expect(envValue(smaller, g, 'UPLOAD_MAX_FILES')).to.equal('3');
    });

    it('gateway: the GraphQL explorer is a value, off by default; X-Forwarded-For trusted one hop (the ingress)', () => {
      const objects = helmTemplate(REQUIRED_ARGS);
      const gateway = getObject<Workload>(objects, 'Deployment', objectName('gateway'));
      expect(envValue(objects, gateway, 'GATEWAY_EXPLORER')).to.equal('false');
      expect(envValue(objects, gateway, 'GATEWAY_TRUSTED_PROXY_HOPS')).to.equal('1');
      const on = helmTemplate([...REQUIRED_ARGS, '--set-string', 'services.gateway.env.GATEWAY_EXPLORER=true']);
      expect(envValue(on, getObject<Workload>(on, 'Deployment', objectName('gateway')), 'GATEWAY_EXPLORER')).to.equal(
        'true',
      );
    });

    it('gateway: the Ingress lets UPLOAD_MAX_FILES x UPLOAD_MAX_BYTES through, with long timeouts; so does the HTTPRoute', () => {
      const objects = helmTemplate(['-f', productionValues]);
      const annotations = getObject(objects, 'Ingress', objectName('gateway')).metadata.annotations ?? {};
      expect(annotations).to.deep.include({
        [BODY_SIZE]: '200m',
        'nginx.ingress.kubernetes.io/proxy-read-timeout': '300',
        'nginx.ingress.kubernetes.io/proxy-send-timeout': '300',
        'cert-manager.io/cluster-issuer': 'letsencrypt',
      });
      expect(200 * 1024 * 1024).to.be.greaterThan(10 * 16 * 1024 * 1024);
      // the body size is the gateway's, not every public service's
      expect(getObject(objects, 'Ingress', objectName('inbox')).metadata.annotations?.[BODY_SIZE]).to.equal(undefined);
      expect(getObject(objects, 'Ingress', objectName('webhook-ingress')).metadata.annotations?.[BODY_SIZE]).to.equal(
        '256k',
      );
      const routed = helmTemplate(['-f', productionValues, '--set', 'ingress.enabled=false', ...gatewayApi]);
      const rule = (getObject(routed, 'HTTPRoute', objectName('gateway')).spec as RouteSpec).rules[0]!;
      expect(rule.timeouts).to.deep.equal({ request: '300s' });
    });
  });

  describe('memory of gateway and inbox: one maximal upload per pod (charts/svc/README.md "Resources")', () => {
    /**
     * Peak RSS growth per byte of one maximal uploadMultipleMedia, measured with tests/bench/upload-memory.ts, and the
     * idle RSS of each image; `held`: the share that stays resident for the whole call (what the request covers).
     */
    const SIZING = {
      gateway: { idle: 170 * 1e6, peak: 3.5, held: 2, uploadEnv: ['UPLOAD_MAX_FILES', 'UPLOAD_MAX_BYTES'] },
      inbox: { idle: 105 * 1e6, peak: 3, held: 1.5, uploadEnv: ['MEDIA_MAX_FILES', 'MEDIA_MAX_BYTES'] },
    } as const;
    /** A Kubernetes memory quantity in bytes (the forms the chart uses: 512Mi, 1Gi, 800M, 1e9). */
    function bytes(quantity: string | undefined): number {
      const match = /^(\d+(?:\.\d+)?(?:e\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)?$/.exec(quantity ?? '');
      if (!match) throw new Error(`not a memory quantity: ${quantity}`);
      const unit = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, k: 1e3, M: 1e6, G: 1e9, T: 1e12 };
      return Number(match[1]) * (match[2] ? unit[match[2] as keyof typeof unit] : 1);
    }

    for (const [label, args] of [
      ['default values', REQUIRED_ARGS],
      ['production values', ['-f', productionValues]],
    ] as const) {
      it(`${label}: each limit fits idle + one maximal upload + 25%, each request idle + what the call holds`, () => {
        const objects = helmTemplate([...args]);
        for (const [key, sizing] of Object.entries(SIZING)) {
          const deployment = getObject<Workload>(objects, 'Deployment', objectName(key));
          const [filesEnv, bytesEnv] = sizing.uploadEnv;
          const upload =
            Number(envValue(objects, deployment, filesEnv)) * Number(envValue(objects, deployment, bytesEnv));
          expect(upload, `${key} ${filesEnv} x ${bytesEnv}`).to.equal(10 * 16 * 2 ** 20);
          const { requests, limits } = container(deployment).resources ?? {};
          expect(bytes(limits?.memory), `${key} memory limit ${limits?.memory}`).to.be.at.least(
            1.25 * (sizing.idle + sizing.peak * upload),
          );
          expect(bytes(requests?.memory), `${key} memory request ${requests?.memory}`).to.be.at.least(
            sizing.idle + sizing.held * upload,
          );
        }
      });
    }
  });

  describe('ingress TLS: one cert-manager Certificate for the shared secret, HTTPS on every Ingress', () => {
    const ISSUER = 'cert-manager.io/cluster-issuer';
    const TLS = [{ secretName: 'inbox-example-com-tls', hosts: ['inbox.example.com'] }];
    const isCertManager = (key: string) =>
      key.startsWith('cert-manager.io/') || key.startsWith('acme.cert-manager.io/') || key === 'kubernetes.io/tls-acme';
    const ingresses = (objects: K8sObject[]) => objects.filter((o) => o.kind === 'Ingress');
    /** Name of each Ingress -> its cert-manager annotations (empty object: none). */
    const certManagerAnnotations = (objects: K8sObject[]) =>
      Object.fromEntries(
        ingresses(objects).map((o) => [
          o.metadata.name,
          Object.fromEntries(Object.entries(o.metadata.annotations ?? {}).filter(([key]) => isCertManager(key))),
        ]),
      );
    /** The Ingresses carrying `annotation`, by name. */
    const carrying = (objects: K8sObject[], annotation: string) =>
      ingresses(objects)
        .filter((o) => o.metadata.annotations?.[annotation] !== undefined)
        .map((o) => o.metadata.name);

    it('production: exactly one Ingress, the gateway Ingress, carries the issuer annotation; every Ingress lists the tls', () => {
      const objects = helmTemplate(['-f', productionValues]);
      expect(ingresses(objects).map((o) => o.metadata.name)).to.deep.equal(PUBLIC_SERVICES.map(objectName));
      expect(carrying(objects, ISSUER)).to.deep.equal([objectName('gateway')]);
      expect(getObject(objects, 'Ingress', objectName('gateway')).metadata.annotations?.[ISSUER]).to.equal(
        'letsencrypt',
      );
      for (const ingress of ingresses(objects)) {
        expect((ingress.spec as { tls?: unknown }).tls, `${ingress.metadata.name} tls`).to.deep.equal(TLS);
      }
    });

    it('keeps every other ingress.annotations entry on every Ingress, and the per-service ones where they belong', () => {
      const objects = helmTemplate([
        '-f',
        productionValues,
        '--set-string',
        'ingress.annotations.nginx\\.ingress\\.kubernetes\\.io/ssl-redirect=true',
      ]);
      expect(carrying(objects, 'nginx.ingress.kubernetes.io/ssl-redirect')).to.deep.equal(
        PUBLIC_SERVICES.map(objectName),
      );
      expect(carrying(objects, BODY_SIZE)).to.deep.equal([objectName('gateway'), objectName('webhook-ingress')]);
    });

    it('moves every cert-manager annotation (cert-manager.io/*, acme.cert-manager.io/*, kubernetes.io/tls-acme), with every public service enabled', () => {
      const objects = helmTemplate([
        ...REQUIRED_ARGS,
        '--set',
        'ingress.enabled=true',
        '--set',
        'ingress.hosts[0]=inbox.example.com',
        '--set',
        'ingress.tls[0].secretName=inbox-example-com-tls',
        '--set',
        'ingress.tls[0].hosts[0]=inbox.example.com',
        '--set-string',
        'ingress.annotations.cert-manager\\.io/issuer=acme',
        '--set-string',
        'ingress.annotations.cert-manager\\.io/common-name=inbox.example.com',
        '--set-string',
        'ingress.annotations.acme\\.cert-manager\\.io/http01-edit-in-place=true',
        '--set-string',
        'ingress.annotations.kubernetes\\.io/tls-acme=true',
      ]);
      const all = [...PUBLIC_SERVICES].map(objectName).sort();
      const expected = Object.fromEntries(all.map((name) => [name, {}]));
      expected[objectName('gateway')] = {
        'cert-manager.io/issuer': 'acme',
        'cert-manager.io/common-name': 'inbox.example.com',
        'acme.cert-manager.io/http01-edit-in-place': 'true',
        'kubernetes.io/tls-acme': 'true',
      };
      expect(certManagerAnnotations(objects)).to.deep.equal(expected);
      for (const ingress of ingresses(objects)) {
        expect((ingress.spec as { tls?: unknown }).tls, `${ingress.metadata.name} tls`).to.deep.equal(TLS);
      }
    });

    it('ingress.primaryService picks the Ingress; without the gateway, the first public service in key order', () => {
      const webhooks = helmTemplate(['-f', productionValues, '--set', 'ingress.primaryService=webhook-ingress']);
      expect(carrying(webhooks, ISSUER)).to.deep.equal([objectName('webhook-ingress')]);
      const noGateway = helmTemplate(['-f', productionValues, '--set', 'services.gateway.enabled=false']);
      expect(carrying(noGateway, ISSUER)).to.deep.equal([objectName('channels')]);
      // a primaryService that renders no Ingress (no public paths) falls back the same way
      const identity = helmTemplate(['-f', productionValues, '--set', 'ingress.primaryService=identity']);
      expect(carrying(identity, ISSUER)).to.deep.equal([objectName('channels')]);
    });

    it('renders a cert-manager annotation set on the primary service itself', () => {
      const objects = helmTemplate([
        ...REQUIRED_ARGS,
        '--set',
        'ingress.enabled=true',
        '--set-string',
        'services.gateway.public.ingressAnnotations.cert-manager\\.io/issuer=internal-ca',
      ]);
      expect(carrying(objects, 'cert-manager.io/issuer')).to.deep.equal([objectName('gateway')]);
      expect(carrying(objects, ISSUER)).to.deep.equal([]);
    });
  });

  describe('service keys: the JWKS everywhere, each private signing key only in its deployable (docs/decisions/0065)', () => {
    type SecretObject = K8sObject & { data?: Record<string, string> };
    /** Deployments (and migration Jobs) of `services`, as workloadsReadingSecret lists them. */
    const workloadsOf = (objects: K8sObject[], services: string[]) =>
      services
        .flatMap((key) => [`Deployment/${objectName(key)}`, `Job/${objectName(key)}-migrate`])
        .filter((ref) => objects.some((o) => `${o.kind}/${o.metadata.name}` === ref))
        .sort();

    it('production (existingSecret): each Secret reaches exactly its readers, through secretKeyRef, never a ConfigMap', () => {
      const objects = helmTemplate(['-f', productionValues]);
      const prod = parse(fs.readFileSync(productionValues, 'utf8')) as Record<string, { existingSecret: string }>;
      for (const { block, env, readers } of TRUST_BLOCKS) {
        const secret = prod[block]?.existingSecret ?? '';
        expect(workloadsReadingSecret(objects, secret), `${block} (${secret})`).to.deep.equal(
          workloadsOf(objects, readers),
        );
        expect(findObject(objects, 'Secret', secret), `${secret} is the operator's`).to.equal(undefined);
        for (const map of objects.filter((o) => o.kind === 'ConfigMap')) {
          expect(Object.keys((map as { data?: object }).data ?? {}), map.metadata.name).not.to.include(env);
        }
      }
      expect(workloadsWithEnv(objects, 'SVC_TRUST_JWKS'), 'the gateway verifies nothing').not.to.include(
        `Deployment/${objectName('gateway')}`,
      );
      expect(workloadsWithEnv(objects, 'SVC_INTERNAL_SECRET'), 'no shared secret left').to.deep.equal([]);
    });

    it('value (dev): the chart creates each Secret from its value, read by the same workloads only', () => {
      const objects = helmTemplate(['-f', devValues]);
      const dev = parse(fs.readFileSync(devValues, 'utf8')) as Record<string, { value: string }>;
      for (const { block, readers } of TRUST_BLOCKS) {
        const secret = getObject<SecretObject>(objects, 'Secret', secretOfBlock(block));
        const key = Object.keys(secret.data ?? {})[0] ?? '';
        expect(Buffer.from(secret.data?.[key] ?? '', 'base64').toString(), block).to.equal(dev[block]?.value);
        expect(workloadsReadingSecret(objects, secretOfBlock(block)), block).to.deep.equal(
          workloadsOf(objects, readers).filter((ref) => ref.startsWith('Deployment/')),
        );
      }
    });
  });

  describe('webhook-ingress: WEBHOOK_SECRETS_KEYS from webhookSecretsKeys (docs/decisions/0014)', () => {
    type SecretObject = K8sObject & { type?: string; data?: Record<string, string> };
    const ingress = objectName('webhook-ingress');
    const job = `${ingress}-migrate`;
    const decoded = (secret: SecretObject, key: string) => Buffer.from(secret.data?.[key] ?? '', 'base64').toString();
    const keyRef = (objects: K8sObject[], kind: 'Deployment' | 'Job', name: string) =>
      container(getObject<Workload>(objects, kind, name)).env?.find((e) => e.name === WEBHOOK_KEYS)?.valueFrom
        ?.secretKeyRef;

    /** Only webhook-ingress's Deployment (and its migration Job, when one runs) gets the keys, from no ConfigMap. */
    function assertOnlyWebhookIngress(objects: K8sObject[], secret: string, withJob: boolean): void {
      const expected = [`Deployment/${ingress}`, ...(withJob ? [`Job/${job}`] : [])];
      expect(workloadsWithEnv(objects, WEBHOOK_KEYS), 'workloads with WEBHOOK_SECRETS_KEYS').to.deep.equal(expected);
      expect(workloadsReadingSecret(objects, secret), `workloads reading Secret ${secret}`).to.deep.equal([
        `Deployment/${ingress}`,
      ]);
      for (const map of objects.filter((o) => o.kind === 'ConfigMap')) {
        expect(Object.keys((map as { data?: object }).data ?? {}), `ConfigMap ${map.metadata.name}`).not.to.include(
          WEBHOOK_KEYS,
        );
      }
      // other services' migration hook Secrets never carry it
      for (const hook of objects.filter((o) => o.kind === 'Secret' && o.metadata.name.endsWith('-migrate'))) {
        if (hook.metadata.name === job) continue;
        expect(Object.keys((hook as SecretObject).data ?? {}), hook.metadata.name).not.to.include(WEBHOOK_KEYS);
      }
    }

    it("production (existingSecret): Deployment and migration Job read the operator's Secret; the chart creates none", () => {
      const objects = helmTemplate(['-f', productionValues]);
      const ref = { name: WEBHOOK_KEYS_SECRET, key: WEBHOOK_KEYS };
      expect(keyRef(objects, 'Deployment', ingress)).to.deep.equal(ref);
      expect(keyRef(objects, 'Job', job), 'the Job seals legacy plain-text rows').to.deep.equal(ref);
      expect(findObject(objects, 'Secret', WEBHOOK_KEYS_SECRET), 'no chart-owned Secret').to.equal(undefined);
      expect(workloadsReadingSecret(objects, WEBHOOK_KEYS_SECRET)).to.deep.equal([
        `Deployment/${ingress}`,
        `Job/${job}`,
      ]);
      expect(workloadsWithEnv(objects, WEBHOOK_KEYS)).to.deep.equal([`Deployment/${ingress}`, `Job/${job}`]);
      // an existingSecret wins over a value, and a different key name is followed
      const mine = helmTemplate([
        '-f',
        productionValues,
        '--set',
        `webhookSecretsKeys.value=k1:${KEY_A}`,
        '--set',
        'webhookSecretsKeys.existingSecret=vault-webhook-keys',
        '--set',
        'webhookSecretsKeys.key=keys',
      ]);
      expect(keyRef(mine, 'Deployment', ingress)).to.deep.equal({ name: 'vault-webhook-keys', key: 'keys' });
      expect(keyRef(mine, 'Job', job)).to.deep.equal({ name: 'vault-webhook-keys', key: 'keys' });
      expect(mine.filter((o) => o.kind === 'Secret').map((o) => o.metadata.name)).not.to.include.members([
        WEBHOOK_KEYS_SECRET,
        job,
      ]);
    });

    it('value: the chart owns Secret <release>-svc-webhook-secrets-keys; the Job reads its hook Secret', () => {
      const keys = `k2:${KEY_B},k1:${KEY_A}`;
      const objects = helmTemplate([
        ...CHANNELS_ARGS,
        '--set-string',
        `webhookSecretsKeys.value=${keys.replace(',', '\\,')}`,
      ]);
      const secret = getObject<SecretObject>(objects, 'Secret', WEBHOOK_KEYS_SECRET);
      expect(secret.type).to.equal('Opaque');
      expect(Object.keys(secret.data ?? {})).to.deep.equal([WEBHOOK_KEYS]);
      expect(decoded(secret, WEBHOOK_KEYS), 'both keys, in order (the first encrypts)').to.equal(keys);
      expect(secret.metadata.annotations?.['helm.sh/hook'], 'a release object, not a hook').to.equal(undefined);
      expect(keyRef(objects, 'Deployment', ingress)).to.deep.equal({ name: WEBHOOK_KEYS_SECRET, key: WEBHOOK_KEYS });
      // hooks run before the release's Secret exists: the value reaches the Job through its own hook Secret
      expect(keyRef(objects, 'Job', job)).to.deep.equal({ name: job, key: WEBHOOK_KEYS });
      const hook = getObject<SecretObject>(objects, 'Secret', job);
      expect(hook.metadata.annotations?.['helm.sh/hook']).to.equal('pre-install,pre-upgrade');
      expect(decoded(hook, WEBHOOK_KEYS)).to.equal(keys);
      expect(Object.keys(hook.data ?? {})).to.deep.equal([WEBHOOK_KEYS]);
      assertOnlyWebhookIngress(objects, WEBHOOK_KEYS_SECRET, true);
      expect(validateObjects(objects)).to.deep.equal([]);
    });

    it('dev values: the committed dev key, in a chart-owned Secret (no migration Job with the bundled infra)', () => {
      const objects = helmTemplate(['-f', devValues]);
      const dev = (parse(fs.readFileSync(devValues, 'utf8')) as { webhookSecretsKeys: { value: string } })
        .webhookSecretsKeys.value;
      expect(dev).to.match(/^dev:[A-Za-z0-9+/]{43}=$/);
      expect(Buffer.from(dev.slice('dev:'.length), 'base64')).to.have.length(32);
      expect(decoded(getObject<SecretObject>(objects, 'Secret', WEBHOOK_KEYS_SECRET), WEBHOOK_KEYS)).to.equal(dev);
      expect(keyRef(objects, 'Deployment', ingress)).to.deep.equal({ name: WEBHOOK_KEYS_SECRET, key: WEBHOOK_KEYS });
      assertOnlyWebhookIngress(objects, WEBHOOK_KEYS_SECRET, false);
    });

    it('no other workload gets it, whatever is enabled', () => {
      for (const args of [
        REQUIRED_ARGS,
        ['-f', productionValues],
        [
          '-f',
          productionValues,
          ...Object.keys(defaults.services).flatMap((key) => ['--set', `services.${key}.enabled=true`]),
        ],
      ]) {
        const objects = helmTemplate(args);
        expect(workloadsWithEnv(objects, WEBHOOK_KEYS), args.join(' ')).to.deep.equal([
          `Deployment/${ingress}`,
          `Job/${job}`,
        ]);
        expect(workloadsReadingSecret(objects, WEBHOOK_KEYS_SECRET), args.join(' ')).to.deep.equal([
          `Deployment/${ingress}`,
          `Job/${job}`,
        ]);
      }
    });

    it('a changed value rolls webhook-ingress (checksum/secret), and only webhook-ingress', () => {
      const checksums = (key: string) => {
        const objects = helmTemplate([...CHANNELS_ARGS, '--set', `webhookSecretsKeys.value=k1:${key}`]);
        return Object.fromEntries(
          (objects.filter((o) => o.kind === 'Deployment') as Workload[]).map((d) => [
            d.metadata.name,
            d.spec.template.metadata.annotations?.['checksum/secret'],
          ]),
        );
      };
      const a = checksums(KEY_A);
      const b = checksums(KEY_B);
      for (const name of Object.keys(a)) {
        if (name === ingress) expect(a[name], name).not.to.equal(b[name]);
        else expect(a[name], name).to.equal(b[name]);
      }
    });

    it('needs no key while webhook-ingress is disabled, and then renders none', () => {
      const objects = helmTemplate([...CHANNELS_ARGS, '--set', 'services.webhook-ingress.enabled=false']);
      expect(findObject(objects, 'Deployment', ingress)).to.equal(undefined);
      expect(workloadsWithEnv(objects, WEBHOOK_KEYS)).to.deep.equal([]);
      const withValue = helmTemplate([
        ...CHANNELS_ARGS,
        '--set',
        'services.webhook-ingress.enabled=false',
        '--set',
        `webhookSecretsKeys.value=k1:${KEY_A}`,
      ]);
      expect(findObject(withValue, 'Secret', WEBHOOK_KEYS_SECRET), 'no Secret nobody reads').to.equal(undefined);
    });
  });

  describe('partner: PARTNER_SECRETS_KEYS from partnerSecretsKeys (the webhook signing secrets at rest)', () => {
    const partner = objectName('partner');
    const PARTNER_KEYS = 'PARTNER_SECRETS_KEYS';
    const keyRef = (objects: K8sObject[], kind: 'Deployment' | 'Job', name: string) =>
      container(getObject<Workload>(objects, kind, name)).env?.find((e) => e.name === PARTNER_KEYS)?.valueFrom
        ?.secretKeyRef;

    it("production (existingSecret): partner's Deployment and migration Job read the operator's Secret, and no other workload", () => {
      const objects = helmTemplate(['-f', productionValues]);
      const secret = (
        parse(fs.readFileSync(productionValues, 'utf8')) as { partnerSecretsKeys: { existingSecret: string } }
      ).partnerSecretsKeys.existingSecret;
      expect(keyRef(objects, 'Deployment', partner)).to.deep.equal({ name: secret, key: PARTNER_KEYS });
      expect(keyRef(objects, 'Job', `${partner}-migrate`)).to.deep.equal({ name: secret, key: PARTNER_KEYS });
      expect(findObject(objects, 'Secret', secret), 'no chart-owned Secret').to.equal(undefined);
      expect(workloadsWithEnv(objects, PARTNER_KEYS)).to.deep.equal([
        `Deployment/${partner}`,
        `Job/${partner}-migrate`,
      ]);
      for (const map of objects.filter((o) => o.kind === 'ConfigMap')) {
        expect(Object.keys((map as { data?: object }).data ?? {}), map.metadata.name).not.to.include(PARTNER_KEYS);
      }
    });

    it('dev values: the committed dev key (32 bytes), in a chart-owned Secret read by partner only', () => {
      const objects = helmTemplate(['-f', devValues]);
      const dev = (parse(fs.readFileSync(devValues, 'utf8')) as { partnerSecretsKeys: { value: string } })
        .partnerSecretsKeys.value;
      expect(Buffer.from(dev.slice('dev:'.length), 'base64')).to.have.length(32);
      const secret = getObject<K8sObject & { data: Record<string, string> }>(objects, 'Secret', PARTNER_KEYS_SECRET);
      expect(Buffer.from(secret.data[PARTNER_KEYS] ?? '', 'base64').toString()).to.equal(dev);
      expect(workloadsReadingSecret(objects, PARTNER_KEYS_SECRET)).to.deep.equal([`Deployment/${partner}`]);
    });
  });

  describe('NOTES.txt (rendered by helm install only)', () => {
    // helm template skips NOTES.txt: render it as the data of a ConfigMap, in a copy of the charts.
    let copy = '';
    before(() => {
      copy = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-notes-'));
      fs.cpSync(path.dirname(chartDir), copy, { recursive: true });
      const templates = path.join(copy, 'svc', 'templates');
      const notes = fs.readFileSync(path.join(templates, 'NOTES.txt'), 'utf8');
      fs.rmSync(path.join(templates, 'NOTES.txt'));
      fs.writeFileSync(
        path.join(templates, 'zz-notes.yaml'),
        `apiVersion: v1\nkind: ConfigMap\nmetadata: { name: notes }\ndata:\n  notes: |\n${notes.replace(/^/gm, '    ')}\n`,
      );
    });
    after(() => fs.rmSync(copy, { recursive: true, force: true }));

    for (const [label, args] of [
      ['default values', REQUIRED_ARGS],
      ['production values', ['-f', productionValues]],
      ['dev values', ['-f', devValues]],
    ] as const) {
      it(`renders with ${label}`, () => {
        const chart = path.join(copy, 'svc');
        const out = runOk(tool('helm'), [
          'template',
          releaseName,
          chart,
          '--show-only',
          'templates/zz-notes.yaml',
          ...args,
        ]);
        const notes = (parse(out) as { data: { notes: string } }).data.notes;
        expect(notes).to.include(`${objectName('gateway')} (http :4000)`);
        expect(notes).to.include(`${objectName('inbox')}-data`);
        expect(notes).to.include('helm.sh/resource-policy: keep');
        if (label === 'dev values') expect(notes).to.include('DEVELOPMENT infrastructure');
        else {
          expect(notes).to.include(`${objectName('identity')}-db (key DB_URL`);
          expect(notes).to.include(`${WEBHOOK_KEYS_SECRET} (key WEBHOOK_SECRETS_KEYS: comma-separated <keyId>:`);
        }
      });
    }
  });

  describe('values.schema.json and the chart checks reject wrong values with a clear message', () => {
    /** Renders without a values file get REQUIRED_ARGS (so each fails for its own reason only), but for `bare`. */
    const cases: { label: string; args: string[]; message: RegExp; bare?: boolean }[] = [
      {
        label: 'replicas: "two"',
        args: ['--set-string', 'services.identity.replicas=two'],
        message: /\/services\/identity\/replicas': got string, want integer/,
      },
      {
        label: 'an unknown service key',
        args: ['--set', 'services.idenity.enabled=true'],
        message: /at '\/services': additional properties 'idenity' not allowed/,
      },
      {
        label: 'an unknown top-level key',
        args: ['--set', 'ingres.enabled=true'],
        message: /additional properties 'ingres' not allowed/,
      },
      {
        label: 'an unknown log level',
        args: ['--set', 'global.logLevel=verbose'],
        message: /\/global\/logLevel': value must be one of/,
      },
      {
        label: 'an unknown SASL mechanism',
        args: ['--set', 'kafka.sasl.mechanism=scram'],
        message: /\/kafka\/sasl\/mechanism': value must be one of/,
      },
      {
        label: 'a short media link key',
        args: ['--set', 'mediaUrlSecret.value=short'],
        message: /\/mediaUrlSecret\/value': 'short' does not match pattern/,
      },
      {
        label: 'a malformed image digest',
        args: ['--set', 'services.inbox.image.digest=latest'],
        message: /\/services\/inbox\/image\/digest'/,
      },
      {
        label: 'a non-MySQL DSN',
        args: ['--set', 'services.inbox.database.url=postgres://x'],
        message: /\/services\/inbox\/database\/url'/,
      },
      { label: 'malformed brokers', args: ['--set', 'kafka.brokers=kafka'], message: /\/kafka\/brokers'/ },
      {
        label: 'autoscaling with minReplicas > maxReplicas',
        args: [
          '--set',
          'services.inbox.autoscaling.enabled=true',
          '--set',
          'services.inbox.autoscaling.minReplicas=5',
          '--set',
          'services.inbox.autoscaling.maxReplicas=2',
        ],
        message: /services\.inbox\.autoscaling: minReplicas \(5\) is greater than maxReplicas \(2\)/,
      },
      {
        label: 'SASL without a password source',
        args: ['--set', 'kafka.sasl.mechanism=plain', '--set', 'kafka.sasl.username=u'],
        message: /give the password as kafka\.sasl\.existingSecret/,
      },
      {
        label: 'an upstream naming no service',
        args: ['--set', 'services.gateway.upstreams.X_GRPC_URL=nope'],
        message: /services\.gateway\.upstreams\.X_GRPC_URL names "nope"/,
      },
      {
        label: 'an HTTPRoute without parentRefs',
        args: ['--set', 'httpRoute.enabled=true'],
        message: /httpRoute\.parentRefs must name the Gateway/,
      },
      {
        label: 'a ReadWriteOnce media volume with 2 replicas',
        args: ['--set', 'services.inbox.persistence.accessModes={ReadWriteOnce}'],
        message:
          /services\.inbox\.persistence\.accessModes \[ReadWriteOnce\] lets only one node mount the volume, but services\.inbox runs 2 replicas.*use ReadWriteMany storage/,
      },
      {
        label: 'a ReadWriteOnce media volume with dev values scaled to 2 replicas',
        args: ['-f', devValues, '--set', 'global.replicas=2'],
        message:
          /services\.inbox\.persistence\.accessModes \[ReadWriteOnce\] .* runs 2 replicas \(replicas or global\.replicas\)/,
      },
      {
        label: 'a ReadWriteOncePod media volume with an autoscaler above one replica',
        args: [
          '--set',
          'services.inbox.persistence.accessModes={ReadWriteOncePod}',
          '--set',
          'global.replicas=1',
          '--set',
          'services.inbox.autoscaling.enabled=true',
        ],
        message:
          /services\.inbox\.persistence\.accessModes \[ReadWriteOncePod\] .* services\.inbox\.autoscaling\.maxReplicas is 10/,
      },
      {
        label: 'an unknown persistence key',
        args: ['--set', 'services.inbox.persistence.storageClass=nfs'],
        message: /at '\/services\/inbox\/persistence': additional properties 'storageClass' not allowed/,
      },
      {
        label: 'a persistence size of the wrong type',
        args: ['--set', 'services.inbox.persistence.size=true'],
        message: /\/services\/inbox\/persistence\/size': got boolean, want number or string/,
      },
      {
        label: 'an unknown access mode',
        args: ['--set', 'services.inbox.persistence.accessModes={ReadOnlyMany}'],
        message: /\/services\/inbox\/persistence\/accessModes\/0': value must be one of/,
      },
      {
        label: 'a relative mount path',
        args: ['--set', 'services.inbox.persistence.mountPath=media'],
        message: /\/services\/inbox\/persistence\/mountPath': 'media' does not match pattern/,
      },
      {
        label: 'a mount path over the /tmp emptyDir',
        args: ['--set', 'services.inbox.persistence.mountPath=/tmp/media'],
        message: /services\.inbox\.persistence\.mountPath \/tmp\/media overlaps \/tmp/,
      },
      {
        label: 'an inbox without media storage',
        args: ['--set', 'services.inbox.persistence.enabled=false'],
        message: /services\.inbox\.persistence\.enabled is false, so the media library has no storage/,
      },
      {
        label: 'a public URL with a path',
        args: ['--set', 'global.publicUrl=https://inbox.example.com/app'],
        message: /\/global\/publicUrl': 'https:\/\/inbox\.example\.com\/app' does not match pattern/,
      },
      {
        label: 'a gateway accepting larger files than the inbox stores',
        args: ['--set-string', 'services.gateway.env.UPLOAD_MAX_BYTES=33554432'],
        message:
          /services\.gateway\.env\.UPLOAD_MAX_BYTES \(33554432\) exceeds services\.inbox\.env\.MEDIA_MAX_BYTES \(16777216\)/,
      },
      {
        label: 'a gateway accepting more files than the inbox stores',
        args: ['--set-string', 'services.gateway.env.UPLOAD_MAX_FILES=20'],
        message: /services\.gateway\.env\.UPLOAD_MAX_FILES \(20\) exceeds services\.inbox\.env\.MEDIA_MAX_FILES \(10\)/,
      },
      {
        label: 'an Ingress body size below the upload limits',
        args: [
          '--set',
          'ingress.enabled=true',
          '--set',
          'services.gateway.public.ingressAnnotations.nginx\\.ingress\\.kubernetes\\.io/proxy-body-size=64m',
        ],
        message:
          /proxy-body-size: 64m \(67108864 bytes\) is below UPLOAD_MAX_FILES x UPLOAD_MAX_BYTES \(167772160 bytes\)/,
      },
      {
        label: 'a cert-manager annotation on the Ingress of a service other than ingress.primaryService',
        args: [
          '--set',
          'ingress.enabled=true',
          '--set-string',
          'services.inbox.public.ingressAnnotations.cert-manager\\.io/cluster-issuer=letsencrypt',
        ],
        message:
          /services\.inbox\.public\.ingressAnnotations: cert-manager\.io\/cluster-issuer would make cert-manager issue a second Certificate .* set it in ingress\.annotations \(cert-manager annotations go on the gateway Ingress only/,
      },
      {
        label: 'an ingress.primaryService that is no service key',
        args: ['--set', 'ingress.primaryService=gatway'],
        message: /\/ingress\/primaryService': value must be one of/,
      },
      {
        label: 'a malformed HTTPRoute timeout',
        args: ['--set', 'services.gateway.public.httpRouteTimeouts.request=5min'],
        message: /\/services\/gateway\/public\/httpRouteTimeouts\/request': '5min' does not match pattern/,
      },
      {
        label: 'no WEBHOOK_SECRETS_KEYS source while webhook-ingress is enabled (and says how to make a key)',
        args: [],
        bare: true,
        message: new RegExp(
          [
            /webhookSecretsKeys: services\.webhook-ingress needs WEBHOOK_SECRETS_KEYS/,
            /Set webhookSecretsKeys\.existingSecret to a Secret you manage/,
            /kubectl -n default create secret generic svc-webhook-secrets-keys --from-literal=WEBHOOK_SECRETS_KEYS=/,
            /or webhookSecretsKeys\.value for a throwaway install/,
            /node -e "console\.log\('k1:'\+require\('crypto'\)\.randomBytes\(32\)\.toString\('base64'\)\)"/,
            /openssl rand -base64 32/,
          ]
            .map((r) => r.source)
            .join('.*'),
        ),
      },
      {
        label: 'no WEBHOOK_SECRETS_KEYS source with production values but for the existingSecret',
        args: ['-f', productionValues, '--set', 'webhookSecretsKeys.existingSecret='],
        message: /webhookSecretsKeys: services\.webhook-ingress needs WEBHOOK_SECRETS_KEYS/,
      },
      {
        label: 'no CHANNELS_SECRETS_KEYS source with production values but for the existingSecret',
        args: ['-f', productionValues, '--set', 'channelsSecretsKeys.existingSecret='],
        message: new RegExp(
          [
            /channelsSecretsKeys: services\.channels needs CHANNELS_SECRETS_KEYS/,
            /the web integrations' identity secrets/,
            /kubectl -n default create secret generic svc-channels-secrets-keys --from-literal=CHANNELS_SECRETS_KEYS=/,
          ]
            .map((r) => r.source)
            .join('.*'),
        ),
      },
      {
        label: 'no PARTNER_SECRETS_KEYS source with production values but for the existingSecret',
        args: ['-f', productionValues, '--set', 'partnerSecretsKeys.existingSecret='],
        message: new RegExp(
          [
            /partnerSecretsKeys: services\.partner needs PARTNER_SECRETS_KEYS/,
            /the providers' webhook signing secrets/,
            /kubectl -n default create secret generic svc-partner-secrets-keys --from-literal=PARTNER_SECRETS_KEYS=/,
          ]
            .map((r) => r.source)
            .join('.*'),
        ),
      },
      {
        label: 'partner enabled without its PARTNER_SECRETS_KEYS entry',
        args: ['--set', 'services.partner.secretEnv=null'],
        message: /services\.partner is enabled but gets no PARTNER_SECRETS_KEYS/,
      },
      {
        label: 'the SSRF guard of partner turned off (PARTNER_WEBHOOK_INSECURE_URLS)',
        args: ['--set-string', 'services.partner.env.PARTNER_WEBHOOK_INSECURE_URLS=true'],
        message: /services\.partner: PARTNER_WEBHOOK_INSECURE_URLS=true is for tests and local development only/,
      },
      {
        label: 'the SSRF guard of partner turned off through extraEnv',
        args: [
          '--set',
          'services.partner.extraEnv[0].name=PARTNER_WEBHOOK_INSECURE_URLS',
          '--set-string',
          'services.partner.extraEnv[0].value=Yes',
        ],
        message: /services\.partner: PARTNER_WEBHOOK_INSECURE_URLS=Yes is for tests/,
      },
      {
        label: 'an egress CIDR that is not one',
        args: ['--set', 'services.partner.networkPolicy.egress.internet.except={private}'],
        message: /\/services\/partner\/networkPolicy\/egress\/internet\/except\/0': 'private' does not match pattern/,
      },
      {
        label: 'channels enabled without its CHANNELS_SECRETS_KEYS entry',
        args: [
          '--set',
          'services.channels.secretEnv[0].name=SVC_TRUST_JWKS',
          '--set',
          'services.channels.secretEnv[0].from=trustJwks',
        ],
        message: /services\.channels is enabled but gets no CHANNELS_SECRETS_KEYS/,
      },
      {
        label: 'a WEBHOOK_SECRETS_KEYS value that is not <keyId>:<base64 key>',
        args: ['--set', 'webhookSecretsKeys.value=k1:not-a-key'],
        message: /\/webhookSecretsKeys\/value': 'k1:not-a-key' does not match pattern/,
      },
      {
        label: 'a WEBHOOK_SECRETS_KEYS key without its key id',
        args: ['--set', `webhookSecretsKeys.value=${KEY_A}`],
        message: /\/webhookSecretsKeys\/value': '[^']+' does not match pattern/,
      },
      {
        label: 'a WEBHOOK_SECRETS_KEYS key of 16 bytes (AES-256 needs 32)',
        args: ['--set', `webhookSecretsKeys.value=k1:${Buffer.alloc(16, 7).toString('base64')}`],
        message: /\/webhookSecretsKeys\/value': 'k1:[^']+' does not match pattern/,
      },
      {
        label: 'a malformed second WEBHOOK_SECRETS_KEYS entry',
        args: ['--set-string', `webhookSecretsKeys.value=k2:${KEY_B}\\,k1`],
        message: /\/webhookSecretsKeys\/value': 'k2:[^']+,k1' does not match pattern/,
      },
      {
        label: 'a WEBHOOK_SECRETS_KEYS key id listed twice',
        args: ['--set-string', `webhookSecretsKeys.value=k1:${KEY_A}\\,k1:${KEY_B}`],
        // an existingSecret (REQUIRED_ARGS) would win: the value is only checked when the chart uses it
        bare: true,
        message: /webhookSecretsKeys\.value: key id "k1" appears twice/,
      },
      {
        label: 'an unknown key under webhookSecretsKeys',
        args: ['--set', 'webhookSecretsKeys.secretName=x'],
        message: /at '\/webhookSecretsKeys': additional properties 'secretName' not allowed/,
      },
      {
        label: 'a secretEnv entry reading a block that is not a secret block',
        args: ['--set', 'services.identity.secretEnv[0].name=X', '--set', 'services.identity.secretEnv[0].from=kafka'],
        message: /\/services\/identity\/secretEnv\/0\/from': value must be one of 'webhookSecretsKeys', 'trustJwks'/,
      },
      {
        label: 'webhook-ingress without its WEBHOOK_SECRETS_KEYS entry',
        args: ['--set', 'services.webhook-ingress.secretEnv=null'],
        message: /services\.webhook-ingress is enabled but gets no WEBHOOK_SECRETS_KEYS/,
      },
    ];
    for (const c of cases) {
      it(`fails on ${c.label}`, () => {
        const args = c.bare || c.args.includes('-f') ? c.args : [...REQUIRED_ARGS, ...c.args];
        const result = run(tool('helm'), ['template', releaseName, chartDir, ...args]);
        expect(result.status, 'helm template should fail').not.to.equal(0);
        expect(result.stderr).to.match(c.message);
      });
    }
  });
});
