import { useLayoutEffect, useSyncExternalStore } from 'react';
import { matchPath } from 'react-router';
import { loadRemote } from '@module-federation/enhanced/runtime';
import { addErrorHandler, getAppNames, getAppStatus, MOUNTED, registerApplication, triggerAppChange, type LifeCycles } from 'single-spa';
import { useTranslation } from 'react-i18next';
import { Button, EmptyState, Loading } from '@atendo/web-ui';
import type { PlanFeature } from '@atendo/web-api';
import type { Role } from './access';
import areasFile from '../areas.json';

/** One area of shell/areas.json: a single-spa application loaded from a module-federation remote. */
export interface AreaDef {
  name: string;
  package: string;
  /** Exact react-router paths the area serves. */
  routes: string[];
  role?: Role;
  feature?: PlanFeature | null;
  /** remoteEntry URL; default `/areas/<name>/remoteEntry.js` (the shell's build config reads the same file). */
  url?: string;
}

/** The registered areas; adding an area is one line in shell/areas.json. */
export const AREAS: AreaDef[] = (areasFile as { areas: AreaDef[] }).areas;

/** Module-federation container name of an area (same rule as shell/federation.mjs). */
export const remoteName = (name: string) => `atendo_${name.replace(/[^A-Za-z0-9_]/g, '_')}`;
/** single-spa application name of an area. */
export const appName = (name: string) => `@atendo/${name}`;
/** id of the element an area mounts into. */
export const outletId = (name: string) => `atendo-area-${name}`;

/** The area serving `pathname`, if any. */
export function areaForPath(pathname: string, areas: AreaDef[] = AREAS): AreaDef | undefined {
  return areas.find((a) => a.routes.some((r) => matchPath({ path: r, end: true, caseSensitive: false }, pathname)));
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
