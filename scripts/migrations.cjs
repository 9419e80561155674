#!/usr/bin/env node
// Runs every service's migration tool: `check` (CI: fails when entities changed without a migration) or
// `generate <Name>`. The SQLite family always; the MySQL family when MIGRATIONS_MYSQL_URL names a server.
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const servicesDir = path.join(root, 'services');
const tools = fs
  .readdirSync(servicesDir)
  .map((name) => path.join(servicesDir, name, 'dist', 'src', 'cli', 'migrations.js'))
  .filter((file) => fs.existsSync(file));
if (!tools.length) {
  console.error('no built migration tools found; run `npm run build` first');
  process.exit(1);
}
let failed = false;
for (const tool of tools) {
  try {
    execFileSync(process.execPath, [tool, ...process.argv.slice(2)], { stdio: 'inherit' });
  } catch {
    failed = true;
  }
}
process.exit(failed ? 1 : 0);
