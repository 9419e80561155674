import { InvalidArgument } from '@svc/kit';

export const MAX_NAME_LENGTH = 200;
export const MAX_DESCRIPTION_LENGTH = 2000;

export function checkName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed || trimmed.length > MAX_NAME_LENGTH)
    throw new InvalidArgument(`name must be 1-${MAX_NAME_LENGTH} characters`, { field: 'name' });
  return trimmed;
}

/** Trimmed; empty (or unset) means none. */
export function checkDescription(description: string | undefined): string | null {
  const trimmed = description?.trim() ?? '';
  if (trimmed.length > MAX_DESCRIPTION_LENGTH)
    throw new InvalidArgument(`description must be at most ${MAX_DESCRIPTION_LENGTH} characters`, {
      field: 'description',
    });
  return trimmed || null;
}
