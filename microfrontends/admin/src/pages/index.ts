import type { AdminPage } from './registry';
import announcements from './announcements';
import auditLogs from './audit-logs';
import companies from './companies';
import connections from './connections';
import deliveries from './deliveries';
import messagesApi from './messages-api';
import plantao from './plantao';
import privacy from './privacy';
import prompts from './prompts';
import queueIntegration from './queue-integration';
import queues from './queues';
import settings from './settings';
import sla from './sla';
import tags from './tags';
import tagsKanban from './tags-kanban';
import users from './users';

/**
 * The admin area's sub-pages, one folder each under src/pages/ (see registry.ts). A new plugin's screens:
 * add the folder, one line here, and its route and menu entry in area.json.
 */
export const ADMIN_PAGES: readonly AdminPage[] = [users, queues, connections, settings, deliveries, tags, tagsKanban, companies, announcements, plantao, messagesApi, prompts, queueIntegration, auditLogs, privacy, sla];
