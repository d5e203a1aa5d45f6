// The image's HEALTHCHECK (Dockerfile): exits 0 when the instance in this container answers /readyz with 200,
// 1 otherwise (503 while it stops or cannot reach its database, no answer, or none within 4 s). It asks the
// address the instance listens on, from the settings as the instance reads them (environment, *_FILE,
// CONFIG_FILE, PROFILE), with Node.js alone: the image has no curl.
import { loadConfig } from '../../dist/config/config.js';

try {
  const { host, port } = loadConfig();
  // Listening on every address (the image's HOST=0.0.0.0), the instance is reached on loopback.
  const address = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  const response = await fetch(`http://${address}:${port}/readyz`, { signal: AbortSignal.timeout(4000) });
  process.stdout.write(`/readyz: ${response.status} ${(await response.text()).trim()}\n`);
  process.exitCode = response.status === 200 ? 0 : 1;
} catch (error) {
  process.stdout.write(`/readyz: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
