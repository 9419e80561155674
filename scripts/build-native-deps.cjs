#!/usr/bin/env node
// Builds better-sqlite3 from source against the headers of the Node that runs this script.
//
// Why by hand: the package's own install script tries a prebuilt download and then lets node-gyp download Node's
// headers; neither host is reachable here, so package.json denies that script (allowScripts) and this postinstall
// step builds it with `nodedir` set to the running Node's install prefix, which ships `include/node`.
// The compiled addon is cached per (package version, Node ABI) so a clean clone does not recompile.
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const packageDir = path.join(root, 'node_modules', 'better-sqlite3');
const addonPath = path.join(packageDir, 'build', 'Release', 'better_sqlite3.node');

function loads() {
  try {
    const Database = require(packageDir);
    new Database(':memory:').prepare('select 1').get();
    return true;
  } catch {
    return false;
  }
}

function nodeGypScript() {
  if (process.env.npm_config_node_gyp) return process.env.npm_config_node_gyp;
  const npmDir = path.join(path.dirname(process.execPath), '..', 'lib', 'node_modules', 'npm');
  return require.resolve('node-gyp/bin/node-gyp.js', { paths: [npmDir, root] });
}

function main() {
  if (!fs.existsSync(packageDir)) return;
  if (loads()) return;
  const version = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8')).version;
  const cacheDir = path.join(
    process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'),
    'svc-inbox',
    `better-sqlite3-${version}-abi${process.versions.modules}-${process.platform}-${process.arch}`,
  );
  const cached = path.join(cacheDir, 'better_sqlite3.node');
  if (fs.existsSync(cached)) {
    fs.mkdirSync(path.dirname(addonPath), { recursive: true });
    fs.copyFileSync(cached, addonPath);
    if (loads()) return;
  }
  const nodedir = path.dirname(path.dirname(process.execPath));
  if (!fs.existsSync(path.join(nodedir, 'include', 'node', 'node.h'))) {
    throw new Error(`Node headers not found under ${nodedir}/include/node; install the Node development headers`);
  }
  console.log(`building better-sqlite3 ${version} from source against ${nodedir} (about a minute)…`);
  execFileSync(process.execPath, [nodeGypScript(), 'rebuild', '--release'], {
    cwd: packageDir,
    stdio: 'inherit',
    env: { ...process.env, npm_config_nodedir: nodedir },
  });
  if (!loads()) throw new Error('better-sqlite3 was built but does not load');
  fs.mkdirSync(cacheDir, { recursive: true });
  fs.copyFileSync(addonPath, cached);
}

main();
