/** src/provisioning/one-at-a-time.ts: the calls of one key in turn, in the order they came; other keys beside them. */
import { oneAtATime } from '../../src/provisioning/one-at-a-time.js';

/** A call that records when it starts and ends, and ends when the test says so. */
function gate(log: string[], name: string) {
  let open = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return {
    open,
    work: async () => {
      log.push(`${name} starts`);
      await opened;
      log.push(`${name} ends`);
      return name;
    },
  };
}

const settled = () => new Promise((resolve) => setImmediate(resolve));

test('calls of one key run one after another, in order, whatever each of them answers; another key runs meanwhile', async () => {
  const run = oneAtATime();
  const log: string[] = [];
  const [a1, a2, a3, b1] = ['a1', 'a2', 'a3', 'b1'].map((name) => gate(log, name)) as [ReturnType<typeof gate>, ReturnType<typeof gate>, ReturnType<typeof gate>, ReturnType<typeof gate>];
  const first = run('a', a1.work);
  const failing = run('a', async () => {
    await a2.work();
    throw new Error('refused');
  });
  const third = run('a', a3.work);
  const other = run('b', b1.work);
  await settled();
  expect(log).toEqual(['a1 starts', 'b1 starts']);
  b1.open();
  await expect(other).resolves.toBe('b1');
  a1.open();
  await expect(first).resolves.toBe('a1');
  await settled();
  expect(log).toEqual(['a1 starts', 'b1 starts', 'b1 ends', 'a1 ends', 'a2 starts']);
  a2.open();
  await expect(failing).rejects.toThrow('refused');
  a3.open();
  await expect(third).resolves.toBe('a3');
  expect(log.slice(-3)).toEqual(['a2 ends', 'a3 starts', 'a3 ends']);
  // The key's turn is over: a new call starts at once.
  const again = gate(log, 'a4');
  const fourth = run('a', again.work);
  await settled();
  expect(log.at(-1)).toBe('a4 starts');
  again.open();
  await expect(fourth).resolves.toBe('a4');
});
