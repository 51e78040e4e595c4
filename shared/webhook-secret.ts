// Webhook signing secrets at rest (docs/reference/webhooks.md). A secret must be
// usable to sign every delivery, so it cannot be stored as a hash like API
// tokens: it is stored encrypted with AES-256-GCM under WEBHOOK_SECRET_KEY
// (hashed to 32 bytes), which the API (to create) and the worker (to sign)
// share. The database alone does not reveal a secret.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const VERSION = 'v1';

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64url')}`;
}

export function encryptSecret(key: string, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyBytes(key), iv);
  const data = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return [
    VERSION,
    iv.toString('base64url'),
    cipher.getAuthTag().toString('base64url'),
    data.toString('base64url'),
  ].join('.');
}

export function decryptSecret(key: string, stored: string): string {
  const [version, iv, tag, data] = stored.split('.');
  if (version !== VERSION || !iv || !tag || data === undefined) throw new Error('unknown webhook secret format');
  const decipher = createDecipheriv('aes-256-gcm', keyBytes(key), Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
}

function keyBytes(key: string): Buffer {
  return createHash('sha256').update(`bookstage webhook secret key v1\n${key}`, 'utf8').digest();
}
