import { useState } from 'preact/hooks';
import { type Role, signInLocally, signInWithPassword, usesLocalSignIn } from '../api/session.ts';
import { Field } from '../components/form.tsx';
import { common } from '../i18n/common.ts';
import { text } from '../i18n/index.ts';
import { signInText } from '../i18n/sign-in.ts';

export function SignIn({ notice }: { notice: string }) {
  const t = text(signInText);
  const c = text(common);
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
    <main class='sign-in' id='main'>
      <h1>{c.brand}</h1>
      {notice && <p class='state notice' role='status'>{notice}</p>}
      {usesLocalSignIn()
        ? (
          <section aria-labelledby='local-title' class='card'>
            <h2 id='local-title'>{t.localTitle}</h2>
            <p class='warning-box'>
              <strong>{t.localOnly}</strong> {t.localExplained}
            </p>
            <div class='actions'>
              {(['admin', 'customer'] as Role[]).map((role) => (
                <button
                  key={role}
                  type='button'
                  class={role === 'admin' ? 'primary' : ''}
                  disabled={pending}
                  data-sign-in-as={role}
                  onClick={() => run(() => signInLocally(role))}
                >
                  {t[`as.${role}`]}
                </button>
              ))}
            </div>
            <p class='muted'>{t.roles}</p>
          </section>
        )
        : (
          <form
            class='card'
            onSubmit={(e) => {
              e.preventDefault();
              run(() => signInWithPassword(email, password));
            }}
          >
            <h2>{c.signIn}</h2>
            <Field
              label={t.email}
              name='email'
              type='email'
              autoComplete='username'
              required
              value={email}
              onInput={(e) => setEmail(e.currentTarget.value)}
            />
            <Field
              label={t.password}
              name='password'
              type='password'
              autoComplete='current-password'
              required
              value={password}
              onInput={(e) => setPassword(e.currentTarget.value)}
            />
            <button type='submit' class='primary' disabled={pending}>{pending ? t.signingIn : c.signIn}</button>
          </form>
        )}
      {error && <p class='state error' role='alert'>{error}</p>}
    </main>
  );
}
