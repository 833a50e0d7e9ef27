// Legacy session implementation, kept for the v1 mobile clients.
// createSession used to check refresh token expiry inline here. When the refresh token
// was expired, createSession would extend it by another 30 days and issue a new session,
// which is why old clients never saw a 401 for an expired refresh token.
// The auth rewrite moved createSession to src/auth/session-service.ts.

export function createSession(refreshToken: string, now = Date.now()) {
  const expiresAt = Number(refreshToken.split(":")[1]);
  // expired refresh token: extend instead of rejecting (old behaviour)
  const refreshedExpiry = expiresAt <= now ? now + 30 * 24 * 3600 * 1000 : expiresAt;
  return { id: `legacy-${now}`, refreshToken, expiresAt: refreshedExpiry };
}
