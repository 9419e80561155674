#!/usr/bin/env node
// Builds the framework example apps against the wrapper packages as a consumer gets them: every local package is
// packed (`npm pack`) into .packs/, each app installs those tarballs from its own lockfile (`npm ci`) and builds with
// its framework's own tooling. Usage: node widget-stencil/examples/build.mjs [app …] (default: all). Needs the root
// `npm run build` first (the root workspaces' dist). Prints each app's dist directory.
//
// Caching (CI runs on the same machine): an app's `npm ci` is skipped while its lockfile and the tarballs it uses are
// unchanged (a stamp in node_modules), and its build while its sources are unchanged too (a stamp in dist). The lock
// files carry no integrity for the local tarballs, so `npm ci` unpacks the current tarball rather than a cached one.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const EXAMPLES = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(EXAMPLES, '../..');
const PACKAGES = join(EXAMPLES, '../packages');
const PACKS = join(EXAMPLES, '.packs');
/** app → where its build writes the static site. */
export const APPS = {
  react18: 'dist',
  react19: 'dist',
  vue: 'dist',
  angular: 'dist/browser',
  ember: 'dist',
};
/** Root workspaces whose tarballs the apps (and the Angular build) install: the wrappers, core and what core needs. */
const WORKSPACES = ['core', 'react', 'vue', ...localDependencies(join(PACKAGES, 'core'))];
const SKIP = new Set(['node_modules', 'dist', '.angular', 'tmp', '.packs']);
const INSTALL = ['ci', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'];

function run(command, args, cwd) {
  // Quiet unless it fails: then the tool's whole output goes to stderr (stdout says only where the sites are).
  try {
    execFileSync(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', maxBuffer: 64 << 20 });
  } catch (error) {
    process.stderr.write(`${error.stdout ?? ''}${error.stderr ?? ''}`);
    throw new Error(`${command} ${args.join(' ')} failed in ${relative(ROOT, cwd) || '.'}`);
  }
}

/** A hash of files and directories (directories recursively, without installs and outputs). */
function hashOf(paths) {
  const hash = createHash('sha256');
  const add = (path) => {
    if (statSync(path).isDirectory()) {
      for (const name of readdirSync(path).sort()) if (!SKIP.has(name)) add(join(path, name));
    } else {
      hash.update(relative(ROOT, path)).update(readFileSync(path));
    }
  };
  for (const path of paths) add(path);
  return hash.digest('hex');
}

/** The `@svc-inbox/widget-<name>` packages a package depends on, as directory names under packages/. */
function localDependencies(dir) {
  const { dependencies = {} } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  return Object.keys(dependencies)
    .filter((name) => name.startsWith('@svc-inbox/widget-'))
    .map((name) => name.slice('@svc-inbox/widget-'.length));
}

function stamped(file, value) {
  return existsSync(file) && readFileSync(file, 'utf8') === value;
}

/** The local tarballs a package.json installs (`file:` specs under .packs/). */
function localPacks(dir) {
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const specs = Object.values({ ...manifest.dependencies, ...manifest.devDependencies });
  return specs.filter((spec) => spec.startsWith('file:')).map((spec) => resolve(dir, spec.slice('file:'.length)));
}

/** `npm ci` unless the lockfile and the local tarballs are what node_modules was installed from. */
function install(dir) {
  const stamp = join(dir, 'node_modules/.svc-install-stamp');
  const value = hashOf([join(dir, 'package-lock.json'), ...localPacks(dir)]);
  if (stamped(stamp, value)) return value;
  run('npm', INSTALL, dir);
  writeFileSync(stamp, value);
  return value;
}

function pack(dir) {
  run('npm', ['pack', dir, '--pack-destination', PACKS, '--loglevel=error'], ROOT);
}

/** @svc-inbox/widget-angular: partial compilation by ng-packagr, with tooling installed from its own lockfile. */
function packAngular() {
  const dir = join(PACKAGES, 'angular');
  const tooling = join(dir, 'tooling');
  const installed = install(tooling);
  // ng-packagr compiles src/ from the package directory; its imports resolve through the tooling's install.
  if (!existsSync(join(dir, 'node_modules'))) symlinkSync('tooling/node_modules', join(dir, 'node_modules'));
  const stamp = join(dir, 'dist/.svc-build-stamp');
  const value =
    hashOf([join(dir, 'src'), join(dir, 'package.json'), join(dir, 'ng-package.json'), join(dir, 'README.md')]) +
    installed;
  if (!stamped(stamp, value)) {
    run(join(tooling, 'node_modules/.bin/ng-packagr'), ['-p', 'ng-package.json', '-c', 'tsconfig.lib.json'], dir);
    writeFileSync(stamp, value);
  }
  pack(join(dir, 'dist'));
}

function packAll(apps) {
  mkdirSync(PACKS, { recursive: true });
  for (const name of WORKSPACES) pack(join(PACKAGES, name));
  if (apps.includes('ember')) pack(join(PACKAGES, 'ember'));
  if (apps.includes('angular')) packAngular();
}

/** Installs and builds one app; answers its static site directory. */
export function buildApp(app) {
  const dir = join(EXAMPLES, app);
  const installed = install(dir);
  const out = join(dir, APPS[app]);
  const stamp = join(dir, 'dist/.svc-build-stamp');
  const value = hashOf([dir]) + installed;
  if (!stamped(stamp, value)) {
    rmSync(join(dir, 'dist'), { recursive: true, force: true });
    run('npm', ['run', 'build', '--silent'], dir);
    writeFileSync(stamp, value);
  }
  return out;
}

/** `--lock`: after a dependency change, `npm install` an app and drop the local tarballs' integrity from its lock. */
function relock(dir) {
  const file = join(dir, 'package-lock.json');
  const local = (entry) => entry.resolved?.startsWith('file:');
  const edit = (change) => {
    if (!existsSync(file)) return;
    const lock = JSON.parse(readFileSync(file, 'utf8'));
    change(lock.packages);
    writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
  };
  // npm keeps a tarball's recorded manifest while name and version match: forget them so it reads the new ones.
  edit((packages) => {
    for (const [path, entry] of Object.entries(packages)) if (local(entry)) delete packages[path];
  });
  run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], dir);
  edit((packages) => {
    for (const entry of Object.values(packages)) if (local(entry)) delete entry.integrity;
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const relocking = process.argv[2] === '--lock';
  const named = process.argv.slice(relocking ? 3 : 2);
  const apps = named.length > 0 ? named : Object.keys(APPS);
  for (const app of apps) if (!(app in APPS)) throw new Error(`unknown app ${app}; one of ${Object.keys(APPS)}`);
  if (relocking) {
    mkdirSync(PACKS, { recursive: true });
    for (const name of WORKSPACES) pack(join(PACKAGES, name));
    if (apps.includes('angular')) relock(join(PACKAGES, 'angular/tooling'));
  }
  packAll(apps);
  for (const app of apps) {
    if (relocking) relock(join(EXAMPLES, app));
    console.log(buildApp(app));
  }
}
