import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { readIdentityBody, type BodyReadError } from '../../src/bindings/read-body.js';

/** A request body fed by hand. */
function requestOf(): PassThrough & IncomingMessage {
  return new PassThrough() as PassThrough & IncomingMessage;
}

function read(req: IncomingMessage, limit: number): Promise<{ error: BodyReadError | null; body: string }> {
  return new Promise((resolve) => readIdentityBody(req, limit, (error, body) => resolve({ error, body: body.toString('utf8') })));
}

describe('readIdentityBody', () => {
  it('joins the chunks of a body within the limit, the limit included (bytes, not characters)', async () => {
    const req = requestOf();
    const reading = read(req, Buffer.byteLength('hello wörl'));
    req.write('hello ');
    req.end('wörl');
    await expect(reading).resolves.toEqual({ error: null, body: 'hello wörl' });
  });

  it('reads an empty body', async () => {
    const req = requestOf();
    const reading = read(req, 10);
    req.end();
    await expect(reading).resolves.toEqual({ error: null, body: '' });
  });

  it('stops at the first chunk past the limit with a 413 and ignores the rest', async () => {
    const req = requestOf();
    const answers: Array<BodyReadError | null> = [];
    readIdentityBody(req, 8, (error) => answers.push(error));
    req.write('12345');
    req.write('6789');
    req.end('more');
    await new Promise((resolve) => setImmediate(resolve));
    expect(answers).toEqual([{ type: 'entity.too.large', status: 413, message: 'request entity too large' }]);
  });

  it('ends with request.aborted when the client goes away', async () => {
    const req = requestOf();
    const reading = read(req, 100);
    req.write('part');
    req.emit('aborted');
    await expect(reading).resolves.toEqual({ error: { type: 'request.aborted', status: 400, message: 'request aborted' }, body: '' });
  });
});
