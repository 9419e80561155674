// What the widget loads before its first paint, read from the built files themselves (no chunk name is written
// down anywhere): widget.js, every module it imports statically (transitively), and the default locale's chunk, one of
// the modules it imports dynamically, with that chunk's own static imports. A lazy chunk is a locale's when its name
// starts with the tag (`en.<hash>.js`) or when the import() is that tag's value in an object of loaders
// (`{en:()=>import("./chunk.<hash>.js"),…}`, what packages/core's strings.ts compiles to). es-module-lexer is the lexer Vite and
// esbuild's ecosystem use for exactly this (github.com/guybedford/es-module-lexer).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { init, parse } from 'es-module-lexer';

/** The locale every shipped widget falls back to (BCP-47 fallback ends there), so the one a first paint needs. */
export const DEFAULT_LOCALE = 'en';

/**
 * `{ files, dynamic }`: the files (relative to `dir`) loaded before the first paint starting at `entry`, in the order
 * found; `dynamic` lists the modules only imported lazily (locale chunks among them). Throws when `entry` or a
 * statically imported module is missing, or no lazy chunk is named after `locale`.
 */
/** `en:()=>` or `"pt-BR":function(){return ` right before an `import(`: the key it is loaded under. */
const LOADER_KEY =
  /["']?([A-Za-z]{2,3}(?:-[A-Za-z0-9]+)*)["']?\s*:\s*(?:\(\)\s*=>\s*|function\s*\(\)\s*\{\s*return\s+)$/;

export async function firstPaintFiles(dir, entry, locale = DEFAULT_LOCALE) {
  await init;
  const files = [];
  const dynamic = new Set();
  const localeOf = new Map();
  const walk = (file) => {
    if (files.includes(file)) return;
    const full = path.join(dir, file);
    if (!fs.existsSync(full)) throw new Error(`${file}: missing (imported before the first paint)`);
    files.push(file);
    const source = fs.readFileSync(full, 'utf8');
    const [imports] = parse(source, file);
    for (const entry of imports) {
      // Only relative specifiers are the widget's own files; a bare or absolute one would not be on the CDN.
      if (!entry.specifier || !entry.specifier.startsWith('.')) continue;
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), entry.specifier));
      if (entry.type === 'dynamic') {
        dynamic.add(target);
        const key = LOADER_KEY.exec(source.slice(Math.max(0, entry.importStart - 80), entry.importStart));
        if (key) localeOf.set(target, key[1]);
      } else walk(target);
    }
  };
  walk(entry);
  const lazy = [...dynamic].filter((file) => !files.includes(file));
  const named = new RegExp(`^${locale}[.-][^/]*\\.js$`);
  const localeChunk = lazy.find((file) => localeOf.get(file) === locale || named.test(path.posix.basename(file)));
  if (!localeChunk) {
    throw new Error(
      `no lazily imported chunk named after locale "${locale}" (lazy chunks: ${lazy.join(', ') || 'none'})`,
    );
  }
  walk(localeChunk);
  return { files, dynamic: lazy.filter((file) => !files.includes(file)) };
}
