import { randomBytes } from 'node:crypto';
import bcrypt from 'bcrypt';
import { InvalidArgument } from '@svc/kit';

/** Member passwords are chosen by people, so they get a slow hash (bcrypt). */
export class Passwords {
  constructor(private readonly cost: number) {}

  hash(password: string): Promise<string> {
    if (password.length < 10 || password.length > 72) {
      throw new InvalidArgument('password must be 10 to 72 characters long', { field: 'password' });
    }
    return bcrypt.hash(password, this.cost);
  }

  verify(password: string, hash: string): Promise<boolean> {
    return bcrypt.compare(password, hash);
  }

  /** A one-time password shown once to whoever creates the member. */
  generate(): string {
    return randomBytes(18).toString('base64url');
  }
}
