import React from 'react';
import ReactDOMClient from 'react-dom/client';
import singleSpaReact from 'single-spa-react';
import { Root } from './root';
import { registerTranslations } from './i18n';

registerTranslations();

/**
 * single-spa lifecycles of the chat area, the only module this remote exposes (`./lifecycles`). The shell
 * passes `domElementGetter` (its content outlet) in the custom props.
 */
const lifecycles = singleSpaReact({
  React,
  ReactDOMClient,
  rootComponent: Root,
  errorBoundary: (err) => (
    <div role="alert" style={{ padding: 24 }}>
      {String(err?.message ?? err)}
    </div>
  ),
});

export const { bootstrap, mount, unmount } = lifecycles;
