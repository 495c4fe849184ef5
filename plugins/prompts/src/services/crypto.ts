import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { mkdirSync, openSync, readFileSync, writeSync, closeSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * AES-256-GCM for secrets at rest: `v1:<iv b64url>:<tag b64url>:<ciphertext b64url>`. The key is
 * SHA-256 of the configured key, or of a random key file created once (0600) in the data dir.
 */
export class SecretBox {
  private readonly key: Buffer;
  constructor(configured: string, dataDir: string) {
    if (configured && configured.length < 32) throw new Error('PROMPTS_ENCRYPTION_KEY must have at least 32 characters');
    this.key = createHash('sha256').update(configured || SecretBox.keyFile(join(dataDir, 'prompts-encryption.key'))).digest();
  }

  private static keyFile(path: string): string {
    mkdirSync(dirname(path), { recursive: true });
    try {
      const fd = openSync(path, 'wx', 0o600);
      const key = randomBytes(32).toString('base64url');
      writeSync(fd, key);
      closeSync(fd);
      return key;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const key = readFileSync(path, 'utf8').trim();
      if (key.length < 32) throw new Error(`${path} is not a valid key file`);
      return key;
    }
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', this.key, iv);
    const data = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
    return `v1:${iv.toString('base64url')}:${c.getAuthTag().toString('base64url')}:${data.toString('base64url')}`;
  }

  open(sealed: string): string {
    if (!sealed) return '';
    const [v, iv, tag, data] = sealed.split(':');
    if (v !== 'v1' || !iv || !tag || data === undefined) throw new Error('not a sealed secret');
    const d = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    d.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([d.update(Buffer.from(data, 'base64url')), d.final()]).toString('utf8');
  }
}

/** A key as answers show it: at most the first 3 and last 4 characters (`sk-…abcd`); '' for none. */
export function mask(key: string): string {
  if (!key) return '';
  if (key.length <= 12) return '••••';
  return `${key.slice(0, 3)}…${key.slice(-4)}`;
}
