import { validateRefreshToken, TokenExpiredError } from "./validate";
import { SessionStore } from "./store";

export interface Session {
  id: string;
  userId: string;
  expiresAt: number;
}

/**
 * Creates a session from a refresh token.
 *
 * Expiry is decided by validateRefreshToken: an expired token raises
 * TokenExpiredError, which we turn into a 401 for the caller instead of
 * silently issuing a new session.
 */
export async function createSession(
  store: SessionStore,
  refreshToken: string,
  now: number = Date.now(),
): Promise<Session> {
  let claims;
  try {
    claims = validateRefreshToken(refreshToken, now);
  } catch (err) {
    if (err instanceof TokenExpiredError) {
      throw new HttpError(401, "refresh token expired; sign in again");
    }
    throw err;
  }
  const session: Session = {
    id: store.newId(),
    userId: claims.sub,
    expiresAt: now + 15 * 60 * 1000,
  };
  await store.save(session);
  return session;
}

export class HttpError extends Error {
  constructor(public status: number, message: string) {
    super(message);
  }
}
