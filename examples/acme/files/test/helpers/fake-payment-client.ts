import type { PaymentClient } from "../../src/payments/client";

/** A fake payment client for tests: records charges instead of calling the provider. */
export class FakePaymentClient implements Pick<PaymentClient, "charge"> {
  charges: Array<{ amount: number; currency: string }> = [];

  async charge(amount: number, currency: string) {
    this.charges.push({ amount, currency });
    return { id: `fake-${this.charges.length}`, status: "succeeded" as const };
  }
}

export function makeFakePaymentClient(): FakePaymentClient {
  return new FakePaymentClient();
}
