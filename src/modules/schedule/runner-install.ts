/** Boot wiring of the runner: the stored schedule as its input, and a re-plan after every change (rule 14). */
import type { Deps } from '../../deps';
import { installScheduleRunner } from './runner';
import { replanSchedule } from './runner-jobs';
import { loadScheduleSnapshot } from './snapshot';
import { onScheduleChanged } from './snapshot-state';

export function installScheduleRunnerFor(deps: Deps): void {
  installScheduleRunner(deps, loadScheduleSnapshot);
  onScheduleChanged(deps, () => replanSchedule(deps));
}
