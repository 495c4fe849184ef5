import React, { type FunctionComponent } from 'react';
import ReactDOMClient from 'react-dom/client';
import singleSpaReact from 'single-spa-react';

/**
 * The single-spa lifecycles of an area (the only module an area's remote exposes, `./lifecycles`):
 * `export const { bootstrap, mount, unmount } = areaLifecycles(Root);`. The shell passes
 * `domElementGetter` (its content outlet) in the custom props; a render error shows its message in place
 * of the area instead of blanking the page.
 */
export function areaLifecycles(Root: FunctionComponent) {
  return singleSpaReact({
    React,
    ReactDOMClient,
    rootComponent: Root,
    errorBoundary: (err) => (
      <div role="alert" style={{ padding: 24 }}>
        {String(err?.message ?? err)}
      </div>
    ),
  });
}
