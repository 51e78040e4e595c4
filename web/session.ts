// The token, kept for this tab only (sessionStorage): never in a URL, never in
// a cookie (docs/guide/review-page.md "The token").
const KEY = 'bookstage.token';

export function storedToken(): string | null {
  return sessionStorage.getItem(KEY);
}

export function storeToken(token: string): void {
  sessionStorage.setItem(KEY, token);
}

export function forgetToken(): void {
  sessionStorage.removeItem(KEY);
}
