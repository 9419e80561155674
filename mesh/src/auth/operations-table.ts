import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * Who may call each root field. Read from `operations.tsv` (the spec's table, copied verbatim and checked against
 * ../shared/spec in CI) plus `operations.local.tsv` (login/logout, which the spec's table does not list).
 * A root field with no row is denied.
 */
export type Requirement =
  | { kind: 'scope'; scope: string }
  /** Only a dashboard member session (never an API key). */
  | { kind: 'dashboard-only' }
  /** Any authenticated dashboard session. */
  | { kind: 'session' }
  /** No credentials needed (login). */
  | { kind: 'public' };

export interface OperationRule {
  operation: string;
  kind: 'Q' | 'M';
  requirement: Requirement;
  /** TECH_PROVIDER orgs only (PARTNER_ADMIN rows). */
  techProviderOnly: boolean;
}

export const MESH_ROOT = path.resolve(__dirname, '..', '..', '..');

function parseTsv(file: string): OperationRule[] {
  const lines = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim());
  return lines.slice(1).map((line) => {
    const [operation, kind, scope, , also = ''] = line.split('\t');
    if (!operation || (kind !== 'Q' && kind !== 'M') || !scope) throw new Error(`bad row in ${file}: ${line}`);
    const requirement: Requirement =
      scope === 'DASHBOARD_ONLY'
        ? { kind: 'dashboard-only' }
        : scope === 'PUBLIC'
          ? { kind: 'public' }
          : scope === 'SESSION'
            ? { kind: 'session' }
            : { kind: 'scope', scope };
    return { operation, kind, requirement, techProviderOnly: also.includes('TECH_PROVIDER only') };
  });
}

export function loadOperationsTable(dir = MESH_ROOT): Map<string, OperationRule> {
  const rows = [...parseTsv(path.join(dir, 'operations.tsv')), ...parseTsv(path.join(dir, 'operations.local.tsv'))];
  return new Map(rows.map((row) => [row.operation, row]));
}
