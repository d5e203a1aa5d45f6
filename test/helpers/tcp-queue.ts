import { readFileSync } from 'node:fs';

/** 127.0.0.1:port as /proc/net/tcp writes it: the address's bytes in host order, then the port, in hex. */
const loopback = (port: number) => `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * The bytes the server side of a loopback connection (server port, client port) has received and its process
 * not read yet, from /proc/net/tcp: how a test tells that another process has read a request; undefined while
 * there is no such connection.
 */
export function unreadBytes(serverPort: number, clientPort: number): number | undefined {
  const [local, remote] = [loopback(serverPort), loopback(clientPort)];
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields[1] === local && fields[2] === remote) return Number.parseInt(fields[4]?.split(':')[1] ?? '', 16);
  }
  return undefined;
}
