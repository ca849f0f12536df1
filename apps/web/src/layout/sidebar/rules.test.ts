import { describe, expect, it } from 'vitest';
import { ADMIN_MENUS, USER_MENUS } from '@loupe/contracts';
import { menusLocked, permissionSidebar, sidebarFor, sidebarTypeFor, syntheticSidebar, trainingSidebar, versionTag } from './rules';

const keys = (groups: { key: string; items: { key: string }[] }[]) =>
  groups.map((g) => `${g.key}:${g.items.map((i) => i.key).join(',')}`);

describe('sidebar rules', () => {
  it('type 1 hides the model development group', () => {
    const groups = permissionSidebar(USER_MENUS, false);
    expect(groups.map((g) => g.key)).toEqual(['models', 'secondaryDevelopment', 'account']);
    expect(groups[0]!.items[0]).toMatchObject({ label: 'agentList', path: '/agentList', disabled: false });
  });

  it('type 1 hides tuning records, enums, operators and licences in private deployments only', () => {
    const cloud = permissionSidebar(ADMIN_MENUS, false)[0]!.items.map((i) => i.key);
    const priv = permissionSidebar(ADMIN_MENUS, true)[0]!.items.map((i) => i.key);
    for (const hidden of ['adjustmentRecord', 'enumManagement', 'operatorManagement', 'authorization']) {
      expect(cloud).toContain(hidden);
      expect(priv).not.toContain(hidden);
    }
    expect(priv).toContain('userManagement');
    expect(cloud.length - priv.length).toBe(4);
  });

  it('type 2 shows Synthesis (first six steps) and Download', () => {
    expect(keys(syntheticSidebar({ type: 'FPG' }))).toEqual([
      'synthesis:mark,background,preview,curate,generate,synthetic',
      'download:download',
    ]);
  });

  it('type 8 splits at 2, 3 and 6 and links typed steps', () => {
    const groups = trainingSidebar({ type: 'OCR', hasTraining: true }, false);
    expect(keys(groups)).toEqual([
      'data:gallery,mark',
      'agents:agent',
      'model:parameter,train,model',
      'deploy:testImage,test,download',
    ]);
    const paths = groups.flatMap((g) => g.items.map((i) => i.path));
    expect(paths).toEqual(['/gallery', '/mark/ocr', '/agent', '/parameter', '/train/ocr', '/model', '/testImage/ocr', '/test/ocr', '/download']);
  });

  it('type 8 hides Agents in private, Model and Deploy before the first training', () => {
    expect(trainingSidebar({ type: 'OCR', hasTraining: false }, false).map((g) => g.key)).toEqual(['data', 'agents']);
    expect(trainingSidebar({ type: 'OCR', hasTraining: true }, true).map((g) => g.key)).toEqual(['data', 'model', 'deploy']);
  });

  it('disables items while training or testing', () => {
    expect(menusLocked('training')).toBe(true);
    expect(menusLocked('testing')).toBe(true);
    expect(menusLocked('no')).toBe(false);
    const items = trainingSidebar({ type: 'OCR', projectStatus: 'testing', hasTraining: true }, false).flatMap((g) => g.items);
    expect(items.every((i) => i.disabled)).toBe(true);
  });

  it('uses the project sidebar on project pages only', () => {
    const project = { type: 'OCR', sidebarType: 8 as const };
    expect(sidebarTypeFor('/mark/ocr', project)).toBe(8);
    expect(sidebarTypeFor('/model', project)).toBe(8);
    expect(sidebarTypeFor('/modelManagement', project)).toBe(1);
    expect(sidebarTypeFor('/profile', project)).toBe(1);
    expect(sidebarTypeFor('/mark', null)).toBe(1);
    expect(sidebarTypeFor('/preview', { type: 'FPG', sidebarType: 2 })).toBe(2);
    expect(sidebarFor({ pathname: '/profile', menus: USER_MENUS, isPrivate: false, project }).map((g) => g.key)).toContain('account');
  });

  it('tags versions other than v0', () => {
    expect(versionTag('v0')).toBeNull();
    expect(versionTag(undefined)).toBeNull();
    expect(versionTag('v3')).toBe('finetuned_v3');
  });
});
