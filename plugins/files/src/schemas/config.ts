import { Type, type Static } from '@atendo/sdk';

/** The files plugin's config (env `FILES_<KEY>`), validated at boot. */
export const FilesConfig = Type.Object({
  /** `FILES_MAX_FILE_BYTES`: largest file an option may carry (bytes; the kernel's UPLOAD_LIMIT is the ceiling). */
  maxFileBytes: Type.Integer({ minimum: 1024, maximum: 2 ** 31 - 1, default: 16 * 1024 * 1024 }),
});
export type FilesConfig = Static<typeof FilesConfig>;
