/**
 * Loader of the signed-in frame (top bar, side menu, profile, session hooks): a lazy chunk, so /login does
 * not download it. The router (App.tsx) renders it through React.lazy; the sign-in form starts the download
 * when it submits, in parallel with the sign-in request.
 */
export const loadLayout = () => import('./Layout').then((m) => ({ default: m.Layout }));
