import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** `whsec_` + base64 of 24 random bytes, the Standard Webhooks secret format. */
export function generateSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/**
 * Endpoint secrets must be readable by the service (it signs with them), so they cannot be hashed
 * like API keys. They are kept encrypted (AES-256-GCM) with a key derived from SECRET_KEY, so a
 * database dump or backup alone does not reveal them.
 */
export class SecretBox {
  private readonly key: Buffer;
  constructor(secretKey: string) {
    this.key = createHash('sha256').update('webhook-endpoint-secrets\0').update(secretKey).digest();
  }
  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `v1.${Buffer.concat([iv, cipher.getAuthTag(), ct]).toString('base64url')}`;
  }
  open(sealed: string): string {
    const raw = Buffer.from(sealed.slice(3), 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }
}

/** The `webhook-signature` header: one `v1,<base64>` entry per secret, space-separated. */
export function signatureHeader(secrets: string[], id: string, at: Date, body: string): string {
  return secrets.map((secret) => new Webhook(secret).sign(id, at, body)).join(' ');
}
