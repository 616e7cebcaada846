import { describe, expect, it } from 'bun:test';
import { recordEvents, rowCount } from '../../../tests/helpers/app';
import { transact } from '../../realtime/emit';
import { ensurePlatformVariables } from './platform';
import { variableApp as setup } from './test-support';

describe('platform variables inside a caller transact (§10 rule 3)', () => {
  it('publish variable.created only after the commit, and nothing when the caller rolls back', () => {
    const t = setup();
    t.deps.sqlite.run('DELETE FROM variables WHERE subsystem_id = ?', [t.media._id]);
    const seen = recordEvents(t, (e) => e.type === 'variable.created');
    const inside: number[] = [];
    expect(() =>
      transact(t.deps, () => {
        ensurePlatformVariables(t.deps, t.media._id);
        inside.push(seen.length);
        throw new Error('the caller refused');
      }),
    ).toThrow('the caller refused');
    expect(inside).toEqual([0]);
    expect(seen).toEqual([]);
    expect(rowCount(t, 'variables', `subsystem_id = ${t.media._id}`)).toBe(0);

    transact(t.deps, () => {
      ensurePlatformVariables(t.deps, t.media._id);
      inside.push(seen.length);
    });
    expect(inside).toEqual([0, 0]);
    expect(seen.map((e) => e.data.externalRef)).toEqual(['is_alive', 'last_contacted_at']);
  });
});
