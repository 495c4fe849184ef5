import type { AgentPage } from './registry';
import contacts from './contacts';
import files from './files';
import helps from './helps';
import quickMessages from './quick-messages';
import schedules from './schedules';
import todolist from './todolist';

/**
 * The agent area's sub-pages, one folder each under src/pages/ (see registry.ts). A new screen: add the
 * folder, one line here, and its route and menu entry in area.json.
 */
export const AGENT_PAGES: readonly AgentPage[] = [contacts, quickMessages, schedules, files, helps, todolist];
