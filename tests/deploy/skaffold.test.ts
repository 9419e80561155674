/**
 * skaffold.yaml with the real skaffold: its effective config per profile covers every deployable, and
 * `skaffold render --offline` (no cluster, no registry, no Docker: --digest-source=tag with a fixed tag) renders
 * valid manifests for the default, dev and ci profiles.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { expect } from 'chai';
import { parse } from 'yaml';
import {
  type K8sObject,
  type PersistentVolumeClaimObject,
  type Workload,
  WEBHOOK_KEYS_SECRET,
  buildChartDependencies,
  deployables,
  getObject,
  objectName,
  parseManifests,
  releaseName,
  repoRoot,
  runOk,
  tool,
  validateObjects,
  workloadsWithEnv,
} from './support';

interface Artifact {
  image: string;
  context?: string;
  docker?: { dockerfile?: string; buildArgs?: Record<string, string> };
  sync?: { manual?: { src: string; dest: string }[] };
}
interface EffectiveConfig {
  build: { artifacts: Artifact[] };
  deploy: { helm: { releases: { name: string; chartPath: string; setValueTemplates?: Record<string, string> }[] } };
}

const TAG = 'deploy-test';

/**
 * Deployables that this profile builds. A deployable without its artifact (or Dockerfile, or enabled values block)
 * is reported once, by chart.test.ts ("is complete"), rather than by every test here.
 */
function wired(config: EffectiveConfig) {
  return deployables().filter((d) =>
    config.build.artifacts.some((a) => a.docker?.dockerfile === `${d.folder}/Dockerfile`),
  );
}

function effectiveConfig(profile?: string): EffectiveConfig {
  const args = ['diagnose', '--yaml-only', ...(profile ? ['-p', profile] : [])];
  return parse(runOk(tool('skaffold'), args)) as EffectiveConfig;
}

function renderProfile(profile?: string): K8sObject[] {
  const args = ['render', '--offline', '--digest-source=tag', '--tag', TAG, ...(profile ? ['-p', profile] : [])];
  return parseManifests(runOk(tool('skaffold'), args), `skaffold ${args.join(' ')}`);
}

describe('deploy: skaffold.yaml', function () {
  this.timeout(180_000);
  before(() => buildChartDependencies());

  for (const profile of [undefined, 'dev', 'ci']) {
    const label = profile ? `profile ${profile}` : 'no profile';
    describe(label, () => {
      let config: EffectiveConfig;
      let objects: K8sObject[];
      before(() => {
        config = effectiveConfig(profile);
        objects = renderProfile(profile);
      });

      it('builds each deployable from its own Dockerfile, with the repository root as context', () => {
        const folders = deployables().map((d) => `${d.folder}/Dockerfile`);
        for (const artifact of config.build.artifacts) {
          expect(folders, `artifact ${artifact.image} builds a deployable's Dockerfile`).to.include(
            artifact.docker?.dockerfile,
          );
        }
        expect(wired(config).map((d) => d.key)).to.include.members(['identity', 'inbox', 'gateway', 'widget']);
        for (const d of wired(config)) {
          const artifact = config.build.artifacts.find((a) => a.docker?.dockerfile === `${d.folder}/Dockerfile`);
          expect(path.resolve(repoRoot, artifact!.context ?? '.')).to.equal(repoRoot);
          const sanitized = artifact!.image.replace(/[/.:-]/g, '_');
          const templates = config.deploy.helm.releases[0]!.setValueTemplates ?? {};
          for (const field of ['repository', 'tag', 'digest']) {
            expect(
              templates[`services.${d.key}.image.${field}`],
              `setValueTemplates services.${d.key}.image.${field}`,
            ).to.include(sanitized);
          }
        }
      });

      it('renders manifests that validate against the Kubernetes schemas', () => {
        expect(objects.length).to.be.greaterThan(10);
        const problems = validateObjects(objects);
        expect(problems, problems.join('\n')).to.deep.equal([]);
      });

      it('wires each artifact image into its Deployment', () => {
        for (const d of wired(config)) {
          const artifact = config.build.artifacts.find((a) => a.docker?.dockerfile === `${d.folder}/Dockerfile`)!;
          const deployment = getObject<Workload>(objects, 'Deployment', objectName(d.key));
          expect(deployment.spec.template.spec.containers[0]!.image).to.equal(`${artifact.image}:${TAG}`);
        }
      });

      it(`mounts the inbox media claim (${profile ? 'ReadWriteOnce, one replica, Recreate' : 'ReadWriteMany'}), kept on delete`, () => {
        const pvc = getObject<PersistentVolumeClaimObject>(
          objects,
          'PersistentVolumeClaim',
          `${objectName('inbox')}-data`,
        );
        expect(pvc.metadata.annotations?.['helm.sh/resource-policy']).to.equal('keep');
        expect(pvc.spec.accessModes).to.deep.equal(profile ? ['ReadWriteOnce'] : ['ReadWriteMany']);
        const deployment = getObject<Workload>(objects, 'Deployment', objectName('inbox'));
        const volume = deployment.spec.template.spec.volumes?.find((v) => v.persistentVolumeClaim);
        expect(volume?.persistentVolumeClaim?.claimName).to.equal(pvc.metadata.name);
        const mount = deployment.spec.template.spec.containers[0]!.volumeMounts?.find((m) => m.name === volume!.name);
        expect(mount?.mountPath).to.equal('/var/lib/svc/media');
        expect(deployment.spec.strategy?.type).to.equal(profile ? 'Recreate' : 'RollingUpdate');
      });

      it(`gives webhook-ingress WEBHOOK_SECRETS_KEYS (${profile ? 'the dev key of values-dev.yaml' : 'from a Secret you create'}), and no other workload`, () => {
        const ingress = objectName('webhook-ingress');
        const deployment = getObject<Workload>(objects, 'Deployment', ingress);
        const ref = deployment.spec.template.spec.containers[0]!.env?.find((e) => e.name === 'WEBHOOK_SECRETS_KEYS')
          ?.valueFrom?.secretKeyRef;
        expect(ref).to.deep.equal({ name: WEBHOOK_KEYS_SECRET, key: 'WEBHOOK_SECRETS_KEYS' });
        const secret = objects.find((o) => o.kind === 'Secret' && o.metadata.name === WEBHOOK_KEYS_SECRET) as
          (K8sObject & { data: Record<string, string> }) | undefined;
        if (profile) {
          const dev = parse(fs.readFileSync(path.join(repoRoot, 'charts/svc/values-dev.yaml'), 'utf8')) as {
            webhookSecretsKeys: { value: string };
          };
          expect(Buffer.from(secret?.data.WEBHOOK_SECRETS_KEYS ?? '', 'base64').toString()).to.equal(
            dev.webhookSecretsKeys.value,
          );
          expect(workloadsWithEnv(objects, 'WEBHOOK_SECRETS_KEYS')).to.deep.equal([`Deployment/${ingress}`]);
        } else {
          expect(secret, 'the chart creates no Secret for an existingSecret').to.equal(undefined);
          expect(workloadsWithEnv(objects, 'WEBHOOK_SECRETS_KEYS')).to.deep.equal([
            `Deployment/${ingress}`,
            `Job/${ingress}-migrate`,
          ]);
        }
      });

      if (profile) {
        it('runs the bundled MariaDB and Kafka, one replica per service', () => {
          getObject(objects, 'StatefulSet', `${releaseName}-mariadb`);
          getObject(objects, 'StatefulSet', `${releaseName}-kafka`);
          for (const d of wired(config)) {
            expect(getObject<Workload>(objects, 'Deployment', objectName(d.key)).spec.replicas).to.equal(1);
          }
        });
      } else {
        it('expects external MySQL and Kafka (no bundled infra) and migrates with hook Jobs', () => {
          expect(objects.filter((o) => o.kind === 'StatefulSet')).to.deep.equal([]);
          expect(objects.filter((o) => o.kind === 'Job').length).to.be.greaterThan(0);
        });
      }

      if (profile === 'dev') {
        it('syncs compiled files into writable, watched containers', () => {
          for (const d of wired(config).filter((w) => w.runtime === 'node')) {
            const artifact = config.build.artifacts.find((a) => a.docker?.dockerfile === `${d.folder}/Dockerfile`)!;
            expect(artifact.docker?.buildArgs?.APP_OWNER).to.equal('node');
            expect(artifact.sync?.manual?.map((s) => s.src)).to.include(`${d.folder}/dist/src/**/*.js`);
            const c = getObject<Workload>(objects, 'Deployment', objectName(d.key)).spec.template.spec.containers[0]!;
            expect(c.securityContext?.readOnlyRootFilesystem).to.equal(false);
            expect(c.command).to.deep.equal(['node', '--watch', 'dist/src/main.js']);
          }
        });
        it('rebuilds the static images (nginx) instead: no sync, no node command', () => {
          const statics = wired(config).filter((w) => w.runtime !== 'node');
          expect(statics.map((d) => d.key)).to.deep.equal(['widget']);
          for (const d of statics) {
            const artifact = config.build.artifacts.find((a) => a.docker?.dockerfile === `${d.folder}/Dockerfile`)!;
            expect(artifact.docker?.buildArgs?.APP_OWNER).to.equal(undefined);
            expect(artifact.sync?.manual ?? []).to.deep.equal([]);
            const c = getObject<Workload>(objects, 'Deployment', objectName(d.key)).spec.template.spec.containers[0]!;
            expect(c.command).to.equal(undefined);
          }
        });
      } else {
        it('keeps the production image layout and a read-only root filesystem', () => {
          for (const d of wired(config)) {
            const artifact = config.build.artifacts.find((a) => a.docker?.dockerfile === `${d.folder}/Dockerfile`)!;
            expect(artifact.docker?.buildArgs?.APP_OWNER ?? 'root').to.equal('root');
            const c = getObject<Workload>(objects, 'Deployment', objectName(d.key)).spec.template.spec.containers[0]!;
            expect(c.securityContext?.readOnlyRootFilesystem).to.equal(true);
            expect(c.command).to.equal(undefined);
          }
        });
      }
    });
  }
});
