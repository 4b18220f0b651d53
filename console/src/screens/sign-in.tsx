import { useState } from 'preact/hooks';
import { signInLocally, signInWithPassword, usesLocalSignIn, type Role } from '../api/session.ts';
import { Field } from '../components/form.tsx';

export function SignIn({ notice }: { notice: string }) {
  const [error, setError] = useState('');
  const [pending, setPending] = useState(false);
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');

  async function run(action: () => Promise<void>) {
    setPending(true);
    setError('');
    try {
      await action();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setPending(false);
    }
  }

  return (
    <main class="sign-in" id="main">
      <h1>Store console</h1>
      {notice && <p class="state notice" role="status">{notice}</p>}
      {usesLocalSignIn() ? (
        <section aria-labelledby="local-title" class="card">
          <h2 id="local-title">Local sign-in</h2>
          <p class="warning-box">
            <strong>Local stack only.</strong> This server (<code>npm start</code>) has no Supabase Auth, so it signs you in as a demo
            user without a password. A deployed console signs in with Supabase Auth instead.
          </p>
          <div class="actions">
            {(['admin', 'customer'] as Role[]).map((role) => (
              <button key={role} type="button" class={role === 'admin' ? 'primary' : ''} disabled={pending} onClick={() => run(() => signInLocally(role))}>
                Sign in as the demo {role}
              </button>
            ))}
          </div>
          <p class="muted">The admin may change campaigns, the catalogue and products; the customer reads them and may book stock.</p>
        </section>
      ) : (
        <form class="card" onSubmit={(e) => { e.preventDefault(); run(() => signInWithPassword(email, password)); }}>
          <h2>Sign in</h2>
          <Field label="E-mail" name="email" type="email" autoComplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
          <Field label="Password" name="password" type="password" autoComplete="current-password" required value={password}
            onInput={(e) => setPassword(e.currentTarget.value)} />
          <button type="submit" class="primary" disabled={pending}>{pending ? 'Signing in…' : 'Sign in'}</button>
        </form>
      )}
      {error && <p class="state error" role="alert">{error}</p>}
    </main>
  );
}
