import { RetryPolicy } from "../../src/retry";

describe("RetryPolicy timeout", () => {
  it("RetryPolicy handles timeout", () => {
    const policy = new RetryPolicy({ maxAttempts: 3, baseDelayMs: 10, jitter: false });
    const other = new RetryPolicy({ maxAttempts: 1, baseDelayMs: 5, jitter: true });
    expect(policy.shouldRetry(1, new Error("timeout"))).toBe(true);
    expect(other.shouldRetry(1, new Error("timeout"))).toBe(false);
    expect(new RetryPolicy({ maxAttempts: 2, baseDelayMs: 1, jitter: false }).delayFor(1)).toBe(1);
  });
});
