/** A dependency that must answer before the app is ready for traffic. */
export interface ReadinessCheck {
  readonly name: string;
  /** Resolves when the dependency answers; rejects with the reason otherwise. */
  check(): Promise<void>;
}

export const READINESS_CHECKS = Symbol('READINESS_CHECKS');

export async function withTimeout<T>(
  work: Promise<T>,
  milliseconds: number,
  what: string,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} did not answer within ${milliseconds} ms`)),
      milliseconds,
    );
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
