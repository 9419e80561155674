import { z } from 'zod';
import { parseKeys } from './keyring';

export const SECRET_KEYS_FORMAT = 'comma-separated <keyId>:<base64 of 32 random bytes>, the first one encrypts';

/** A key-list setting (e.g. WEBHOOK_SECRETS_KEYS): optional, and when set every entry must parse. */
export const secretKeysSetting = z
  .string()
  .optional()
  .superRefine((value, ctx) => {
    if (!value) return;
    try {
      parseKeys(value);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: `${(error as Error).message} (${SECRET_KEYS_FORMAT})` });
    }
  });
