import { duration, RowProgressDisplay } from '../../src/cli/progress.js';
import type { ImportProgress } from '../../src/service/member-import.js';
import { capturingIo } from '../helpers/cli-harness.js';

const ERASE = '\r\x1b[2K';

function progress(rowsDone: number, rowsTotal = 1_000_000): ImportProgress {
  return { rowsTotal, rowsDone, imported: rowsDone, existing: 0, refused: 0 };
}

function display(terminal: boolean) {
  const io = { ...capturingIo(), errIsTerminal: terminal };
  let now = 1_000_000;
  const shown = new RowProgressDisplay(io, { now: () => now });
  return { io, shown, advance: (ms: number) => (now += ms) };
}

describe('RowProgressDisplay', () => {
  it('prints nothing without a terminal until 10 s or 100,000 rows have passed, then a plain line', () => {
    const { io, shown, advance } = display(false);
    shown.checking({ bytesRead: 10, rows: 1000 }, 100);
    shown.advanced(progress(1000));
    advance(5000);
    shown.advanced(progress(50_000));
    expect(io.stderr).toBe('');
    advance(5000);
    shown.advanced(progress(100_000));
    expect(io.stderr).toBe('imported 100,000 of 1,000,000 rows (9,900 rows/s, about 1 min 31 s left)\n');
    advance(1000);
    shown.advanced(progress(150_000));
    expect(io.stderr.split('\n')).toHaveLength(2);
    advance(1000);
    shown.advanced(progress(200_000));
    expect(io.stderr.split('\n')[1]).toBe('imported 200,000 of 1,000,000 rows (16,583 rows/s, about 48 s left)');
  });

  it('redraws one terminal line at most every 200 ms, the check as a percentage of the file, and erases it when cleared', () => {
    const { io, shown, advance } = display(true);
    shown.checking({ bytesRead: 250, rows: 1000 }, 1000);
    expect(io.stderr).toBe(`${ERASE}checking the file: 25% (1,000 rows)`);
    advance(100);
    shown.checking({ bytesRead: 500, rows: 2000 }, 1000);
    expect(io.stderr).toBe(`${ERASE}checking the file: 25% (1,000 rows)`);
    advance(100);
    shown.advanced(progress(1000, 4000));
    expect(io.stderr.endsWith(`${ERASE}imported 1,000 of 4,000 rows`)).toBe(true);
    advance(1000);
    shown.advanced(progress(3000, 4000));
    expect(io.stderr.endsWith(`${ERASE}imported 3,000 of 4,000 rows (2,000 rows/s, about 1 s left)`)).toBe(true);
    advance(1);
    // The last rows are always drawn.
    shown.advanced(progress(4000, 4000));
    expect(io.stderr).toContain('imported 4,000 of 4,000 rows');
    shown.clear();
    shown.clear();
    expect(io.stderr.endsWith(`rows/s, about 0 s left)${ERASE}`)).toBe(true);
    expect(io.stderr).not.toContain('\n');
  });

  it('takes the rate over the last 10 s', () => {
    const { shown, advance } = display(true);
    shown.advanced(progress(0));
    advance(10_000);
    shown.advanced(progress(500_000));
    for (let second = 1; second <= 11; second++) {
      advance(1000);
      shown.advanced(progress(500_000 + second * 1000));
    }
    expect(shown.line(progress(511_000))).toBe('imported 511,000 of 1,000,000 rows (1,000 rows/s, about 8 min 09 s left)');
  });
});

describe('duration', () => {
  it.each([
    [0, '0 s'],
    [59.4, '59 s'],
    [60, '1 min 00 s'],
    [3599, '59 min 59 s'],
    [3600, '1 h 00 min'],
    [5 * 3600 + 7 * 60 + 30, '5 h 07 min'],
  ])('writes %j seconds as %j', (seconds, text) => {
    expect(duration(seconds)).toBe(text);
  });
});
