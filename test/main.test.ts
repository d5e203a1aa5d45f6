import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config/config.js';
import { serve } from '../src/main.js';
import { StartupError } from '../src/startup-error.js';

test('serve() refuses a port in use with a StartupError that says so', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'asmx-main-'));
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const port = (blocker.address() as AddressInfo).port;
  try {
    const started = serve(loadConfig({ PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'silent' }));
    await expect(started).rejects.toBeInstanceOf(StartupError);
    await expect(started).rejects.toThrow(`cannot listen on 127.0.0.1:${port}: the address is already in use (set PORT or HOST)`);
  } finally {
    blocker.close();
    await rm(dataDir, { recursive: true, force: true });
  }
});
