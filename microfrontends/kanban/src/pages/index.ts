import type { KanbanPage } from './registry';
import kanban from './kanban';
import moments from './moments';

/**
 * The kanban area's sub-pages, one folder each under src/pages/ (see registry.ts). A new screen: add the
 * folder, one line here, and its route and menu entry in area.json.
 */
export const KANBAN_PAGES: readonly KanbanPage[] = [kanban, moments];
