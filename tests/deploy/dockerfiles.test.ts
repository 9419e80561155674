/**
 * Static checks of each deployable's Dockerfile (no Docker engine needed): pinned base image, non-root final stage,
 * no dev dependencies installed into it, node as the entrypoint, and the shared part identical everywhere. The
 * static deployables (the widget's nginx image) get what applies to them: pinned bases, non-root, a build stage that
 * runs the project's own widget build, and only its output (plus nginx.conf) in the final stage.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { expect } from 'chai';
import { STATIC_DEPLOYABLES, nodeDeployables, repoRoot } from './support';

interface Instruction {
  keyword: string;
  args: string;
  line: number;
}

/** Dockerfile instructions with line continuations joined and comments dropped. */
function instructions(text: string): Instruction[] {
  const out: Instruction[] = [];
  let buffer = '';
  let start = 0;
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (!buffer && (line === '' || line.startsWith('#'))) return;
    if (buffer && line.startsWith('#')) return;
    if (!buffer) start = i + 1;
    buffer += (buffer ? ' ' : '') + line.replace(/\\$/, '').trim();
    if (!line.endsWith('\\')) {
      const match = /^(\S+)\s*(.*)$/.exec(buffer);
      if (match) out.push({ keyword: match[1]!.toUpperCase(), args: match[2]!, line: start });
      buffer = '';
    }
  });
  return out;
}

/** Global ARG defaults (before the first FROM), for resolving ${NODE_IMAGE} in FROM lines. */
function globalArgs(all: Instruction[]): Record<string, string> {
  const args: Record<string, string> = {};
  for (const ins of all) {
    if (ins.keyword === 'FROM') break;
    if (ins.keyword === 'ARG') {
      const [name, value] = ins.args.split('=', 2);
      if (name && value !== undefined) args[name] = value;
    }
  }
  return args;
}

function stages(all: Instruction[]): { from: string; name?: string; body: Instruction[] }[] {
  const result: { from: string; name?: string; body: Instruction[] }[] = [];
  for (const ins of all) {
    if (ins.keyword === 'FROM') {
      const [from, as, name] = ins.args.split(/\s+/);
      result.push({ from: from!, name: as?.toUpperCase() === 'AS' ? name : undefined, body: [] });
    } else if (result.length > 0) {
      result[result.length - 1]!.body.push(ins);
    }
  }
  return result;
}

const SHARED_MARKER = '# ---- shared:';

describe('deploy: Dockerfiles', () => {
  // Deployables without a Dockerfile yet are reported by chart.test.ts ("is complete"); the rest are checked here.
  const all = nodeDeployables().filter((d) => fs.existsSync(path.join(repoRoot, d.folder, 'Dockerfile')));

  it('has a .dockerignore that keeps node_modules and .git out of the build context', () => {
    const ignore = fs
      .readFileSync(path.join(repoRoot, '.dockerignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim());
    expect(ignore).to.include.members(['**/node_modules', '.git']);
  });

  for (const d of all) {
    describe(`${d.folder}/Dockerfile`, () => {
      const file = path.join(repoRoot, d.folder, 'Dockerfile');
      const text = () => fs.readFileSync(file, 'utf8');

      it('builds its own workspace (ARG WORKSPACE)', () => {
        expect(text()).to.match(new RegExp(`^ARG WORKSPACE=${d.folder}$`, 'm'));
      });

      it('pins every base image to an exact node:20.x.y-bookworm-slim tag', () => {
        const ins = instructions(text());
        const args = globalArgs(ins);
        for (const stage of stages(ins)) {
          const image = stage.from.replace(/\$\{?(\w+)\}?/g, (_, name: string) => args[name] ?? `<unset ${name}>`);
          const isStage = stages(ins).some((s) => s.name === image);
          if (isStage) continue;
          expect(image, `FROM ${stage.from}`).to.match(/^node:20\.\d+\.\d+-bookworm-slim(@sha256:[a-f0-9]{64})?$/);
        }
      });

      it('runs the final stage as a non-root user', () => {
        const final = stages(instructions(text())).at(-1)!;
        const users = final.body.filter((i) => i.keyword === 'USER').map((i) => i.args.split(':')[0]);
        expect(users.length, 'the final stage sets USER').to.be.greaterThan(0);
        expect(['root', '0']).not.to.include(users.at(-1));
      });

      it('installs no dependencies in the final stage, and copies node_modules only from a production install', () => {
        const all = stages(instructions(text()));
        const final = all.at(-1)!;
        const installs = (body: Instruction[]) =>
          body.filter((i) => i.keyword === 'RUN' && /\b(npm|yarn|pnpm)\s+(ci|install|i|add)\b/.test(i.args));
        expect(
          installs(final.body).map((i) => i.args),
          'npm install/ci in the final stage',
        ).to.deep.equal([]);
        let prodDeps = 0;
        for (const copy of final.body.filter((i) => i.keyword === 'COPY' && /--from=/.test(i.args))) {
          const tokens = copy.args.split(/\s+/);
          const stage = all.find((s) => s.name === /--from=(\S+)/.exec(copy.args)![1]);
          const sources = tokens.filter((t) => !t.startsWith('--')).slice(0, -1);
          const stageInstalls = installs(stage?.body ?? []);
          const workdir = stage?.body.filter((i) => i.keyword === 'WORKDIR').at(-1)?.args ?? '/';
          const bringsNodeModules = sources.some((src) => {
            const normalized = src.replace(/\/+$/, '') || '/';
            return normalized === '/' || normalized === workdir.replace(/\/+$/, '') || /node_modules/.test(src);
          });
          if (!bringsNodeModules || stageInstalls.length === 0) continue;
          for (const install of stageInstalls) {
            expect(
              install.args,
              `COPY ${copy.args}: stage ${stage?.name} must install production dependencies only`,
            ).to.match(/--omit=dev/);
          }
          prodDeps += 1;
        }
        expect(prodDeps, 'node_modules come from a production-only install').to.be.greaterThan(0);
      });

      it('copies no sources into the final stage (only from build stages)', () => {
        const final = stages(instructions(text())).at(-1)!;
        const fromContext = final.body.filter(
          (i) => (i.keyword === 'COPY' || i.keyword === 'ADD') && !/--from=/.test(i.args),
        );
        expect(fromContext.map((i) => i.args)).to.deep.equal([]);
      });

      it('starts node directly (PID 1, handles SIGTERM), in exec form', () => {
        const final = stages(instructions(text())).at(-1)!;
        const entrypoint = final.body.filter((i) => i.keyword === 'ENTRYPOINT').at(-1);
        expect(entrypoint, 'ENTRYPOINT').to.not.equal(undefined);
        const argv = JSON.parse(entrypoint!.args) as string[];
        expect(argv[0]).to.equal('node');
        expect(argv.at(-1)).to.match(/dist\/src\/main\.js$/);
        expect(
          final.body.some((i) => i.keyword === 'CMD'),
          'no CMD: arguments (migrate) come from the pod spec',
        ).to.equal(false);
      });

      it('shares everything below the shared marker with every other deployable', () => {
        const shared = (f: string) => {
          const body = fs.readFileSync(path.join(repoRoot, f, 'Dockerfile'), 'utf8');
          const at = body.indexOf(SHARED_MARKER);
          expect(at, `${f}/Dockerfile has the shared marker`).to.be.greaterThan(0);
          return body.slice(at);
        };
        expect(
          shared(d.folder),
          `${d.folder}/Dockerfile differs from ${all[0]!.folder}/Dockerfile below the marker`,
        ).to.equal(shared(all[0]!.folder));
      });
    });
  }
  for (const d of STATIC_DEPLOYABLES) {
    describe(`${d.folder}/Dockerfile (static files, ${d.runtime})`, () => {
      const text = () => fs.readFileSync(path.join(repoRoot, d.folder, 'Dockerfile'), 'utf8');
      const resolved = () => {
        const ins = instructions(text());
        const args = globalArgs(ins);
        return stages(ins).map((s) => ({
          ...s,
          image: s.from.replace(/\$\{?(\w+)\}?/g, (_, name: string) => args[name] ?? `<unset ${name}>`),
        }));
      };
      const buildStage = () => {
        const all = resolved();
        const final = all.at(-1)!;
        const from = final.body
          .filter((i) => i.keyword === 'COPY' && /--from=/.test(i.args))
          .map((i) => /--from=(\S+)/.exec(i.args)![1]);
        expect(from, 'the final stage copies from one build stage').to.have.length(1);
        return all.find((s) => s.name === from[0])!;
      };

      it('pins the Node build stage to node:20.x.y-bookworm-slim and the final stage to an exact unprivileged nginx', () => {
        const all = resolved();
        expect(all.length).to.be.greaterThan(1);
        for (const stage of all.slice(0, -1)) {
          expect(stage.image, `FROM ${stage.from}`).to.match(
            /^node:20\.\d+\.\d+-bookworm-slim(@sha256:[a-f0-9]{64})?$/,
          );
        }
        expect(all.at(-1)!.image).to.match(
          /^nginxinc\/nginx-unprivileged:\d+\.\d+\.\d+-alpine(@sha256:[a-f0-9]{64})?$/,
        );
      });

      it('runs the final stage as a non-root user', () => {
        const final = resolved().at(-1)!;
        const users = final.body.filter((i) => i.keyword === 'USER').map((i) => i.args.split(':')[0]);
        expect(users.length, 'the final stage sets USER').to.be.greaterThan(0);
        expect(['root', '0']).not.to.include(users.at(-1));
      });

      it("builds with the project's own scripts: each assembled package's build:browser, then the assemble step of build:widget", () => {
        const scripts = (
          JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
            scripts: Record<string, string>;
          }
        ).scripts;
        const assemble = /&&\s*(node \S*assemble\.mjs)\s*$/.exec(scripts['build:widget'] ?? '')?.[1];
        expect(assemble, 'package.json build:widget ends with the assemble step').to.be.a('string');
        const runs = buildStage()
          .body.filter((i) => i.keyword === 'RUN')
          .map((i) => i.args)
          .join(' && ');
        // the packages whose www/ assemble.mjs copies into the CDN directory
        const assembler = fs.readFileSync(path.join(repoRoot, d.folder, 'scripts', 'assemble.mjs'), 'utf8');
        const sources = [...assembler.matchAll(/packages', '([a-z-]+)', 'www'/g)].map((m) => m[1]!);
        expect(sources).to.include.members(['core', 'loader']);
        for (const pkg of sources) {
          const name = (
            JSON.parse(fs.readFileSync(path.join(repoRoot, d.folder, 'packages', pkg, 'package.json'), 'utf8')) as {
              name: string;
            }
          ).name;
          expect(runs, `npm run build:browser of ${name}`).to.match(
            new RegExp(`npm run build:browser( -w \\S+)* -w ${name.replace(/[/@]/g, '\\$&')}\\b`),
          );
        }
        expect(runs.indexOf(assemble!), `${assemble} after the packages' builds`).to.be.greaterThan(
          runs.lastIndexOf('npm run build:browser'),
        );
      });

      it('copies only the assembled CDN directory from the build, and only nginx.conf from the context', () => {
        const final = resolved().at(-1)!;
        const copies = final.body.filter((i) => i.keyword === 'COPY' || i.keyword === 'ADD');
        const sources = (i: Instruction) =>
          i.args
            .split(/\s+/)
            .filter((tok) => !tok.startsWith('--'))
            .slice(0, -1);
        const workdir =
          buildStage()
            .body.filter((i) => i.keyword === 'WORKDIR')
            .at(-1)?.args ?? '/';
        expect(copies.filter((i) => /--from=/.test(i.args)).flatMap(sources)).to.deep.equal([
          path.posix.join(workdir, d.folder, 'dist', 'widget'),
        ]);
        expect(copies.filter((i) => !/--from=/.test(i.args)).flatMap(sources)).to.deep.equal([
          `${d.folder}/nginx.conf`,
        ]);
      });
    });
  }
});
