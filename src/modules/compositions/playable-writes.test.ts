/** A composition's playable written through /playables (§15 rule 1): what the composition builds stays its own. */
import { describe, expect, it } from 'bun:test';
import { compositionApp } from './test-support';

describe("PUT /playables/{id} on a composition's playable", () => {
  it('ignores type, objects, templatePath, duration and command; names and flags change', async () => {
    const t = await compositionApp();
    const composition = await t.compose();
    const before = await t.get(`/playables/${composition.playableId}`);
    const res = await t.call('PUT', `/playables/${composition.playableId}`, {
      as: 'admin',
      body: {
        type: 'standard',
        objects: [t.logo._id],
        templatePath: null,
        duration: 5,
        command: 'PLAY something else',
        displayName: 'Ticker (lobby)',
        forceCached: true,
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      type: 'composition',
      objects: before.objects,
      templatePath: before.templatePath,
      duration: before.duration,
      command: before.command,
      displayName: 'Ticker (lobby)',
      forceCached: true,
    });
  });
});
