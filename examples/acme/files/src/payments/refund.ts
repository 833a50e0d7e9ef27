/** Refunds are capped at the captured amount minus earlier refunds. */
export function capRefund(requested: number, captured: number, refunded: number): number {
  const remaining = Math.max(captured - refunded, 0);
  return Math.min(requested, remaining);
}
