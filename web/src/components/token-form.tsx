/** Asks for the bearer token and says where to get one. */
import { useState } from 'preact/hooks';

export function TokenForm({ onToken }: { onToken: (token: string) => void }) {
  const [value, setValue] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const submit = (e: Event): void => {
    e.preventDefault();
    const t = value.trim();
    if (!/^\S+$/.test(t)) {
      setProblem('Paste the whole token: it starts with qv_ and has no spaces.');
      return;
    }
    onToken(t);
  };
  return (
    <section class="card narrow" aria-labelledby="token-title">
      <h1 id="token-title">Open your vault</h1>
      <p>
        This page talks to <code>quiver serve</code> with a bearer token. The token stays in this tab only and
        is forgotten when the tab closes.
      </p>
      <form onSubmit={submit} class="token-form" noValidate>
        <label for="token">Token</label>
        <div class="row">
          <input
            id="token"
            name="token"
            type="password"
            autoComplete="off"
            spellcheck={false}
            placeholder="qv_…"
            value={value}
            onInput={(e) => setValue(e.currentTarget.value)}
            aria-describedby="token-help"
            aria-invalid={problem !== null}
          />
          <button type="submit">Use token</button>
        </div>
        {problem !== null && (
          <p class="field-error" role="alert">
            {problem}
          </p>
        )}
      </form>
      <div id="token-help" class="help">
        <p>Where to get one:</p>
        <ul>
          <li>
            <code>quiver serve</code> prints an admin token the first time it starts on a vault.
          </li>
          <li>
            Make another with <code>quiver token create --role read</code> (or <code>write</code>,{' '}
            <code>admin</code>); <code>quiver token list</code> shows the tokens you have.
          </li>
        </ul>
      </div>
    </section>
  );
}
