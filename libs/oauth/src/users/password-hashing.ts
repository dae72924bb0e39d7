import { hash, verify } from '@node-rs/argon2';

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 1024;

/**
 * Argon2id, memory-hard, with the library's defaults (19 MiB, 2 passes, 1 lane: OWASP's
 * recommended minimum). The PHC string carries its parameters, so they can be raised later
 * without breaking existing hashes.
 */
export function hashPassword(password: string): Promise<string> {
  return hash(password);
}

export async function passwordMatches(storedHash: string, password: string): Promise<boolean> {
  try {
    return await verify(storedHash, password);
  } catch {
    return false;
  }
}

/** NIST SP 800-63B: length matters, composition rules do not. Returns what is wrong, or null. */
export function checkPassword(password: string): string | null {
  if (password.length < PASSWORD_MIN_LENGTH) {
    return `must be at least ${PASSWORD_MIN_LENGTH} characters`;
  }
  if (password.length > PASSWORD_MAX_LENGTH) {
    return `must be at most ${PASSWORD_MAX_LENGTH} characters`;
  }
  return null;
}
