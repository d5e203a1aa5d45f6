import { printJson, printList, StreamedJsonObject } from '../../src/cli/output.js';
import { capturingIo } from '../helpers/cli-harness.js';

describe('printList', () => {
  it('aligns the columns of 200,000 rows (the widths were once spread as arguments, which overflowed the stack)', () => {
    const io = capturingIo();
    const rows = Array.from({ length: 200_000 }, (_, index) => ({ id: `m${index}`, status: 'imported' }));
    printList(io, false, rows, 'none');
    const lines = io.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(200_001);
    expect(lines[0]).toBe('ID       STATUS');
    expect(lines[200_000]).toBe('m199999  imported');
  });
});

describe('StreamedJsonObject', () => {
  const summary = { rows: 3, nested: { deeper: [1, 2] } };

  it.each([
    ['no items', []],
    ['one item', [{ line: 3, id: 'm3', reason: 'a "quoted"\nreason' }]],
    ['items of every kind', [{ line: 3, id: null, list: [1, { a: 'b' }] }, 'text', 7, [], {}]],
  ])('writes, item by item, the text printJson prints of the whole object: %s', (_what, items: unknown[]) => {
    const whole = capturingIo();
    printJson(whole, { refused: items, summary, interrupted: false });
    const streamed = capturingIo();
    const document = new StreamedJsonObject(streamed, 'refused');
    for (const item of items) document.item(item);
    document.end({ summary, interrupted: false });
    expect(streamed.stdout).toBe(whole.stdout);
  });

  it('writes nothing before its first item', () => {
    const io = capturingIo();
    new StreamedJsonObject(io, 'refused');
    expect(io.stdout).toBe('');
  });
});
