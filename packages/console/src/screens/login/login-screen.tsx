import { useState } from "preact/hooks";
import { api } from "../../api/client.js";
import { TextField } from "../../components/field.js";
import { ActionNotice } from "../../components/notice.js";
import { useAction } from "../../components/use-action.js";

/** `POST /v1/auth/login`; the app then checks the role through `/v1/me`. */
export function LoginScreen(p: { message: string | null; onSignedIn: (token: string) => void }) {
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const action = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    const answer = await action.run(() => api.login(username, password));
    if (answer) p.onSignedIn(answer.token);
  };
  return (
    <main id="main" class="login">
      <form class="card login-card" onSubmit={submit} aria-labelledby="login-title">
        <h1 id="login-title">Sign in to svc-gateway</h1>
        {p.message ? (
          <p class="notice notice-warn" role="alert" data-testid="login-message">
            {p.message}
          </p>
        ) : null}
        <TextField
          label="Username"
          value={username}
          onInput={setUsername}
          autoComplete="username"
          required
        />
        <TextField
          label="Password"
          type="password"
          value={password}
          onInput={setPassword}
          autoComplete="current-password"
          required
        />
        <ActionNotice action={action} busyText="Signing in…" />
        <button type="submit" class="btn btn-primary" disabled={action.busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}
