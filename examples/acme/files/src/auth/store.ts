import type { Session } from "./session-service";

export interface SessionStore {
  newId(): string;
  save(session: Session): Promise<void>;
}
