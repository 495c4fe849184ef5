/** Types of area-manifests.cjs (see there for the file format). */

export type AreaRole = 'user' | 'admin' | 'super';
export type MenuSectionKey = 'main' | 'admin' | 'super';
export type MenuBadge = 'connections' | 'chats';

/** One route of an area: a react-router path (optional segments with `?`) and its page title. */
export interface AreaRoute {
  path: string;
  /** i18n key of the page title (the shell's texts). */
  titleKey: string;
  /** More than the area's role. */
  role?: AreaRole;
  /** A plan flag on top of the area's. */
  feature?: string | null;
  /** The backend plugin the page is the screen of (its featureFlag must be the route's feature). */
  plugin?: string;
}

/** One side-menu entry of an area. */
export interface AreaMenuEntry {
  section: MenuSectionKey;
  /** Test id `menu-<key>`; label `menu.<key>` unless labelKey says otherwise. */
  key: string;
  /** One of the area's paths. */
  to: string;
  /** An icon name of @atendo/web-ui. */
  icon: string;
  labelKey?: string;
  /** Position in its section (the shell's own entries use the same scale). */
  order: number;
  badge?: MenuBadge;
  role?: AreaRole;
  feature?: string | null;
}

/** An area.json, with the folder it was read from. */
export interface AreaManifest {
  name: string;
  /** Folder of the area's package, relative to the repository root (`microfrontends/<folder>`). */
  package: string;
  role: AreaRole;
  feature: string | null;
  plugin?: string;
  url?: string;
  routes: AreaRoute[];
  menu: AreaMenuEntry[];
}

export const ROOT_DIR: string;
export const AREAS_FOLDER: string;
export const ROLES: readonly AreaRole[];
export const SECTIONS: readonly MenuSectionKey[];
export const BADGES: readonly MenuBadge[];
export function expandPath(path: string): string[];
export function validateManifest(manifest: unknown, file: string): AreaManifest;
export function loadAreaManifests(root?: string): AreaManifest[];
