import { vi } from 'vitest';

/** A stand-in XMLHttpRequest the test answers by hand: it records each request's parts and headers. */
export class FakeXhr {
  static all: FakeXhr[] = [];
  url = '';
  headers: Record<string, string> = {};
  body: FormData | null = null;
  status = 0;
  responseText = '';
  upload: { onprogress: ((e: { loaded: number }) => void) | null } = { onprogress: null };
  onload: (() => void) | null = null;
  onerror: (() => void) | null = null;
  onabort: (() => void) | null = null;

  open(_method: string, url: string) {
    this.url = url;
  }
  setRequestHeader(name: string, value: string) {
    this.headers[name] = value;
  }
  send(body: FormData) {
    this.body = body;
    FakeXhr.all.push(this);
  }
  abort() {
    this.onabort?.();
  }
  /** Part names of the multipart body, in order. */
  names(field = 'files'): string[] {
    return (this.body?.getAll(field) ?? []).map((f) => (f as File).name);
  }
  respond(data: unknown, code = 0, message = 'ok', status = 200) {
    this.status = status;
    this.responseText = JSON.stringify({ code, message, data });
    this.onload?.();
  }
  fail() {
    this.onerror?.();
  }

  static install() {
    FakeXhr.all = [];
    vi.stubGlobal('XMLHttpRequest', FakeXhr);
  }
}
