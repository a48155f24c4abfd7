import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rememberSecret } from './redact.ts';

/**
 * A secret from the environment, or one generated on first start and kept in DATA_DIR (mode 0600)
 * so that restarts, and the CLI on the same machine, see the same value.
 */
export function loadOrCreateSecret(dataDir: string, name: string, fromEnv: string | null): string {
  const value = fromEnv || loadOrCreateFile(join(dataDir, name), dataDir);
  // Never logged, wherever a client pastes it.
  rememberSecret(value);
  return value;
}

function loadOrCreateFile(path: string, dataDir: string): string {
  if (existsSync(path)) return readFileSync(path, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const value = randomBytes(32).toString('base64url');
  writeFileSync(path, `${value}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(path, 0o600);
  return value;
}

export function readSecretFile(dataDir: string, name: string): string | null {
  const path = join(dataDir, name);
  return existsSync(path) ? readFileSync(path, 'utf8').trim() : null;
}
