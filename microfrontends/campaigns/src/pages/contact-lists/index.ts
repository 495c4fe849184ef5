import { definePage, lazyPage } from '../registry';

/** /contact-lists (spec 3-campaigns-and-tools.md §2 "Contact lists"). */
export default definePage({
  path: '/contact-lists',
  titleKey: 'routes.contactLists',
  plugin: 'campaigns',
  menu: { section: 'main', key: 'contactLists', icon: 'list', order: 101, labelKey: 'routes.contactLists' },
  component: lazyPage(
    () => import('./ContactListsPage').then((m) => m.ContactListsPage),
    () => import('./i18n'),
  ),
});
