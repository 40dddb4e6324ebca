import { useCallback, useEffect, useState } from "preact/hooks";
import { api, session } from "./api/client.js";
import type { Me } from "./api/wire.js";
import { AppShell } from "./app-shell.js";
import { LoginScreen } from "./screens/login/login-screen.js";

/**
 * Who is signed in. The console re-checks `/v1/me` after login and on load and
 * sends non-admin roles back to login (spec "Roles").
 */
export function App() {
  const [me, setMe] = useState<Me | null>(null);
  const [checking, setChecking] = useState(session.get() !== null);
  const [message, setMessage] = useState<string | null>(null);

  const signOut = useCallback((why: string | null) => {
    session.set(null);
    setMe(null);
    setMessage(why);
  }, []);

  const check = useCallback(async () => {
    try {
      const who = await api.me();
      if (who.role !== "admin") {
        signOut(
          `The account "${who.username}" has the role "${who.role}": the console is for admins only.`,
        );
        return;
      }
      setMe(who);
      setMessage(null);
    } catch {
      signOut("Your session has ended. Sign in again.");
    } finally {
      setChecking(false);
    }
  }, [signOut]);

  useEffect(() => {
    session.onUnauthorized(() => signOut("Your session has ended. Sign in again."));
    if (session.get() !== null) void check();
  }, [check, signOut]);

  if (checking)
    return (
      <p class="boot" role="status">
        Loading…
      </p>
    );
  if (me === null)
    return (
      <LoginScreen
        message={message}
        onSignedIn={(token) => {
          session.set(token);
          setChecking(true);
          void check();
        }}
      />
    );
  return (
    <AppShell
      me={me}
      onSignOut={() => signOut("Signed out.")}
      onAccountChanged={(token) => {
        session.set(token);
        void check();
      }}
    />
  );
}
