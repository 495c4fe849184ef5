/**
 * The viewer rules (spec 2-tickets.md §6) live in @atendo/web-api, shared with the shell's notifications;
 * re-exported here for the area's modules.
 */
export { canSeeTicket, canShowAll, notifiesViewer, seesAll, viewerOf, type Viewer } from '@atendo/web-api';
