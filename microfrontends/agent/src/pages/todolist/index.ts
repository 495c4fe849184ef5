import { definePage, lazyPage } from '../registry';

/** The to-do list (spec 3-campaigns-and-tools.md §2 "To-do list"): every user; browser storage only. */
export default definePage({
  path: '/todolist',
  titleKey: 'routes.todolist',
  menu: { section: 'main', key: 'todolist', labelKey: 'routes.todolist', icon: 'check', order: 95 },
  component: lazyPage(
    () => import('./TodoPage').then((m) => m.TodoPage),
    () => import('./i18n'),
  ),
});
