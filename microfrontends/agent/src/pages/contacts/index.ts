import { definePage, lazyPage } from '../registry';

/** Contacts (plugins/contacts; spec 2-tickets.md §2 "Contacts"): every user (delete for admins). */
export default definePage({
  path: '/contacts',
  titleKey: 'menu.contacts',
  plugin: 'contacts',
  menu: { section: 'main', key: 'contacts', icon: 'contacts', order: 50 },
  component: lazyPage(
    () => import('./ContactsPage').then((m) => m.ContactsPage),
    () => import('./i18n'),
  ),
});
