import fs from 'node:fs';

/**
 * Remembers each open file's `fstat` until something changes it. Emscripten's NODEFS answers every
 * `lseek(fd, 0, SEEK_END)` with an `fs.fstatSync`, and PostgreSQL asks a relation's size that way
 * each time it plans a statement or extends a table: ~14 % of the embedded database thread's busy
 * time under order load, each a system call and a Stats object. A file's size changes only through
 * a write or truncation of its own descriptor (one per open segment in a PostgreSQL backend), or
 * by path (truncate, unlink, rename), which forgets every size. Installed in the database's worker
 * thread only: nothing else does file I/O there.
 */
export function rememberFileSizes(): void {
  const sizes = new Map<number, fs.Stats>();
  const fstatSync = fs.fstatSync;
  const patch = fs as unknown as Record<string, unknown>;
  patch.fstatSync = (fd: number, options?: fs.StatOptions) => {
    if (options) return fstatSync(fd, options);
    let stats = sizes.get(fd);
    if (!stats) {
      stats = fstatSync(fd);
      sizes.set(fd, stats);
    }
    return stats;
  };
  for (const name of ['writeSync', 'ftruncateSync', 'closeSync', 'futimesSync', 'fchmodSync'] as const) {
    const original = fs[name] as (...args: unknown[]) => unknown;
    patch[name] = (fd: number, ...rest: unknown[]) => {
      sizes.delete(fd);
      return original(fd, ...rest);
    };
  }
  // By path: a truncation, removal or rename, or an open that may truncate (or reuse a number).
  for (const name of ['truncateSync', 'unlinkSync', 'renameSync', 'rmSync', 'writeFileSync', 'openSync'] as const) {
    const original = fs[name] as (...args: unknown[]) => unknown;
    patch[name] = (...args: unknown[]) => {
      sizes.clear();
      return original(...args);
    };
  }
}
