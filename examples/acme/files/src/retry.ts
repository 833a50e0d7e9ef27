export interface RetryOptions {
  maxAttempts: number;
  baseDelayMs: number;
  jitter: boolean;
}

/**
 * RetryPolicy decides whether and when a failed outbound call is retried.
 * Delays grow exponentially from baseDelayMs; jitter spreads retries out.
 */
export class RetryPolicy {
  constructor(private readonly options: RetryOptions) {}

  shouldRetry(attempt: number, error: unknown): boolean {
    if (attempt >= this.options.maxAttempts) return false;
    return !(error instanceof TypeError);
  }

  delayFor(attempt: number): number {
    const delay = this.options.baseDelayMs * 2 ** (attempt - 1);
    return this.options.jitter ? delay * (0.5 + Math.random() / 2) : delay;
  }
}
