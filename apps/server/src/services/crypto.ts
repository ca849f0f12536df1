import { createHash, randomBytes, randomInt } from 'node:crypto';
import { hash, verify, type Algorithm } from '@node-rs/argon2';
import type { PasswordHashingConfig } from '../config.js';

/** 256 random bits, URL-safe: session tokens and link tokens. */
export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Tokens and codes are stored as SHA-256 only; they are random, so no salt or slow hash is needed. */
export function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

export function randomCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0');
}

/** Letters and digits only, so a generated password also passes the §5 rule. */
export function randomPassword(length = 20): string {
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[randomInt(0, alphabet.length)];
  return out;
}

// The package's Algorithm is an ambient const enum, which isolatedModules cannot read at run time.
const ARGON2ID = 2 as Algorithm.Argon2id;

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(hashed: string, password: string): Promise<boolean>;
}

export function argon2Hasher(cost: PasswordHashingConfig): PasswordHasher {
  return {
    hash: (password) => hash(password, { algorithm: ARGON2ID, ...cost }),
    async verify(hashed, password) {
      try {
        return await verify(hashed, password);
      } catch {
        return false;
      }
    },
  };
}
