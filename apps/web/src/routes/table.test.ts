import { describe, expect, it } from 'vitest';
import { TYPED_STEPS } from '@loupe/contracts';
import { ROUTES, findRoute, routesFor } from './table';

/** Every path of SPEC §2, copied from the specification text. */
const SPEC_PUBLIC =
  '/, /signin, /signin-home, /signup, /signupEmail, /signupPhone, /send-verify, /set-password, /finish-register-info, /signinEmail, /signinEmailPassword, /signinVerify, /signinPhone, /signinPhonePassword, /send-verify-phone, /registered/check, /registered/comfirm, /forget, /forgetjudge, /forgetEmail, /forgetPhone, /forgetVerify, /forget-set-password, /logging, /loading-page, /PassiveRegister, /editAuthorization, /creatAuthorization';
const SPEC_STANDALONE =
  '/agentList, /usage, /forgetapp, /pricing, /RegisteredB, /ocrDetails, /segmentationDetails, /detectionDetails, /outerDetails, /cameraIndex, /cameraShow, /applicationIndex, /applicationShow, /aboutMy, /joinMy, /404';
const SPEC_OTHERS =
  '/dashboard, /gallery, /agent, /parameter, /monitor, /model, /train2, /publish, /profile, /changePassword, /modelDevelopmentTool, /client, /sdkManagement, /createRepeatDev, /repeatDev, /customRepeatDev, /app3d, /modelManagement, /creatModel, /creatModel2, /d3creatModel';
const SPEC_PRIVATE = '/pointCloud, /position, /match, /d3download';
const SPEC_BACK_OFFICE =
  '/backStageManagement, /userManagement, /authorization, /creatAuthorization, /analysis, /adjustmentRecord, /enumManagement, /roleManagement, /modellabel, /casequery, /organizationManagement, /operatorManagement, /communityProjectManagement, /communityDetails, /communityrelease, /communitedit';
const list = (text: string) => text.split(',').map((s) => s.trim());

describe('route table', () => {
  const paths = new Set(ROUTES.map((r) => r.path));

  it('holds every path of SPEC §2', () => {
    const expected = [SPEC_PUBLIC, SPEC_STANDALONE, SPEC_OTHERS, SPEC_PRIVATE, SPEC_BACK_OFFICE].flatMap(list);
    const missing = expected.filter((p) => !paths.has(p));
    expect(missing).toEqual([]);
  });

  it('declares each path once', () => {
    expect(paths.size).toBe(ROUTES.length);
  });

  it('has each data step with its four typed children', () => {
    for (const step of TYPED_STEPS) {
      for (const child of ['', '/ocr', '/segmentation', '/detection', '/measure']) {
        expect(paths.has(`/${step}${child}`), `/${step}${child}`).toBe(true);
      }
    }
  });

  it('redirects / to /signin and /download to /download/downloadImage', () => {
    expect(findRoute('/', 'cloud')?.redirect).toBe('/signin');
    expect(findRoute('/download', 'cloud')?.redirect).toBe('/download/downloadImage');
    for (const child of ['downloadImage', 'downloadModel', 'downloadSDK']) {
      expect(findRoute(`/download/${child}`, 'cloud')?.kind).toBe('layout');
    }
  });

  it('flags back-office routes requireAuth', () => {
    for (const p of list(SPEC_BACK_OFFICE)) expect(findRoute(p, 'cloud')?.requireAuth, p).toBe(true);
    expect(findRoute('/dashboard', 'cloud')?.requireAuth).toBeFalsy();
  });

  it('offers the private extras only in private deployments', () => {
    for (const p of list(SPEC_PRIVATE)) {
      expect(findRoute(p, 'cloud'), p).toBeUndefined();
      expect(findRoute(p, 'private'), p).toBeDefined();
    }
    expect(routesFor('private').length).toBe(routesFor('cloud').length + 4);
  });

  it('lets public routes open without a session', () => {
    for (const p of list(SPEC_PUBLIC).filter((p) => p !== '/creatAuthorization')) {
      expect(findRoute(p, 'cloud')?.open, p).toBe(true);
    }
    expect(findRoute('/agentList', 'cloud')?.open).toBe(false);
  });

  it('matches a trailing slash and ignores case like the router', () => {
    expect(findRoute('/dashboard/', 'cloud')?.path).toBe('/dashboard');
    expect(findRoute('/DASHBOARD', 'cloud')?.path).toBe('/dashboard');
    expect(findRoute('/nope', 'cloud')).toBeUndefined();
  });
});
