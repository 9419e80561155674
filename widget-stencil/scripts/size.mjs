// `npm run size`: gzip and brotli sizes of what a visitor downloads, against the budgets of the issue (decision
// 0113): loader.js ≤ 2048 B gzip; the widget's first paint (widget.js, its static imports, the default locale's
// chunk: first-paint.mjs) ≤ 25 600 B gzip. Reads the assembled CDN directory (`npm run build` first). Sizes are of
// the bytes built here, compressed at the highest levels (gzip 9, brotli 11): deterministic, so CI can fail on them.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { cdnDir, widgetStencil } from './assets.mjs';
import { firstPaintFiles } from './first-paint.mjs';

export const BUDGETS = { loader: 2048, widget: 25_600 };

function sizes(file) {
  const bytes = fs.readFileSync(path.join(cdnDir, file));
  return {
    file,
    raw: bytes.length,
    gzip: gzipSync(bytes, { level: 9 }).length,
    brotli: brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
  };
}

function report(title, budget, rows) {
  const total = rows.reduce(
    (sum, row) => ({ raw: sum.raw + row.raw, gzip: sum.gzip + row.gzip, brotli: sum.brotli + row.brotli }),
    {
      raw: 0,
      gzip: 0,
      brotli: 0,
    },
  );
  const pad = (value, width) => String(value).padStart(width);
  console.log(`\n${title}`);
  console.log(`  ${'file'.padEnd(32)} ${pad('raw', 8)} ${pad('gzip', 8)} ${pad('brotli', 8)}`);
  for (const row of rows)
    console.log(`  ${row.file.padEnd(32)} ${pad(row.raw, 8)} ${pad(row.gzip, 8)} ${pad(row.brotli, 8)}`);
  const over = total.gzip > budget;
  console.log(
    `  ${'total'.padEnd(32)} ${pad(total.raw, 8)} ${pad(total.gzip, 8)} ${pad(total.brotli, 8)}   budget ${budget} B gzip: ${over ? 'OVER' : 'ok'}`,
  );
  return !over;
}

let ok = true;
if (!fs.existsSync(path.join(cdnDir, 'loader.js'))) {
  console.error(`size: ${path.join(cdnDir, 'loader.js')} is missing: run npm run build first`);
  process.exit(1);
}
ok = report('loader.js', BUDGETS.loader, [sizes('loader.js')]) && ok;

if (fs.existsSync(path.join(cdnDir, 'widget.js'))) {
  const { files, dynamic } = await firstPaintFiles(cdnDir, 'widget.js');
  ok = report('widget, before its first paint', BUDGETS.widget, files.map(sizes)) && ok;
  console.log(`  loaded later, not counted: ${dynamic.length} chunks`);
} else if (fs.existsSync(path.join(widgetStencil, 'packages', 'core'))) {
  console.error('size: widget.js is missing although packages/core exists: its build:browser failed?');
  ok = false;
} else {
  console.log('\nwidget: NOT MEASURED: packages/core (the svc-widget build) is not in this checkout');
}

if (!ok) {
  console.error('\nsize: a budget is exceeded');
  process.exit(1);
}
