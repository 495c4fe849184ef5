/** The shared hooks of the areas (@atendo/web-kit). */
export { SEARCH_DEBOUNCE_MS, useDebounced, useErrorToast, useMediaQuery } from '@atendo/web-kit';
