import { randomBytes } from 'node:crypto';
import { hashPassword, passwordMatches } from '../users/password-hashing';
import { User } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import { accountThrottleKey, addressThrottleKey, normalisedEmail } from './client-address';
import { LoginThrottle, ThrottleLimit } from './login-throttle';

/** Checks a password against a stored hash (Argon2id; replaceable in tests). */
export type PasswordVerifier = (storedHash: string, password: string) => Promise<boolean>;

export type SignInResult =
  | { outcome: 'succeeded'; user: User }
  | { outcome: 'failed' }
  | { outcome: 'throttled'; limit: ThrottleLimit; retryAfterSeconds: number };

/**
 * A sign-in with email and password (ADR 0014, 0017): the try is counted against the client
 * address and the account first, then the password is checked; a success gives the try back.
 * A wrong password, an unknown email and an email no user can have (NUL, lone surrogate,
 * overlong) are the same failure, counted the same and taking the same time.
 */
export class PasswordSignIn {
  /** Checked when no user has the email, so the answer takes as long either way. */
  private readonly absentUserHash = hashPassword(randomBytes(32).toString('base64'));

  constructor(
    private readonly users: UsersService,
    private readonly throttle: LoginThrottle,
    private readonly verify: PasswordVerifier = passwordMatches,
  ) {}

  async attempt(input: {
    email: string;
    password: string;
    address: string;
  }): Promise<SignInResult> {
    const reserved = await this.throttle.reserve({
      account: accountThrottleKey(input.email),
      address: addressThrottleKey(input.address),
    });
    if (!reserved.allowed) {
      return {
        outcome: 'throttled',
        limit: reserved.limit,
        retryAfterSeconds: reserved.retryAfterSeconds,
      };
    }
    const email = normalisedEmail(input.email);
    const user = email === null ? null : await this.users.findByEmail(email);
    const matches = await this.verify(
      user?.passwordHash ?? (await this.absentUserHash),
      input.password,
    );
    if (!user || !matches) {
      return { outcome: 'failed' };
    }
    await this.throttle.refund(reserved.reservations);
    return { outcome: 'succeeded', user };
  }
}
