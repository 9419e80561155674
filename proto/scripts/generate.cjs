#!/usr/bin/env node
// Regenerates proto/gen from proto/svc with protoc (npm `protoc`, binary shipped in its tarball) and ts-proto.
// `--check` regenerates into a temporary folder and fails if proto/gen differs: generated code is never edited.
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const protoRoot = path.resolve(__dirname, '..');
const checkOnly = process.argv.includes('--check');

function protoFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return protoFiles(full);
    return entry.name.endsWith('.proto') ? [path.relative(protoRoot, full)] : [];
  });
}

function generate(outDir) {
  fs.rmSync(outDir, { recursive: true, force: true });
  fs.mkdirSync(outDir, { recursive: true });
  const protoc = require.resolve('protoc/protoc.cjs');
  const plugin = path.join(path.dirname(require.resolve('ts-proto/package.json')), 'protoc-gen-ts_proto');
  const options = [
    'outputServices=grpc-js',
    'useJsonName=true',
    'stringEnums=true',
    'esModuleInterop=true',
    'env=node',
    'useOptionals=none',
    'exportCommonSymbols=false',
    'outputIndex=false',
  ].join(',');
  execFileSync(
    process.execPath,
    [
      protoc,
      `--plugin=protoc-gen-ts_proto=${plugin}`,
      `--ts_proto_out=${outDir}`,
      `--ts_proto_opt=${options}`,
      `-I${protoRoot}`,
      ...protoFiles(path.join(protoRoot, 'svc')),
    ],
    { cwd: protoRoot, stdio: 'inherit' },
  );
}

function listFiles(dir) {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath ?? e.path, e.name)))
    .sort();
}

if (checkOnly) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-proto-'));
  generate(tmp);
  const genDir = path.join(protoRoot, 'gen');
  const fresh = listFiles(tmp);
  const current = fs.existsSync(genDir) ? listFiles(genDir) : [];
  const stale = fresh.filter(
    (f) => !current.includes(f) || fs.readFileSync(path.join(tmp, f), 'utf8') !== fs.readFileSync(path.join(genDir, f), 'utf8'),
  );
  const extra = current.filter((f) => !fresh.includes(f));
  fs.rmSync(tmp, { recursive: true, force: true });
  if (stale.length || extra.length) {
    console.error(`proto/gen is stale (${[...stale, ...extra].join(', ')}); run \`npm run proto:generate\``);
    process.exit(1);
  }
  console.log('proto/gen is up to date');
} else {
  generate(path.join(protoRoot, 'gen'));
  console.log('generated proto/gen');
}
