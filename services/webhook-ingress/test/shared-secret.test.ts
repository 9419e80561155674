import { expect } from 'chai';
import bcrypt from 'bcrypt';
import { newId } from '@svc/kit';
import { VerificationBusy } from '../src/auth/bcrypt-slots';
import { SharedSecretVerifier } from '../src/auth/shared-secret';
import { settle, watchBcrypt } from './bcrypt-stub';

describe('WebhookIngress.SharedSecretVerifier bcrypt budget', () => {
  let hash: string;
  let bcryptWatch: ReturnType<typeof watchBcrypt> | undefined;

  before(async () => {
    hash = await bcrypt.hash('right-secret', 4);
  });
  afterEach(() => bcryptWatch?.restore());

  it('makes a correct secret wait for a busy slot and then verifies it', async () => {
    bcryptWatch = watchBcrypt({ held: true });
    const verifier = new SharedSecretVerifier(1, 4);
    const connectionId = newId();
    const occupying = verifier.verify(connectionId, 1, hash, 'wrong-secret');
    let answer: boolean | undefined;
    const waiting = verifier.verify(connectionId, 1, hash, 'right-secret').then((ok) => (answer = ok));
    await settle();
    expect(answer, 'answered before a slot was free').to.equal(undefined);
    expect(bcryptWatch.stats.calls).to.equal(1);
    bcryptWatch.release();
    expect(await occupying).to.equal(false);
    expect(await waiting).to.equal(true);
  });

  it('refuses as busy, not as a mismatch, when every slot is taken and the line is full', async () => {
    bcryptWatch = watchBcrypt({ held: true });
    const verifier = new SharedSecretVerifier(1, 1);
    const connectionId = newId();
    const occupying = verifier.verify(connectionId, 1, hash, 'wrong-secret');
    const inLine = verifier.verify(connectionId, 1, hash, 'another-wrong-secret');
    const overflow = await verifier.verify(connectionId, 1, hash, 'right-secret').then(
      () => 'answered',
      (error: unknown) => error,
    );
    expect(overflow).to.be.instanceOf(VerificationBusy);
    bcryptWatch.release();
    expect([await occupying, await inLine]).to.deep.equal([false, false]);
    // Refused as busy, nothing was remembered: the sender's retry is compared and passes.
    expect(await verifier.verify(connectionId, 1, hash, 'right-secret')).to.equal(true);
  });

  it('runs at most `concurrency` bcrypt comparisons at once for a flood of wrong secrets', async () => {
    bcryptWatch = watchBcrypt();
    const verifier = new SharedSecretVerifier(2, 64);
    const connectionId = newId();
    const results = await Promise.all(
      Array.from({ length: 24 }, (_, i) => verifier.verify(connectionId, 1, hash, `wrong-${i}`)),
    );
    expect(results.every((ok) => ok === false)).to.equal(true);
    expect(bcryptWatch.stats.calls).to.equal(24);
    expect(bcryptWatch.stats.mostAtOnce).to.equal(2);
  });
});
