import { createSession } from "./session-service";
import type { SessionStore } from "./store";

export async function login(store: SessionStore, refreshToken: string) {
  const session = await createSession(store, refreshToken);
  return { sessionId: session.id };
}

export async function refresh(store: SessionStore, refreshToken: string) {
  return createSession(store, refreshToken);
}
