/**
 * The shell: a header with the views and the token, the token form until there is one, then the
 * chosen view under the token's role (`RoleContext`; Ask stays mounted, so its answer survives a visit elsewhere). A render error shows
 * as a message (`ErrorBoundary`), never as a blank page.
 */
import { Component, type ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { getJson } from './api.js';
import { TokenForm } from './components/token-form.js';
import { isRole, RoleContext, type Role } from './role.js';
import { forgetToken, loadToken, saveToken, takeTokenFromLink } from './token.js';
import { AskView } from './views/ask-view.js';
import { DocumentsView } from './views/documents-view.js';
import { EvalView } from './views/eval-view.js';
import { FeedbackView } from './views/feedback-view.js';
import { LabView } from './views/lab-view.js';
import { NoiseView } from './views/noise-view.js';
import { VIEWS, viewOf, type ViewId } from './views.js';

export function App() {
  const [token, setToken] = useState<string | null>(() => takeTokenFromLink() ?? loadToken());
  const [view, setView] = useState<ViewId>(viewOf(location.hash));
  const [role, setRole] = useState<Role | null>(null);
  useEffect(() => {
    // Once per token: its role decides which controls show. A failure leaves it unknown (every
    // control shows, and the server's refusal explains); a rejected token shows where it is used.
    setRole(null);
    if (token === null) return;
    const stop = new AbortController();
    getJson<{ role: unknown }>('/v1/tokens/self', token, { signal: stop.signal }).then(
      (self) => setRole(isRole(self.role) ? self.role : null),
      () => undefined,
    );
    return () => stop.abort();
  }, [token]);
  useEffect(() => {
    const onHash = (): void => setView(viewOf(location.hash));
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  const use = (t: string): void => {
    saveToken(t);
    setToken(t);
  };
  const forget = (): void => {
    forgetToken();
    setToken(null);
  };
  return (
    <div class="shell">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">
          <img src="/favicon.svg" alt="" width="24" height="24" />
          quiver
        </span>
        {token !== null && (
          <nav aria-label="Views">
            <ul>
              {VIEWS.map((v) => (
                <li key={v.id}>
                  <a href={`#/${v.id}`} aria-current={v.id === view ? 'page' : undefined}>
                    {v.label}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
        )}
        {token !== null && (
          <button type="button" class="quiet" onClick={forget}>
            Forget token
          </button>
        )}
      </header>
      <main id="main" tabIndex={-1}>
        <ErrorBoundary>
          {token === null ? (
            <TokenForm onToken={use} />
          ) : (
            <RoleContext.Provider value={role}>
              {/* Ask stays mounted while another view shows, so its answer is there on return. */}
              <div hidden={view !== 'ask'}>
                <AskView token={token} onBadToken={forget} active={view === 'ask'} />
              </div>
              {view === 'documents' && <DocumentsView token={token} onBadToken={forget} />}
              {view === 'feedback' && <FeedbackView token={token} onBadToken={forget} />}
              {view === 'noise' && <NoiseView token={token} onBadToken={forget} />}
              {view === 'eval' && <EvalView token={token} onBadToken={forget} />}
              {view === 'lab' && <LabView token={token} />}
            </RoleContext.Provider>
          )}
        </ErrorBoundary>
      </main>
    </div>
  );
}

class ErrorBoundary extends Component<{ children: ComponentChildren }, { error: string | null }> {
  override state = { error: null as string | null };
  static override getDerivedStateFromError(e: unknown): { error: string } {
    return { error: e instanceof Error ? e.message : String(e) };
  }
  override render() {
    if (this.state.error === null) return this.props.children;
    return (
      <div class="note error" role="alert">
        <p>
          <strong>The page hit a problem:</strong> {this.state.error}
        </p>
        <button type="button" onClick={() => this.setState({ error: null })}>
          Try again
        </button>
      </div>
    );
  }
}
