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
