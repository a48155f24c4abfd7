/**
 * Secrets that must never reach a log, wherever a client put them: an API key in a URL path, a
 * webhook signing secret or the operator token pasted into a body that was refused. Both logs (the
 * server's and the partner's request log) pass their text through `redactSecrets`.
 */
const API_KEY = /\bsk_(?:live|test)_[A-Za-z0-9]+/g;
/** `whsec_` + base64, also percent-encoded when it stood in a URL. */
const WEBHOOK_SECRET = /\bwhsec_[A-Za-z0-9+/=%_-]+/g;
/** Shorter values (a hand-set token in a test) would redact ordinary words. */
const MIN_KNOWN_LENGTH = 16;

/** This process's own secrets (the operator token, the cursor key), found by their exact value. */
const known = new Set<string>();

export function rememberSecret(value: string | null | undefined): void {
  if (value && value.length >= MIN_KNOWN_LENGTH) known.add(value);
}

export function redactSecrets(text: string): string {
  let out = text;
  // Most text holds neither prefix: one scan each instead of a regular expression's.
  if (out.includes('sk_')) out = out.replace(API_KEY, '[redacted key]');
  if (out.includes('whsec_')) out = out.replace(WEBHOOK_SECRET, '[redacted secret]');
  for (const secret of known) if (out.includes(secret)) out = out.replaceAll(secret, '[redacted secret]');
  return out;
}
