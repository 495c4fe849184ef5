/** Search debounce and media queries: the shared hooks of the areas (@atendo/web-kit). */
export { SEARCH_DEBOUNCE_MS, useDebounced, useMediaQuery } from '@atendo/web-kit';
