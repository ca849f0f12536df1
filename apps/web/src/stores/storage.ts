/** Storage that tolerates browsers where web storage throws (private modes, disabled cookies). */
function safe(store: () => Storage | undefined) {
  return {
    get(key: string): string | null {
      try {
        return store()?.getItem(key) ?? null;
      } catch {
        return null;
      }
    },
    set(key: string, value: string | null): void {
      try {
        if (value === null) store()?.removeItem(key);
        else store()?.setItem(key, value);
      } catch {
        // Nothing to do: state then lives in memory only.
      }
    },
    getJson<T>(key: string): T | null {
      const raw = this.get(key);
      if (raw === null) return null;
      try {
        return JSON.parse(raw) as T;
      } catch {
        return null;
      }
    },
    setJson(key: string, value: unknown): void {
      this.set(key, value === null || value === undefined ? null : JSON.stringify(value));
    },
  };
}

export const local = safe(() => globalThis.localStorage);
export const session = safe(() => globalThis.sessionStorage);
