import { useState, type FormEvent } from 'react';
import type { ConsoleSession } from '@blueline/sdk';
import { signIn } from '../api.js';
import { ErrorBanner, Notice, useTitle } from '../ui.js';

/** `ended`: the kind of the session that just ended under an open screen, if one did. */
export function SignIn({ onSignedIn, ended = null }: { onSignedIn: (s: ConsoleSession) => void; ended?: ConsoleSession['kind'] | null }) {
  useTitle('Sign in');
  const [kind, setKind] = useState<'tenant' | 'operator'>(ended ?? 'tenant');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setBusy(true);
    setError(null);
    try {
      const s =
        kind === 'tenant'
          ? await signIn({ kind: 'tenant', tenant: String(form.get('tenant')).trim(), secret: String(form.get('secret')) })
          : await signIn({ kind: 'operator', admin_token: String(form.get('admin_token')) });
      onSignedIn(s);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <main className="signin">
      <form className="signin-card" onSubmit={(e) => void submit(e)} aria-labelledby="signin-title">
        <div className="brand big">
          <span className="logo" aria-hidden="true">◆</span> Blueline
        </div>
        <h1 id="signin-title">Sign in to the console</h1>
        {ended && <Notice kind="warn">Your session has ended. Sign in again to go on where you were.</Notice>}
        <div className="segmented" role="group" aria-label="Sign in as">
          <button type="button" className={kind === 'tenant' ? 'on' : ''} aria-pressed={kind === 'tenant'} onClick={() => setKind('tenant')}>
            Project
          </button>
          <button type="button" className={kind === 'operator' ? 'on' : ''} aria-pressed={kind === 'operator'} onClick={() => setKind('operator')}>
            Operator
          </button>
        </div>
        {kind === 'tenant' ? (
          <>
            <label>
              Tenant slug
              <input name="tenant" autoComplete="username" required placeholder="demo" />
            </label>
            <label>
              Signing secret
              <input name="secret" type="password" autoComplete="current-password" required />
            </label>
          </>
        ) : (
          <label>
            Admin token
            <input name="admin_token" type="password" autoComplete="current-password" required />
          </label>
        )}
        <ErrorBanner error={error} />
        <button className="btn primary wide" type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <p className="fine">Your secret is exchanged for a 12-hour session and never stored in this browser.</p>
      </form>
    </main>
  );
}
