import { expect } from 'chai';
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../../../..');
/** Config modules read the environment through their zod schema; test helpers (`testing.ts`) pick their test setup. */
const MAY_READ_ENV = new Set(['config.ts', 'load-config.ts', 'testing.ts']);
/**
 * `process.env.X`, `process.env['X']`, `process.env?.X`, or the environment kept for later reads (`env = process.env`,
 * `const { X } = process.env`). Passing it whole to a config loader (`ingressConfig(process.env)`) is the zod path.
 */
const SINGLE_READ = /process\.env\s*(?:\?\.|\.|\[)|=\s*process\.env\b/;

function sources(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

describe('kit.config: every environment variable goes through a zod config', () => {
  it('has no process.env read outside config modules in services/*/src and mesh/src', () => {
    const roots = [
      ...fs.readdirSync(path.join(ROOT, 'services')).map((service) => path.join(ROOT, 'services', service, 'src')),
      path.join(ROOT, 'mesh', 'src'),
    ];
    const files = roots.flatMap(sources);
    expect(files.length, 'source files scanned').to.be.greaterThan(50);
    const reads = files
      .filter((file) => !MAY_READ_ENV.has(path.basename(file)))
      .flatMap((file) =>
        fs
          .readFileSync(file, 'utf8')
          .split('\n')
          .flatMap((line, index) =>
            SINGLE_READ.test(line) ? [`${path.relative(ROOT, file)}:${index + 1}: ${line.trim()}`] : [],
          ),
      );
    expect(reads, 'add the variable to the service’s zod config schema instead').to.deep.equal([]);
  });
});
