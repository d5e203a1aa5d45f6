/** writeAll writes all of a text to a file descriptor before it returns, through partial writes and EAGAIN. */
import { writeAll, type WriteSync } from '../../src/log/write-all.js';

const errno = (code: string) => Object.assign(new Error(code), { code });

/** A writeSync that answers with `steps` in turn: a number takes at most that many bytes, a string throws that code. */
function fakeWriteSync(steps: Array<number | string>) {
  const taken: Buffer[] = [];
  const fds: number[] = [];
  let calls = 0;
  const write: WriteSync = (fd, buffer) => {
    fds.push(fd);
    const step = steps[calls++] ?? Infinity;
    if (typeof step === 'string') throw errno(step);
    const bytes = Math.min(step, buffer.length);
    taken.push(Buffer.from(buffer.subarray(0, bytes)));
    return bytes;
  };
  return { write, fds, calls: () => calls, text: () => Buffer.concat(taken).toString('utf8') };
}

describe('writeAll', () => {
  it('writes a text the descriptor takes at once in one write', () => {
    const fake = fakeWriteSync([]);
    writeAll(1, 'one\ntwo\n', fake.write);
    expect(fake.calls()).toBe(1);
    expect(fake.fds).toEqual([1]);
    expect(fake.text()).toBe('one\ntwo\n');
  });

  it('writes the rest after a partial write, byte-exact across a multi-byte character', () => {
    const fake = fakeWriteSync([3, 1, 2]);
    writeAll(7, 'ab€cd\n', fake.write); // '€' is 3 bytes: the writes split it
    expect(fake.calls()).toBe(4);
    expect(fake.fds).toEqual([7, 7, 7, 7]);
    expect(fake.text()).toBe('ab€cd\n');
  });

  it('tries again after EAGAIN until the descriptor takes everything, in order', () => {
    const fake = fakeWriteSync(['EAGAIN', 2, 'EAGAIN', 'EAGAIN', 3]);
    writeAll(1, '0123456789', fake.write);
    expect(fake.calls()).toBe(6);
    expect(fake.text()).toBe('0123456789');
  });

  it('drops the rest on any other error instead of throwing or retrying', () => {
    const fake = fakeWriteSync([4, 'EPIPE', 100]);
    expect(() => writeAll(1, '0123456789', fake.write)).not.toThrow();
    expect(fake.calls()).toBe(2);
    expect(fake.text()).toBe('0123');
  });

  it('does not write an empty text', () => {
    const fake = fakeWriteSync([]);
    writeAll(1, '', fake.write);
    expect(fake.calls()).toBe(0);
  });
});
