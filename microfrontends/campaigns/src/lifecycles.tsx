import { areaLifecycles } from '@atendo/web-kit';
import { Root } from './root';
import { registerTranslations } from './i18n';

registerTranslations();

/** single-spa lifecycles of the campaigns area, the only module this remote exposes (`./lifecycles`). */
export const { bootstrap, mount, unmount } = areaLifecycles(Root);
