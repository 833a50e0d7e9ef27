import { createSession } from "../../src/auth/session-service";

describe("createSession", () => {
  it("createSession rejects an expired refresh token", async () => {
    const store = { newId: () => "s1", save: async () => {} };
    await expect(createSession(store, expiredToken(), 0)).rejects.toThrow("expired");
  });

  it("createSession issues a session for a fresh token", async () => {
    const store = { newId: () => "s2", save: async () => {} };
    const session = await createSession(store, freshToken(), 0);
    expect(session.id).toBe("s2");
  });
});

function expiredToken() { return "h.eyJzdWIiOiJ1IiwiZXhwIjowfQ.s"; }
function freshToken() { return "h.eyJzdWIiOiJ1IiwiZXhwIjo5OTk5OTk5OTk5fQ.s"; }
