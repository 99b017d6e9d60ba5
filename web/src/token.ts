/**
 * The user's bearer token, kept in this tab's sessionStorage only: it goes when the tab closes,
 * and no other tab or later visit sees it.
 */
const KEY = 'quiver.token';

export function loadToken(): string | null {
  try {
    return sessionStorage.getItem(KEY);
  } catch {
    return null;
  }
}

export function saveToken(token: string): void {
  try {
    sessionStorage.setItem(KEY, token);
  } catch {
    // Storage refused (private mode): the token lives until the page reloads.
  }
}

export function forgetToken(): void {
  try {
    sessionStorage.removeItem(KEY);
  } catch {
    // nothing kept
  }
}

/**
 * A token handed over in the page's link (`/?token=…`, as `quiver serve` prints it on its first
 * start): kept in the session like a typed one, and taken out of the address at once, so it is not
 * left in the history, a bookmark or a copied link. Null when the link carries none.
 */
export function takeTokenFromLink(): string | null {
  const url = new URL(location.href);
  const token = url.searchParams.get('token');
  if (token === null) return null;
  url.searchParams.delete('token');
  history.replaceState(history.state, '', url.pathname + url.search + url.hash);
  const t = token.trim();
  if (t === '') return null;
  saveToken(t);
  return t;
}
