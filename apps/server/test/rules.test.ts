import { describe, expect, it } from 'vitest';
import { Errors, type ErrorName } from '@loupe/contracts';
import { AppError } from '../src/errors.js';
import { ConfigError, loadConfig } from '../src/config.js';
import { errorMessage, fieldName, interpolate, pickLanguage } from '../src/i18n.js';
import { fromValidation } from '../src/http/error-handler.js';
import { menusFor } from '../src/services/menus.js';
import {
  checkCode,
  checkEmail,
  checkLandline,
  checkLoginPassword,
  checkNewPassword,
  checkPhone,
  normalizePhone,
  requireText,
} from '../src/services/rules.js';

function errorOf(fn: () => unknown): ErrorName | null {
  try {
    fn();
    return null;
  } catch (err) {
    if (err instanceof AppError) return err.key;
    throw err;
  }
}

describe('field rules (SPEC §5)', () => {
  it('requires text and bounds it to 100 characters', () => {
    expect(requireText('company', '  Acme ')).toBe('Acme');
    expect(errorOf(() => requireText('company', '  '))).toBe('fieldRequired');
    expect(errorOf(() => requireText('company', undefined))).toBe('fieldRequired');
    expect(requireText('company', 'x'.repeat(100))).toHaveLength(100);
    expect(errorOf(() => requireText('company', 'x'.repeat(101)))).toBe('fieldTooLong');
  });

  it('checks and normalises emails', () => {
    expect(checkEmail('email', ' Ada@Factory.TEST ')).toBe('ada@factory.test');
    for (const bad of ['ada', 'ada@', '@factory.test', 'ada@factory', 'a da@factory.test']) {
      expect(errorOf(() => checkEmail('email', bad)), bad).toBe('emailFormat');
    }
  });

  it('checks phones and compares them by digits', () => {
    expect(checkPhone('phone', '+49 170-123 4567')).toBe('+491701234567');
    expect(normalizePhone('0170 1234567')).toBe('01701234567');
    for (const bad of ['12345', 'phone', '+49 (170) 1234567', '1'.repeat(25)]) {
      expect(errorOf(() => checkPhone('phone', bad)), bad).toBe('phoneFormat');
    }
  });

  it('checks landlines, allowing none', () => {
    expect(checkLandline('')).toBe('');
    expect(checkLandline('(030) 1234-5678')).toBe('(030) 1234-5678');
    expect(checkLandline('+49 030 12345678')).toBe('+49 030 12345678');
    expect(checkLandline('+49 30 12345678')).toBe('+49 30 12345678');
    expect(errorOf(() => checkLandline('12345'))).toBe('landlineFormat');
    expect(errorOf(() => checkLandline('12'))).toBe('landlineFormat');
    expect(errorOf(() => checkLandline('call me'))).toBe('landlineFormat');
  });

  it('checks login and new passwords', () => {
    expect(errorOf(() => checkLoginPassword(''))).toBe('fieldRequired');
    expect(errorOf(() => checkLoginPassword('12345'))).toBe('passwordLength');
    expect(checkLoginPassword('any thing!')).toBe('any thing!');
    expect(errorOf(() => checkNewPassword('abc12', 'abc12'))).toBe('passwordLength');
    expect(errorOf(() => checkNewPassword('a'.repeat(33), 'a'.repeat(33)))).toBe('passwordLength');
    expect(errorOf(() => checkNewPassword('abc 123', 'abc 123'))).toBe('passwordChars');
    expect(errorOf(() => checkNewPassword('abc123', ''))).toBe('fieldRequired');
    expect(errorOf(() => checkNewPassword('abc123', 'abc124'))).toBe('passwordsDoNotMatch');
    expect(checkNewPassword('a'.repeat(32), 'a'.repeat(32))).toHaveLength(32);
  });

  it('checks the verification code format', () => {
    expect(checkCode(' 012345 ')).toBe('012345');
    expect(errorOf(() => checkCode(''))).toBe('fieldRequired');
    for (const bad of ['12345', '1234567', '12a456']) expect(errorOf(() => checkCode(bad))).toBe('badCode');
  });
});

describe('messages', () => {
  it('picks the language from the header, defaulting to English', () => {
    expect(pickLanguage(undefined)).toBe('en');
    expect(pickLanguage('zh')).toBe('zh');
    expect(pickLanguage('zh-CN')).toBe('zh');
    expect(pickLanguage('DE')).toBe('de');
    expect(pickLanguage('fr')).toBe('en');
  });

  it('interpolates variables and translates field names', () => {
    expect(interpolate('wait {{seconds}} s', { seconds: 12 })).toBe('wait 12 s');
    expect(interpolate('{{missing}}', {})).toBe('{{missing}}');
    expect(errorMessage('ru', 'codeResendTooSoon', { seconds: 5 })).toContain('5');
    expect(fieldName('de', 'firstName')).toBe('Vorname');
    expect(fieldName('zh', 'unknownField')).toBe('unknownField');
  });

  it('turns schema failures into catalogue errors naming the field', () => {
    const missing = fromValidation([{ keyword: 'required', instancePath: '', params: { missingProperty: 'email' } }]);
    expect(missing.def.code).toBe(Errors.fieldRequired.code);
    expect(missing.vars).toEqual({ field: 'email' });
    const type = fromValidation([{ keyword: 'type', instancePath: '/password', params: {} }]);
    expect(type.vars).toEqual({ field: 'password', reason: 'type' });
  });
});

describe('menus', () => {
  it('drops the model development group for everyone', () => {
    for (const role of ['0', '1'] as const) {
      expect(menusFor(role, 'cloud').map((m) => m.id)).not.toContain('modelDevelopment');
    }
    expect(menusFor('0', 'cloud').map((m) => m.id)).not.toContain('backStage');
  });
});

describe('configuration', () => {
  it('has safe defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ port: 8080, host: '0.0.0.0', deployment: 'cloud', databaseUrl: null, smtpUrl: null, oidc: null });
    expect(c.publicUrl).toBe('http://localhost:8080');
    expect(loadConfig({ PORT: '18081' }).publicUrl).toBe('http://localhost:18081');
    expect(c.passwordHashing.memoryCost).toBeGreaterThanOrEqual(19_456);
  });

  it('names every bad value', () => {
    try {
      loadConfig({
        PORT: 'eighty',
        DEPLOYMENT: 'moon',
        DATABASE_URL: 'mysql://x',
        SMTP_URL: 'http://mail',
        PUBLIC_URL: 'ftp://x',
        LOUPE_ADMIN_EMAIL: 'admin',
        LOUPE_ADMIN_PASSWORD: 'short',
        OIDC_ISSUER: 'https://id.example',
        RATE_LIMIT_AUTH_MAX: '0',
      });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const problems = (err as ConfigError).problems.join('\n');
      for (const name of ['PORT', 'DEPLOYMENT', 'DATABASE_URL', 'SMTP_URL', 'PUBLIC_URL', 'LOUPE_ADMIN_EMAIL', 'LOUPE_ADMIN_PASSWORD', 'OIDC_CLIENT_ID', 'RATE_LIMIT_AUTH_MAX']) {
        expect(problems).toContain(name);
      }
    }
  });

  it('keeps the one-process default, and reads the scale settings (issue 34)', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ redisUrl: null, storage: { s3: null, publicOrigin: null }, queue: { kind: 'db', leaseMs: 30_000, maxAttempts: 3 }, runner: { inServer: true, device: null, gpus: 1 } });
    expect(c.runner.kinds).toEqual(['training', 'test', 'export', 'golden', 'analysis', 'agent']);
    const scale = loadConfig({
      REDIS_URL: 'redis://cache:6379',
      S3_BUCKET: 'loupe-blobs',
      S3_ENDPOINT: 'http://minio:9000',
      S3_ACCESS_KEY_ID: 'k',
      S3_SECRET_ACCESS_KEY: 's',
      RUNNER_IN_SERVER: 'false',
      RUNNER_KINDS: 'training, test',
      RUNNER_DEVICE: 'cuda',
      RUNNER_GPUS: '4',
      JOB_LEASE_S: '10',
    });
    expect(scale).toMatchObject({ redisUrl: 'redis://cache:6379', queue: { kind: 'bullmq', leaseMs: 10_000 }, runner: { inServer: false, kinds: ['training', 'test'], device: 'cuda', gpus: 4 } });
    expect(scale.storage.s3).toMatchObject({ bucket: 'loupe-blobs', endpoint: 'http://minio:9000', forcePathStyle: true, region: 'us-east-1' });
    expect(scale.storage.publicOrigin).toBe('http://minio:9000');
    // AWS without an endpoint: signed URLs name the bucket's own host.
    expect(loadConfig({ S3_BUCKET: 'loupe-blobs', S3_REGION: 'eu-central-1' }).storage.publicOrigin).toBe('https://loupe-blobs.s3.eu-central-1.amazonaws.com');
    expect(loadConfig({ REDIS_URL: 'redis://cache:6379', JOB_QUEUE: 'db' }).queue.kind).toBe('db');
  });

  it('names every bad scale setting', () => {
    try {
      loadConfig({
        REDIS_URL: 'http://cache',
        JOB_QUEUE: 'kafka',
        S3_BUCKET: 'Bad_Bucket',
        S3_ACCESS_KEY_ID: 'only-the-key',
        S3_PREFIX: '/abs',
        RUNNER_KINDS: 'training,mining',
        RUNNER_DEVICE: 'tpu',
        RUNNER_ID: 'a b',
        RUNNER_GPUS: '0',
        JOB_LEASE_S: '1',
        SIGNED_URL_TTL_S: '999999',
      });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const problems = (err as ConfigError).problems.join('\n');
      for (const name of ['REDIS_URL', 'JOB_QUEUE', 'S3_BUCKET', 'S3_SECRET_ACCESS_KEY', 'S3_PREFIX', 'RUNNER_KINDS', 'RUNNER_DEVICE', 'RUNNER_ID', 'RUNNER_GPUS', 'JOB_LEASE_S', 'SIGNED_URL_TTL_S']) {
        expect(problems).toContain(name);
      }
    }
    expect(() => loadConfig({ JOB_QUEUE: 'bullmq' })).toThrow(/JOB_QUEUE=bullmq needs REDIS_URL/);
    expect(() => loadConfig({ S3_ENDPOINT: 'http://minio:9000' })).toThrow(/S3_BUCKET must be set/);
  });
});
