import { printList } from '../../src/cli/output.js';
import { capturingIo } from './harness.js';

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
