import { definePage, lazyPage } from '../registry';

/** /contact-lists/:contactListId/contacts (spec 3-campaigns-and-tools.md §2 "Contact list items"). */
export default definePage({
  path: '/contact-lists/:contactListId/contacts',
  titleKey: 'routes.contactListItems',
  plugin: 'campaigns',
  component: lazyPage(
    () => import('./ContactListItemsPage').then((m) => m.ContactListItemsPage),
    () => import('./i18n'),
  ),
});
