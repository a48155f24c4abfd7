import { closeSync, constants, ftruncateSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/**
 * One process at a time opens a data directory's embedded database: PGlite has no locking of its
 * own, and two processes on the same files corrupt them. The guard is an operating-system lock on
 * `DATA_DIR/server.lock` (open-file-description locks on Linux, `flock` on macOS, `LockFileEx` on
 * Windows, through fs-native-extensions): the kernel drops it when the holder exits, however it
 * exits, so there is no stale lock to clean up and no process id that could have been reused.
 * The file's content only says who holds it; it is trusted only while the lock is held.
 */
const native = createRequire(import.meta.url)('fs-native-extensions') as {
  tryLock(fd: number): boolean;
  unlock(fd: number): void;
};

export interface LockHolder {
  pid: number;
  /** A server (`npm start`) or the operator CLI working on the database itself. */
  role: 'server' | 'podctl';
  /** The configured port; the listening one once `url` is known. */
  port?: number;
  /** The server's own address, once it listens: the CLI reaches its operator API there. */
  url?: string;
  since: string;
}

export const lockFile = (dataDir: string): string => join(dataDir, 'server.lock');

export class DataDirBusy extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder | null,
  ) {
    super(`${dataDir} is in use by ${describeHolder(holder)}`);
    this.name = 'DataDirBusy';
  }
}

/** "the server with pid 41 on port 3000", for one-line messages. */
export function describeHolder(holder: LockHolder | null): string {
  if (!holder) return 'another process';
  if (holder.role === 'podctl') return `podctl (pid ${holder.pid})`;
  const port = holder.port === undefined ? '' : ` on port ${holder.port}`;
  return `the server with pid ${holder.pid}${port}${holder.url ? ` (${holder.url})` : ', still starting'}`;
}

export interface DataDirLock {
  readonly dataDir: string;
  /** Tells others more about the holder (the server's address once it listens). */
  describe(update: Partial<Omit<LockHolder, 'pid' | 'since'>>): void;
  /** Lets go of the directory (the process's exit does the same). */
  release(): void;
}

function readHolder(path: string): LockHolder | null {
  try {
    const holder = JSON.parse(readFileSync(path, 'utf8')) as LockHolder;
    return Number.isSafeInteger(holder?.pid) ? holder : null;
  } catch {
    return null;
  }
}

/** Read and write: an exclusive lock needs a writable descriptor. */
function openLockFile(dataDir: string, create: boolean): number {
  if (create) mkdirSync(dataDir, { recursive: true });
  return openSync(lockFile(dataDir), constants.O_RDWR | (create ? constants.O_CREAT : 0), 0o600);
}

/** Takes the data directory for this process, or throws `DataDirBusy` naming the holder. */
export function lockDataDir(dataDir: string, role: LockHolder['role'], port?: number): DataDirLock {
  const fd = openLockFile(dataDir, true);
  if (!native.tryLock(fd)) {
    closeSync(fd);
    throw new DataDirBusy(dataDir, readHolder(lockFile(dataDir)));
  }
  let holder: LockHolder = { pid: process.pid, role, port, since: new Date().toISOString() };
  const write = () => {
    ftruncateSync(fd, 0);
    writeSync(fd, JSON.stringify(holder), 0);
  };
  write();
  let held = true;
  return {
    dataDir,
    describe(update) {
      holder = { ...holder, ...update };
      if (held) write();
    },
    release() {
      if (!held) return;
      held = false;
      // The file stays: removing a locked file would let a third process lock a new one beside it.
      ftruncateSync(fd, 0);
      native.unlock(fd);
      closeSync(fd);
    },
  };
}

/**
 * Whether a live process holds the data directory, and who (`holder` null: its file does not say);
 * null when nobody does. Creates nothing.
 */
export function dataDirHeld(dataDir: string): { holder: LockHolder | null } | null {
  let fd: number;
  try {
    fd = openLockFile(dataDir, false);
  } catch {
    return null;
  }
  try {
    if (native.tryLock(fd)) {
      native.unlock(fd);
      return null;
    }
    return { holder: readHolder(lockFile(dataDir)) };
  } finally {
    closeSync(fd);
  }
}
