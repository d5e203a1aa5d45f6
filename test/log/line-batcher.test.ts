/**
 * The LineBatcher: the lines of one turn of the event loop go to its synchronous destination in one write, in
 * order, at the end of the turn; what is pending at exit is written then, and a line after exit at once.
 */
import { LineBatcher } from '../../src/log/line-batcher.js';
import { nextTurn } from '../helpers/wait.js';


function batcher() {
  const writes: string[] = [];
  let exit: (() => void) | undefined;
  const lines = new LineBatcher(
    (text) => writes.push(text),
    (flush) => {
      exit = flush;
    },
  );
  return { lines, writes, exit: () => exit?.() };
}

describe('the LineBatcher', () => {
  it('writes the lines of one turn in one write at its end, in order, and each later turn on its own', async () => {
    const { lines, writes } = batcher();
    lines.write('one\n');
    lines.write('two\n');
    lines.write('three\n');
    expect(writes).toEqual([]);
    await nextTurn();
    expect(writes).toEqual(['one\ntwo\nthree\n']);
    lines.write('four\n');
    await nextTurn();
    await nextTurn();
    expect(writes).toEqual(['one\ntwo\nthree\n', 'four\n']);
  });

  it('waits for the end of the turn, not of the current task: lines of later microtasks join the same write', async () => {
    const { lines, writes } = batcher();
    lines.write('sync\n');
    await Promise.resolve();
    lines.write('microtask\n');
    await new Promise<void>((resolve) => process.nextTick(resolve));
    lines.write('next tick\n');
    expect(writes).toEqual([]);
    await nextTurn();
    expect(writes).toEqual(['sync\nmicrotask\nnext tick\n']);
  });

  it('writes nothing for a turn without lines', async () => {
    const { lines, writes } = batcher();
    lines.flush();
    await nextTurn();
    expect(writes).toEqual([]);
  });

  it('at exit, writes what is pending at once, in order, and nothing twice', async () => {
    const { lines, writes, exit } = batcher();
    lines.write('first\n');
    lines.write('second\n');
    exit();
    expect(writes).toEqual(['first\nsecond\n']);
    await nextTurn();
    expect(writes).toEqual(['first\nsecond\n']);
  });

  it('after exit, writes each line at once, after what was pending', () => {
    const { lines, writes, exit } = batcher();
    lines.write('pending\n');
    exit();
    lines.write('from a later exit listener\n');
    lines.write('and another\n');
    expect(writes).toEqual(['pending\n', 'from a later exit listener\n', 'and another\n']);
  });

  it('registers its exit flush on the process by default', () => {
    const before = process.listenerCount('exit');
    new LineBatcher(() => {});
    expect(process.listenerCount('exit')).toBe(before + 1);
    process.removeListener('exit', process.listeners('exit').at(-1) as () => void);
  });
});
