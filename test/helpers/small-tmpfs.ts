import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { open, rm, statfs } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Requirement } from './requirements.js';

/** A file system small enough to fill in a test: 2 MiB, as the tests' DATA_DIR. */
const SIZE = '2m';
const FILLER = 'filler';

function mount(path: string, options: string): void {
  execFileSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', path], { stdio: 'pipe' });
}

/** Lazily when busy: a file a failed test left open must not leave the mount behind. */
function unmount(path: string): void {
  try {
    execFileSync('umount', [path], { stdio: 'pipe' });
  } catch {
    execFileSync('umount', ['--lazy', path], { stdio: 'pipe' });
  }
}

/** Whether this process may mount a tmpfs (root, or a container that allows it): tried once, as the module loads. */
function probe(): string | undefined {
  const path = mkdtempSync(join(tmpdir(), 'tmpfs-probe-'));
  try {
    mount(path, `size=${SIZE}`);
    unmount(path);
    return undefined;
  } catch (error) {
    return `cannot mount a tmpfs (${((error as { stderr?: Buffer }).stderr?.toString() || (error as Error).message).trim()}); run the tests as root`;
  } finally {
    rmSync(path, { recursive: true, force: true });
  }
}

/** Mounting a tmpfs: test/helpers/requirements.ts fails the tests that need it under CI where it is missing. */
export const TMPFS: Requirement = { what: 'a tmpfs mount', missing: probe() };

export interface SmallTmpfs {
  /** The mount point: a data directory on a file system of its own. */
  readonly path: string;
  /** Takes every free block of the file system with one file, so that the next write that needs a block fails (ENOSPC). */
  fill(): Promise<void>;
  /** Removes the file fill() wrote. */
  free(): Promise<void>;
  /** Mounts it again read-only (nothing may hold a file open for writing on it) or read-write. */
  remount(mode: 'ro' | 'rw'): void;
  /** Unmounts it and removes the mount point; for afterAll. */
  remove(): void;
}

/** A 2 MiB tmpfs mounted on a new directory; TMPFS says whether it can be. */
export function mountSmallTmpfs(): SmallTmpfs {
  const path = mkdtempSync(join(tmpdir(), 'small-tmpfs-'));
  mount(path, `size=${SIZE},mode=0700`);
  const filler = join(path, FILLER);
  return {
    path,
    async fill() {
      const file = await open(filler, 'a');
      // Smaller and smaller writes, down to one byte, so that no block is left.
      try {
        for (const size of [65_536, 4096, 1]) {
          const chunk = Buffer.alloc(size);
          for (;;) {
            try {
              await file.write(chunk);
            } catch (error) {
              if ((error as NodeJS.ErrnoException).code === 'ENOSPC') break;
              throw error;
            }
          }
        }
      } finally {
        await file.close();
      }
      const { bavail } = await statfs(path);
      if (bavail !== 0) throw new Error(`${path} still has ${bavail} free blocks after filling it`);
    },
    async free() {
      await rm(filler, { force: true });
    },
    remount(mode) {
      execFileSync('mount', ['-o', `remount,${mode}`, path], { stdio: 'pipe' });
    },
    remove() {
      unmount(path);
      rmSync(path, { recursive: true, force: true });
    },
  };
}
