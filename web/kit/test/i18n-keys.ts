/** Helpers of the areas' translation tests (every language has pt-BR's keys, plural forms, no empty text). */

/** Every key path of a bundle, plural suffixes (_one, _many, _other...) folded into the base key; sorted. */
export function bundleKeys(bundle: object, prefix = ''): string[] {
  const out = new Set<string>();
  for (const [k, v] of Object.entries(bundle)) {
    const path = prefix ? `${prefix}.${k}` : k;
    if (v && typeof v === 'object') for (const sub of bundleKeys(v, path)) out.add(sub);
    else out.add(path.replace(/_(zero|one|two|few|many|other)$/, ''));
  }
  return [...out].sort();
}

/** Every [key path, text] leaf of a bundle, plural suffixes kept. */
export function bundleLeaves(bundle: object, prefix = ''): [string, unknown][] {
  return Object.entries(bundle).flatMap(([k, v]) => (v && typeof v === 'object' ? bundleLeaves(v, prefix ? `${prefix}.${k}` : k) : [[prefix ? `${prefix}.${k}` : k, v] as [string, unknown]]));
}
