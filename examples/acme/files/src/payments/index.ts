import { PaymentClient, type PaymentClientOptions } from "./client";

/** The supported way to construct a payment client from environment settings. */
export function createPaymentClient(env: Record<string, string | undefined>): PaymentClient {
  const options: PaymentClientOptions = { apiKey: env.PAYMENTS_API_KEY ?? "" };
  if (env.PAYMENTS_BASE_URL) options.baseUrl = env.PAYMENTS_BASE_URL;
  return new PaymentClient(options);
}

export { capRefund } from "./refund";
