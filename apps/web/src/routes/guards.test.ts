import { describe, expect, it } from 'vitest';
import { guard, signInPath, type GuardContext } from './guards';

const base: GuardContext = { pathname: '/dashboard', deployment: 'cloud', token: 't', role: '1', project: null };
const at = (pathname: string, extra: Partial<GuardContext> = {}) => guard({ ...base, pathname, ...extra });
const signedOut = { token: null, role: undefined };

describe('guard', () => {
  it('sends unknown paths to /404', () => {
    expect(at('/no-such-page')).toBe('/404');
    expect(at('/no-such-page', signedOut)).toBe('/404');
  });

  it('lets signed-out users open public routes only', () => {
    expect(at('/signin', signedOut)).toBeNull();
    expect(at('/registered/comfirm', signedOut)).toBeNull();
    expect(at('/loading-page', signedOut)).toBeNull();
    expect(at('/404', signedOut)).toBeNull();
    expect(at('/dashboard', signedOut)).toBe('/signin-home');
    expect(at('/agentList', signedOut)).toBe('/signin-home');
    expect(at('/mark/ocr', signedOut)).toBe('/signin-home');
  });

  it('sends signed-out users of private deployments to /signinEmail', () => {
    expect(at('/dashboard', { ...signedOut, deployment: 'private' })).toBe('/signinEmail');
    expect(signInPath('cloud')).toBe('/signin-home');
  });

  it('sends a signed-in user away from /signin, and role 0 away from /dashboard', () => {
    expect(at('/signin')).toBe('/agentList');
    expect(at('/dashboard', { role: '0' })).toBe('/agentList');
    expect(at('/dashboard', { role: '1' })).toBeNull();
    expect(at('/signup', { role: '0' })).toBeNull();
  });

  it('keeps back-office routes for administrators', () => {
    expect(at('/userManagement', { role: '1' })).toBeNull();
    expect(at('/userManagement', { role: '0' })).toBe('/agentList');
    expect(at('/creatAuthorization', { role: '0' })).toBe('/agentList');
    expect(at('/creatAuthorization', signedOut)).toBe('/signin-home');
  });

  it('while testing opens only /test (typed too) and non-project pages', () => {
    const project = { type: 'OCR', projectStatus: 'testing' as const };
    expect(at('/test', { project })).toBeNull();
    expect(at('/test/ocr', { project })).toBeNull();
    expect(at('/agentList', { project })).toBeNull();
    expect(at('/mark/ocr', { project })).toBe('/test/ocr');
    expect(at('/testImage/ocr', { project })).toBe('/test/ocr');
    expect(at('/train', { project })).toBe('/test/ocr');
  });

  it('while training opens only /train, also on synthetic routes', () => {
    const project = { type: 'DETECTION', projectStatus: 'training' as const };
    expect(at('/train/detection', { project })).toBeNull();
    expect(at('/gallery', { project })).toBe('/train/detection');
    expect(at('/generate', { project })).toBe('/train/detection');
    expect(at('/synthetic', { project: { type: 'FPG', projectStatus: 'training' } })).toBe('/train');
    expect(at('/gallery', { project: { type: 'OCR', projectStatus: 'no' } })).toBeNull();
  });

  it('keeps /monitor open while training or testing: it watches the running job', () => {
    expect(at('/monitor', { project: { type: 'DETECTION', projectStatus: 'training' } })).toBeNull();
    expect(at('/monitor', { project: { type: 'OCR', projectStatus: 'testing' } })).toBeNull();
    expect(at('/model', { project: { type: 'DETECTION', projectStatus: 'training' } })).toBe('/train/detection');
  });

  it('only applies the private route set in private deployments', () => {
    expect(at('/position')).toBe('/404');
    expect(at('/position', { deployment: 'private' })).toBeNull();
  });
});
