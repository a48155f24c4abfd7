/**
 * Buffers handed between the event loop and the compositor's threads live in shared memory: posting
 * them costs nothing. Both sides allocate them (the threads allocate what they produce, so the event
 * loop never allocates or fills a frame-size buffer), so this module has no side effects.
 */
export function sharedBytes(length: number): Uint8Array {
  return new Uint8Array(new SharedArrayBuffer(length));
}

export function sharedCopy(src: Uint8Array): Uint8Array {
  const b = sharedBytes(src.length);
  b.set(src);
  return b;
}
