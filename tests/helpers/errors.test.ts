import { describe, expect, it } from 'bun:test';
import { spellsItsField } from './errors';

describe('spellsItsField (C: Errors: the path names the field, the message says what is wrong)', () => {
  it('finds the field spelled again in its message', () => {
    expect(spellsItsField('/recurrence/until', 'until and count cannot both be given')).toBe(true);
    expect(spellsItsField('/startTime', 'is required (startTime or startTimeLocal)')).toBe(true);
    expect(spellsItsField('/parameters/0/parameter', 'names no parameter of this subsystem')).toBe(true);
    expect(spellsItsField('/items', 'must have at most 500 items')).toBe(true);
    expect(spellsItsField('/templatePath/_id', 'must be the _id of a template playable')).toBe(true);
  });

  it('leaves other words, other fields, indexes, one-letter keys and other cases alone', () => {
    expect(spellsItsField('/recurrence/until', 'cannot be given together with count')).toBe(false);
    expect(spellsItsField('/startTime', 'is required (or startTimeLocal)')).toBe(false);
    expect(spellsItsField('/roleIds/1', 'names a role that does not exist')).toBe(false);
    expect(spellsItsField('/parameters', 'must have at most 500 entries')).toBe(false);
    expect(spellsItsField('/metadata/a', 'has a key that is not 1 to 64 characters long')).toBe(false);
    expect(spellsItsField('/url', 'must be an http or https URL')).toBe(false);
    expect(spellsItsField('/', 'must be an object')).toBe(false);
  });
});
