import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Errors, type AnnotationImportData, type LabelData, type ModelData, type UploadData } from '@loupe/contracts';
import { call, newUser, startApp, type TestApp } from './helper.js';
import { draw, folderUrl, newModel, send, uploadUrl, userToken, zip, zipUrl } from './gallery-fixtures.js';

/** Every name a user gives refuses control, zero-width and bidirectional-override characters (contracts' names.ts). */
let t: TestApp;
let token: string;
beforeAll(async () => {
  t = await startApp();
  token = await userToken(t.app);
});
afterAll(() => t.close());

const RLO = '\u202E';
const ZWSP = '\u200B';

describe('names', () => {
  it('refuses them in every name field of a registration, naming the field and the character in the user language', async () => {
    const fields: [string, string][] = [
      ['firstName', 'First name'],
      ['lastName', 'Last name'],
      ['company', 'Company'],
      ['country', 'Country'],
      ['jobTitle', 'Job title'],
    ];
    for (const [field, shown] of fields) {
      const user = newUser({ [field]: `Evil${RLO}gpj.exe` });
      const r = await call(t.app, 'POST', '/api/register', user);
      expect(r, field).toMatchObject({ status: 400, code: Errors.nameCharacters.code });
      expect(r.message).toBe(`${shown} contains a character that is not allowed in names (U+202E): control, zero-width or text-direction characters.`);
      // Nothing was written: the same e-mail registers fine with a clean name.
      expect((await call(t.app, 'POST', '/api/register', { ...user, [field]: 'Clean' })).code, field).toBe(0);
    }
    const de = await call(t.app, 'POST', '/api/register', newUser({ firstName: 'A\tB' }), { lang: 'de' });
    expect(de.message).toBe('Vorname enthält ein Zeichen, das in Namen nicht erlaubt ist (U+0009): Steuerzeichen, Zeichen ohne Breite oder Textrichtungszeichen.');
  });

  it('refuses them in profile changes and leaves the profile as it was', async () => {
    for (const body of [{ firstName: `Ada${ZWSP}` }, { lastName: 'Love\u0000lace' }, { company: 'AC\uFEFFME' }, { companyId: 'x\u2066y' }]) {
      const r = await call(t.app, 'PUT', '/api/profile', body, { token });
      expect(r, JSON.stringify(body)).toMatchObject({ status: 400, code: Errors.nameCharacters.code });
    }
    const p = await call<{ firstName: string; company: string }>(t.app, 'GET', '/api/profile', undefined, { token });
    expect(p.data).toMatchObject({ firstName: 'Ada', company: 'Analytical Engines' });
  });

  it('refuses them in model names (create and rename) but not in the free-text note', async () => {
    const bad = await call(t.app, 'POST', '/api/models', { name: `cats${ZWSP}`, type: 'DETECTION' }, { token });
    expect(bad).toMatchObject({ status: 400, code: Errors.nameCharacters.code });
    const m = await newModel(t.app, token, 'DETECTION', 'plain');
    const rename = await call(t.app, 'PUT', `/api/models/${m.id}`, { name: `pl${RLO}ain` }, { token });
    expect(rename.code).toBe(Errors.nameCharacters.code);
    const note = await call<ModelData>(t.app, 'PUT', `/api/models/${m.id}`, { note: 'line one\nline two' }, { token });
    expect(note.code, note.message).toBe(0);
    expect((await call<ModelData>(t.app, 'GET', `/api/models/${m.id}`, undefined, { token })).data.name).toBe('plain');
  });

  it('refuses them in label names, typed or made from a folder name', async () => {
    const m = await newModel(t.app, token, 'classification');
    const typed = await call(t.app, 'POST', `/api/models/${m.id}/labels`, { name: `ok${RLO}` }, { token });
    expect(typed).toMatchObject({ status: 400, code: Errors.nameCharacters.code });
    const good = await call<LabelData>(t.app, 'POST', `/api/models/${m.id}/labels`, { name: 'ok' }, { token });
    expect(good.code, good.message).toBe(0);
    const renamed = await call(t.app, 'PUT', `/api/models/${m.id}/labels/${good.data.id}`, { name: `o${ZWSP}k` }, { token });
    expect(renamed.code).toBe(Errors.nameCharacters.code);

    const up = await send<UploadData>(t.app, token, folderUrl(m.id), [
      { filename: `b${RLO}ad/1.png`, data: await draw('png', 40, 40, 9101) },
      { filename: 'ok/2.png', data: await draw('png', 40, 40, 9102) },
    ]);
    expect(up.code, up.message).toBe(0);
    const [bad, ok] = up.data.results;
    expect(bad).toMatchObject({ status: 'refused', code: Errors.labelCreateFailed.code });
    expect(bad!.message).toContain('U+202E');
    expect(ok).toMatchObject({ status: 'accepted' });
    const labels = await call<LabelData[]>(t.app, 'GET', `/api/models/${m.id}/labels`, undefined, { token });
    expect(labels.data.map((l) => l.name)).toEqual(['ok']);
  });

  it('refuses them in label names an annotation import would create, with the reason in the result', async () => {
    const m = await newModel(t.app, token, 'DETECTION');
    const up = await send<UploadData>(t.app, token, uploadUrl(m.id), [{ filename: 'a.png', data: await draw('png', 200, 100, 9201) }]);
    expect(up.data.accepted).toBe(1);
    const coco = {
      images: [{ id: 1, file_name: 'a.png', width: 200, height: 100 }],
      categories: [{ id: 1, name: `scr${ZWSP}atch` }, { id: 2, name: 'dent' }],
      annotations: [
        { id: 1, image_id: 1, category_id: 1, bbox: [10, 20, 30, 40] },
        { id: 2, image_id: 1, category_id: 2, bbox: [50, 20, 30, 40] },
      ],
    };
    const r = await send<AnnotationImportData>(t.app, token, zipUrl(m.id), [{ field: 'file', filename: 'ann.zip', data: await zip([{ path: 'coco.json', data: JSON.stringify(coco) }]) }]);
    expect(r.code, r.message).toBe(0);
    expect(r.data.labelsCreated).toEqual(['dent']);
    const refused = r.data.results.find((x) => x.code === Errors.labelCreateFailed.code);
    expect(refused?.message).toContain('(U+200B)');
    expect(refused?.message).not.toContain('{{');
  });
});
