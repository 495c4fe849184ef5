import type { LegalBasis } from '@atendo/plugin-campaigns/contract';

/**
 * The legal bases a contact-list item may carry (LGPD art. 7), in the order the form offers them. A copy of the
 * contract's `LEGAL_BASES` list: importing the contract's value would bundle `@atendo/sdk`'s Node-only code into
 * the browser. The type-checker keeps the two equal: every entry is a `LegalBasis`, and none is missing.
 */
export const LEGAL_BASES = ['consent', 'legal-obligation', 'public-policy', 'research', 'contract', 'legal-claims', 'vital-interest', 'health', 'legitimate-interest', 'credit-protection'] as const satisfies readonly LegalBasis[];

/** Compile-time check that no `LegalBasis` is missing from the copy above. */
const complete: [Exclude<LegalBasis, (typeof LEGAL_BASES)[number]>] extends [never] ? true : false = true;
void complete;
