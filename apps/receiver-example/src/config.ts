/** The example receiver's configuration, from the environment. */
export interface ReceiverConfig {
  port: number;
  secret: string;
  /** The secret a rotation replaced, accepted beside `secret` until unset (ADR 0026). */
  previousSecret?: string;
  /** PEM file paths; without them the receiver serves plain HTTP (development only). */
  tls?: { certFile: string; keyFile: string };
}

export const DEFAULT_RECEIVER_PORT = 9000;

export class ReceiverConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration: ${problems.join('; ')}`);
    this.name = 'ReceiverConfigError';
  }
}

/** Reports every bad variable at once, so that one start-up shows all that needs fixing. */
export function readReceiverConfig(env: NodeJS.ProcessEnv): ReceiverConfig {
  const problems: string[] = [];

  let port = DEFAULT_RECEIVER_PORT;
  const rawPort = env.RECEIVER_PORT;
  if (rawPort !== undefined && rawPort !== '') {
    port = /^\d{1,5}$/.test(rawPort) ? Number(rawPort) : NaN;
    if (!(port >= 0 && port <= 65535)) {
      problems.push('RECEIVER_PORT: must be an integer from 0 to 65535');
    }
  }

  const secret = env.RECEIVER_SECRET ?? '';
  if (secret === '') {
    problems.push(
      'RECEIVER_SECRET: is required (the secret given when the webhook endpoint was registered)',
    );
  }

  const previousSecret = env.RECEIVER_PREVIOUS_SECRET || undefined;

  const certFile = env.RECEIVER_TLS_CERT || undefined;
  const keyFile = env.RECEIVER_TLS_KEY || undefined;
  if ((certFile === undefined) !== (keyFile === undefined)) {
    problems.push('RECEIVER_TLS_CERT and RECEIVER_TLS_KEY: give both (PEM file paths) or neither');
  }

  if (problems.length > 0) {
    throw new ReceiverConfigError(problems);
  }
  return {
    port,
    secret,
    ...(previousSecret !== undefined && { previousSecret }),
    ...(certFile !== undefined && keyFile !== undefined ? { tls: { certFile, keyFile } } : {}),
  };
}
