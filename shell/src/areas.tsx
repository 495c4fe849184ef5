import { useLayoutEffect, useSyncExternalStore } from 'react';
import { matchPath } from 'react-router';
import { loadRemote } from '@module-federation/enhanced/runtime';
import { addErrorHandler, getAppNames, getAppStatus, MOUNTED, registerApplication, triggerAppChange, type LifeCycles } from 'single-spa';
import { useTranslation } from 'react-i18next';
import { Button, EmptyState, Loading } from '@atendo/web-ui';
import type { PlanFeature } from '@atendo/web-api';
import type { AreaManifest, AreaMenuEntry, AreaRoute } from '../area-manifests.cjs';
import type { Role } from './access';

/** One route of an area manifest, typed with the shell's roles and plan features. */
export interface AreaRouteDef extends Omit<AreaRoute, 'role' | 'feature'> {
  role?: Role;
  feature?: PlanFeature | null;
}

/** One side-menu entry of an area manifest. */
export interface AreaMenuDef extends Omit<AreaMenuEntry, 'role' | 'feature'> {
  role?: Role;
  feature?: PlanFeature | null;
}

/**
 * One area (its manifest, `microfrontends/<area>/area.json`, see shell/area-manifests.cjs): a single-spa
 * application loaded from a module-federation remote, with its gate, routes and menu entries.
 */
export interface AreaDef extends Omit<AreaManifest, 'package' | 'role' | 'feature' | 'routes' | 'menu'> {
  role: Role;
  feature: PlanFeature | null;
  routes: AreaRouteDef[];
  menu: AreaMenuDef[];
}

/** Injected by the shell's build (rspack DefinePlugin) and by jest (globals): every area manifest. */
declare const __ATENDO_AREAS__: AreaDef[];

/** The registered areas: adding an area is adding its folder with an area.json; the shell is not edited. */
export const AREAS: AreaDef[] = typeof __ATENDO_AREAS__ === 'undefined' ? [] : __ATENDO_AREAS__;

/** Expands optional segments: `/tickets/:ticketId?` -> [`/tickets`, `/tickets/:ticketId`]. */
export function expandPath(path: string): string[] {
  let out = [''];
  for (const seg of path.split('/').filter(Boolean)) {
    if (seg.endsWith('?')) {
      const s = seg.slice(0, -1);
      out = out.flatMap((p) => [p, `${p}/${s}`]);
    } else {
      out = out.map((p) => `${p}/${seg}`);
    }
  }
  return out.map((p) => p || '/');
}

/** Every exact path an area serves (optional segments expanded). */
export function areaPaths(area: Pick<AreaDef, 'routes'>): string[] {
  return area.routes.flatMap((r) => expandPath(r.path));
}

/** Module-federation container name of an area (same rule as shell/federation.mjs). */
export const remoteName = (name: string) => `atendo_${name.replace(/[^A-Za-z0-9_]/g, '_')}`;
/** single-spa application name of an area. */
export const appName = (name: string) => `@atendo/${name}`;
/** id of the element an area mounts into. */
export const outletId = (name: string) => `atendo-area-${name}`;

/** The area serving `pathname`, if any. */
export function areaForPath(pathname: string, areas: AreaDef[] = AREAS): AreaDef | undefined {
  return areas.find((a) => areaPaths(a).some((r) => matchPath({ path: r, end: true, caseSensitive: false }, pathname)));
}

// ---------------------------------------------------------------- outlets and load failures

const outlets = new Set<string>();
const failed = new Set<string>();
const failureListeners = new Set<() => void>();
let failureVersion = 0;

function notifyFailures(): void {
  failureVersion++;
  for (const l of [...failureListeners]) l();
}

/** True once loading or mounting the area failed (shown in its outlet). */
export function useAreaFailed(name: string): boolean {
  useSyncExternalStore(
    (l) => {
      failureListeners.add(l);
      return () => failureListeners.delete(l);
    },
    () => failureVersion,
  );
  return failed.has(name);
}

/**
 * Registers every area as a single-spa application. An area is active while its outlet (rendered by the
 * shell's router after the route guards passed) is in the page and the URL matches one of its routes; its
 * code is the remote's `./lifecycles` module, loaded through module federation on first activation.
 * `load` is injectable for tests.
 */
export function registerAreas(load: (area: AreaDef) => Promise<LifeCycles> = loadAreaLifecycles, areas: AreaDef[] = AREAS): void {
  const known = new Set(getAppNames());
  for (const area of areas) {
    if (known.has(appName(area.name))) continue;
    registerApplication({
      name: appName(area.name),
      app: () => load(area),
      activeWhen: (location) => outlets.has(area.name) && Boolean(areaForPath(location.pathname, [area])),
      customProps: {
        area: area.name,
        domElementGetter: () => {
          const el = document.getElementById(outletId(area.name));
          if (!el) throw new Error(`outlet of area ${area.name} is not in the page`);
          return el;
        },
      },
    });
  }
  addErrorHandler((err) => {
    const area = areas.find((a) => appName(a.name) === err.appOrParcelName);
    if (!area) return;
    console.error(`[atendo] area ${area.name} failed`, err);
    failed.add(area.name);
    notifyFailures();
  });
}

async function loadAreaLifecycles(area: AreaDef): Promise<LifeCycles> {
  const mod = await loadRemote<LifeCycles>(`${remoteName(area.name)}/lifecycles`);
  if (!mod) throw new Error(`remote ${remoteName(area.name)} has no ./lifecycles`);
  return mod;
}

/** True while the area's application is mounted (re-renders on single-spa's app changes). */
export function useAreaMounted(name: string): boolean {
  return useSyncExternalStore(
    (l) => {
      window.addEventListener('single-spa:app-change', l);
      window.addEventListener('single-spa:routing-event', l);
      return () => {
        window.removeEventListener('single-spa:app-change', l);
        window.removeEventListener('single-spa:routing-event', l);
      };
    },
    () => getAppStatus(appName(name)) === MOUNTED,
  );
}

/**
 * The element an area mounts into. While it is rendered, the area's single-spa application is active
 * (mounted by single-spa into this element); when it unmounts, so does the area. Shows a spinner until
 * the area is mounted, and an error with a reload button when its code could not be loaded.
 */
export function AreaOutlet({ area }: { area: string }) {
  const { t } = useTranslation();
  const mounted = useAreaMounted(area);
  const broken = useAreaFailed(area);
  useLayoutEffect(() => {
    outlets.add(area);
    void triggerAppChange();
    return () => {
      outlets.delete(area);
      void triggerAppChange();
    };
  }, [area]);
  return (
    <>
      {broken ? (
        <EmptyState icon="warning" text={t('area.loadError')} role="alert">
          <Button variant="secondary" onClick={() => window.location.reload()}>
            {t('area.retry')}
          </Button>
        </EmptyState>
      ) : !mounted ? (
        <Loading label={t('area.loading')} />
      ) : null}
      <div id={outletId(area)} data-area={area} />
    </>
  );
}
