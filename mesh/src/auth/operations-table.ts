import * as fs from 'node:fs';
import * as path from 'node:path';
import { ALL_SCOPES } from '@svc/kit';

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

/** A scope needed on top of the row's when an argument holds a value: `NOTES_WRITE when input.internal is true`. */
export interface ArgumentScope {
  scope: string;
  /** Argument name, then input field names. */
  path: string[];
  value: boolean;
}

export interface OperationRule {
  operation: string;
  kind: 'Q' | 'M';
  requirement: Requirement;
  /** TECH_PROVIDER orgs only (PARTNER_ADMIN rows). */
  techProviderOnly: boolean;
  argumentScope?: ArgumentScope;
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
    const argumentScope = parseArgumentScope(also);
    return {
      operation,
      kind,
      requirement,
      techProviderOnly: also.includes('TECH_PROVIDER only'),
      ...(argumentScope ? { argumentScope } : {}),
    };
  });
}

const SCOPE_NAMES = new Set(ALL_SCOPES.map(String));
const ARGUMENT_SCOPE = /^([A-Z_]+) when ([A-Za-z]\w*(?:\.[A-Za-z]\w*)*) is (true|false)$/;

/**
 * The `also` column's argument condition. Any `also` that names a scope must be exactly of that form: a sentence
 * this parser does not understand would otherwise be a rule nobody enforces.
 */
function parseArgumentScope(also: string): ArgumentScope | undefined {
  const text = also.trim();
  if (!text.split(/\W+/).some((word) => SCOPE_NAMES.has(word))) return undefined;
  const match = ARGUMENT_SCOPE.exec(text);
  if (!match || !SCOPE_NAMES.has(match[1] as string))
    throw new Error(
      `unrecognised "also" condition "${also}": write it as "<SCOPE> when <argument.path> is true|false"`,
    );
  return { scope: match[1] as string, path: (match[2] as string).split('.'), value: match[3] === 'true' };
}

export function loadOperationsTable(dir = MESH_ROOT): Map<string, OperationRule> {
  const rows = [...parseTsv(path.join(dir, 'operations.tsv')), ...parseTsv(path.join(dir, 'operations.local.tsv'))];
  return new Map(rows.map((row) => [row.operation, row]));
}
