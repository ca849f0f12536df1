let lastBreath = performance.now();

/**
 * Lets other requests run when this one has held the event loop for more than a few ms. Loops over
 * request-sized input call it (multipart parts, ZIP entries, shapes, rows), so that no input, however
 * large, blocks the server for long (issue 30, item 4): promise chains run as microtasks, which never
 * give the event loop back on their own.
 */
export async function breathe(): Promise<void> {
  if (performance.now() - lastBreath < 10) return;
  await new Promise<void>((resolve) => setImmediate(resolve));
  lastBreath = performance.now();
}
