import { describe, expect, it } from 'bun:test';
import { upsertTarget } from './upsert';

describe('upsertTarget (C: Requests)', () => {
  const rows = new Map([
    [1, 'one'],
    [2, 'two'],
  ]);
  const byId = (id: number) => rows.get(id);

  it('takes the row _id names, without asking the natural key', () => {
    expect(upsertTarget(1, byId, () => expect.unreachable())).toBe('one');
  });

  it('asks the natural key when there is no _id or it names nothing; none means create', () => {
    expect(upsertTarget(undefined, byId, () => 'two')).toBe('two');
    expect(upsertTarget(99, byId, () => 'two')).toBe('two');
    expect(upsertTarget(99, byId, () => undefined)).toBeUndefined();
  });

  it('lets a refusal of the row _id names through', () => {
    const refuse = () => {
      throw new Error('refused');
    };
    expect(() => upsertTarget(1, refuse, () => 'two')).toThrow('refused');
  });
});
