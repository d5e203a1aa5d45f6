import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Another program's connection to the SQLite file, in an open write transaction (BEGIN EXCLUSIVE), as `sqlite3`
 * left at a prompt or a backup tool holds it: nobody else can write until it ends. Ended when its stdin closes,
 * so that it dies with the test process as well.
 */
const HOLDER = `
  const db = new (require('better-sqlite3'))(process.argv[1], { timeout: 0 });
  db.exec('BEGIN EXCLUSIVE');
  process.stdout.write('locked\\n');
  process.stdin.resume().on('end', () => { db.exec('ROLLBACK'); db.close(); });
`;

export interface HeldLock {
  /** Ends the transaction and the program, and waits for it to exit. */
  release(): Promise<void>;
}

/** Starts the program on `filename` and waits until it holds the lock. */
export async function holdWriteLock(filename: string): Promise<HeldLock> {
  const child = spawn(process.execPath, ['-e', HOLDER, filename], { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = once(child, 'exit');
  let output = '';
  child.stdout.setEncoding('utf8');
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: string) => {
      output += chunk;
      if (output.includes('locked\n')) resolve();
    });
    void exited.then(([code]) => reject(new Error(`the program holding ${filename} exited first (${String(code)})`)));
  });
  return {
    async release() {
      if (child.exitCode === null && child.signalCode === null) child.stdin.end();
      await exited;
    },
  };
}
