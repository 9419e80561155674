import * as path from 'node:path';
import { migrationsCli } from '@svc/kit';
import { partnerData } from '../data';

migrationsCli('partner', partnerData, path.resolve(__dirname, '../../../src/migrations'), process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
