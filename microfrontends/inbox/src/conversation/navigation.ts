export { navigateTo } from '@atendo/web-kit';

/** The path of a ticket's conversation. */
export const ticketPath = (uuid: string) => `/tickets/${uuid}`;
