/**
 * Where each composition's latest preview went (§15: `preview/stop` queues `previewStop` "to the same
 * target"): a stop without `targetSubsystemId` goes there, not to the composition's own subsystem.
 * Kept in memory: a preview is a moment on a screen, and after a restart a stop without a target goes
 * to the composition's own subsystem, as before any preview. A remembered target is only used for the
 * playable it was previewed with, so a composition id used again by a new composition starts afresh.
 */
export class PreviewTargets {
  private readonly last = new Map<number, { target: number; playableId: number | null }>();

  remember(compositionId: number, playableId: number | null, target: number): void {
    this.last.set(compositionId, { target, playableId });
  }

  /** The target of the composition's latest preview, if it was of this playable. */
  targetOf(compositionId: number, playableId: number | null): number | undefined {
    const last = this.last.get(compositionId);
    return last && last.playableId === playableId ? last.target : undefined;
  }

  /** The preview on `target` was stopped. */
  stopped(compositionId: number, target: number): void {
    if (this.last.get(compositionId)?.target === target) this.last.delete(compositionId);
  }
}
