import { RetryPolicy } from "../retry";
import { outboundRetry } from "../../config/retry";

export interface PaymentClientOptions {
  apiKey: string;
  baseUrl?: string;
  retry?: RetryPolicy;
}

/** Talks to the payment provider's HTTP API. */
export class PaymentClient {
  private readonly retry: RetryPolicy;

  constructor(private readonly options: PaymentClientOptions) {
    if (!options.apiKey) throw new Error("PaymentClient needs an apiKey");
    this.retry = options.retry ?? new RetryPolicy(outboundRetry);
  }

  async charge(amount: number, currency: string) {
    return this.post("/charges", { amount, currency });
  }

  private async post(path: string, body: unknown) {
    const url = `${this.options.baseUrl ?? "https://api.example.test"}${path}`;
    return { url, body };
  }
}
