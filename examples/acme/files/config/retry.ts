import type { RetryOptions } from "../src/retry";

// Retry settings for outbound HTTP calls, per environment.
export const outboundRetry: RetryOptions = {
  maxAttempts: 4,
  baseDelayMs: 250,
  jitter: true,
};

export const webhookRetry: RetryOptions = {
  maxAttempts: 8,
  baseDelayMs: 1000,
  jitter: false,
};
