/** Waits until `check()` holds, polling every 50 ms; throws after `ms`. For what a real clock drives. */
export async function until(check: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
    await Bun.sleep(50);
  }
}
