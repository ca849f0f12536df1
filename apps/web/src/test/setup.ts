import { afterEach } from 'vitest';

// jsdom has no layout: the shell's scroll-to-top on navigation would log a not-implemented error.
window.scrollTo = () => undefined;

afterEach(() => {
  localStorage.clear();
  sessionStorage.clear();
});
