import * as path from 'node:path';
import { migrationsCli } from '@svc/kit';
import { contentData } from '../data';

migrationsCli('content', contentData, path.resolve(__dirname, '../../../src/migrations'), process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
