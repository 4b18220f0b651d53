import { describe, expect, it } from 'vitest';
import { concurrencyLimit } from '../../supabase/functions/_shared/limits.ts';

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('the report concurrency limit', () => {
  it('never runs more reports at once than it has slots, and runs every one, first come first served', async () => {
    const limit = concurrencyLimit(2);
    let running = 0;
    let peak = 0;
    const started: number[] = [];
    const results = await Promise.all(
      Array.from({ length: 9 }, (_, i) =>
        limit(async () => {
          started.push(i);
          running++;
          peak = Math.max(peak, running);
          await tick();
          running--;
          return i * 10;
        })
      ),
    );
    expect(peak).toBe(2);
    expect(results).toEqual([0, 10, 20, 30, 40, 50, 60, 70, 80]);
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('frees the slot of a report that fails', async () => {
    const limit = concurrencyLimit(1);
    await expect(limit(() => Promise.reject(new Error('timeout')))).rejects.toThrow('timeout');
    await expect(limit(async () => 'next')).resolves.toBe('next');
  });
});
