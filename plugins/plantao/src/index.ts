import { createPlantaoPlugin } from './plugin';

/** The plantao plugin (on-duty roster); see ./plugin for the factory tests use to fix the notifier's clock. */
export default createPlantaoPlugin();
