/** Boot wiring of the runner: the stored schedule as its input, and a re-plan after every change (rule 14). */
import type { Deps } from '../../../deps';
import { onScheduleChanged } from '../snapshot/change-clock';
import { loadScheduleSnapshot } from '../snapshot/load';
import { replanSchedule } from './jobs';
import { installScheduleRunner } from './runner';

export function installScheduleRunnerFor(deps: Deps): void {
  installScheduleRunner(deps, loadScheduleSnapshot);
  onScheduleChanged(deps, () => replanSchedule(deps));
}
