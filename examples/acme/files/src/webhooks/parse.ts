import { createHmac, timingSafeEqual } from "crypto";

export interface WebhookEvent {
  type: string;
  data: unknown;
}

/** Parses a webhook body after verifying its HMAC signature header. */
export function parse(body: string, signature: string, secret: string): WebhookEvent {
  const expected = createHmac("sha256", secret).update(body).digest("hex");
  if (!timingSafeEqual(Buffer.from(expected), Buffer.from(signature))) {
    throw new Error("invalid webhook signature");
  }
  return JSON.parse(body) as WebhookEvent;
}
