import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * Repository paths cited in Markdown (backticked and in links) that do not exist. A backticked token is a path when it
 * has a `/` and its first segment is an entry of the repository root or of the Markdown file's folder (`src/…` in
 * `mesh/README.md` is `mesh/src/…`); anything else (`application/json`, `/graphql`, `svc.inbox.v1`) is prose.
 * `*`, `<name>`, `{service}` and `…` stand for any name. Paths under what a `.gitignore` lists (`dist/`, `.data/`) are
 * build or run output: only the part before it is checked. A backticked `../` path that leaves the repository is
 * skipped (the text says it is outside); a Markdown link that leaves it is an error (it breaks wherever the
 * repository is read alone).
 */
export interface BrokenCitation {
  /** The Markdown file, relative to the repository root. */
  file: string;
  line: number;
  cited: string;
  reason: 'missing' | 'outside the repository';
}

const SKIPPED_DIRS = new Set(['node_modules', '.git']);
const PLACEHOLDER = /[*<>{}…]/;
const PATH_TOKEN = /^(\.{1,2}\/)*[\w.@*<>{}…-]+(\/[\w.@*<>{}…-]*)+$/;
const LINK = /\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g;
const CODE_SPAN = /`([^`]+)`/g;

export function brokenCitations(root: string): BrokenCitation[] {
  const ignored = gitIgnored(root);
  return findFiles(root, (name) => name.endsWith('.md'))
    .filter((file) => !ignored.ignores(path.relative(root, file)))
    .flatMap((file) => brokenIn(root, file, ignored));
}

/** The broken citations of one Markdown file (absolute path) of the repository at `root`. */
export function brokenIn(root: string, file: string, ignored = gitIgnored(root)): BrokenCitation[] {
  const broken: BrokenCitation[] = [];
  const dir = path.dirname(file);
  const report = (line: number, cited: string, reason: BrokenCitation['reason']) =>
    broken.push({ file: path.relative(root, file), line, cited, reason });
  let fenced = false;
  fs.readFileSync(file, 'utf8')
    .split('\n')
    .forEach((text, index) => {
      if (/^\s*(```|~~~)/.test(text)) fenced = !fenced;
      if (fenced) return;
      const line = index + 1;
      for (const [, target = ''] of text.matchAll(LINK)) {
        if (/^([a-z][a-z+.-]*:|#)/i.test(target)) continue;
        const cited = decodeURI(target.split('#')[0] ?? '');
        if (!cited) continue;
        const resolved = path.resolve(cited.startsWith('/') ? root : dir, cited.replace(/^\//, ''));
        if (!inside(root, resolved)) report(line, cited, 'outside the repository');
        else if (!exists(root, resolved, ignored)) report(line, cited, 'missing');
      }
      for (const [, span = ''] of text.replace(LINK, '').matchAll(CODE_SPAN))
        for (const token of span.split(/\s+/)) {
          const cited = token.replace(/[.,;:)]+$/, '');
          if (!PATH_TOKEN.test(cited)) continue;
          const bases = /^\.\.?\//.test(cited)
            ? [dir]
            : [dir, root].filter((base) => hasEntry(base, cited) || ignored.ignores(firstSegment(root, base, cited)));
          if (!bases.length) continue;
          const resolved = bases.map((base) => path.resolve(base, cited));
          if (cited.startsWith('../') && resolved.every((p) => !inside(root, p))) continue;
          if (!resolved.some((p) => inside(root, p) && exists(root, p, ignored))) report(line, cited, 'missing');
        }
    });
  return broken;
}

function hasEntry(base: string, cited: string): boolean {
  const first = cited.split('/')[0] ?? '';
  return !PLACEHOLDER.test(first) && fs.existsSync(path.join(base, first));
}

/** The cited path's first segment under `base`, relative to the root. */
function firstSegment(root: string, base: string, cited: string): string {
  return path.relative(root, path.join(base, cited.split('/')[0] ?? ''));
}

function inside(root: string, resolved: string): boolean {
  const relative = path.relative(root, resolved);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/**
 * Whether the path exists, each placeholder segment matching any entry, up to the first build or run output; the last
 * segment may abbreviate a numbered name (`docs/decisions/0006` for `0006-gateway-composition.md`).
 */
function exists(root: string, resolved: string, ignored: IgnoreRules): boolean {
  const segments = path.relative(root, resolved).split(path.sep).filter(Boolean);
  let candidates = [root];
  for (const [index, segment] of segments.entries()) {
    if (ignored.ignores(path.relative(root, path.join(candidates[0] ?? root, segment)))) return true;
    const pattern = segmentPattern(segment, index === segments.length - 1);
    candidates = candidates.flatMap((dir) =>
      entries(dir)
        .filter((name) => pattern.test(name))
        .map((name) => path.join(dir, name)),
    );
    if (!candidates.length) return false;
  }
  return true;
}

function segmentPattern(segment: string, last: boolean): RegExp {
  const source = segment
    .split(/(\*|<[^>]*>|\{[^}]*\}|…)/)
    .map((part, i) => (i % 2 ? '.*' : part.replace(/[.+?^$()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}${last && /^\d+$/.test(segment) ? '(-.*)?' : ''}$`);
}

function entries(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

/** What the repository's `.gitignore` files list: build and run output that a clean checkout does not have. */
interface IgnoreRules {
  ignores(relativePath: string): boolean;
}

function gitIgnored(root: string): IgnoreRules {
  const rules = findFiles(root, (name) => name === '.gitignore').map((file) => {
    const dir = path.relative(root, path.dirname(file));
    const lines = fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .map((line) => line.trim().replace(/^\//, ''))
      .filter((line) => line && !line.startsWith('#') && !line.includes('*'));
    const isPath = (line: string) => line.replace(/\/$/, '').includes('/');
    return {
      dir,
      names: new Set(lines.filter((line) => !isPath(line)).map((line) => line.replace(/\/$/, ''))),
      paths: lines.filter(isPath).map((line) => line.replace(/\/?$/, '/')),
    };
  });
  return {
    ignores: (relativePath) =>
      rules.some(({ dir, names, paths }) => {
        if (dir && !`${relativePath}/`.startsWith(`${dir}/`)) return false;
        const below = dir ? relativePath.slice(dir.length + 1) : relativePath;
        return below.split('/').some((segment) => names.has(segment)) || paths.some((p) => `${below}/`.startsWith(p));
      }),
  };
}

function findFiles(root: string, wanted: (name: string) => boolean): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) walk(full);
      } else if (wanted(entry.name)) found.push(full);
    }
  };
  walk(root);
  return found.sort();
}
