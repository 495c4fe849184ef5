/**
 * The error catalogue: every error code the API answers with, mapped to its HTTP status.
 *
 * The body of every error answer is `{"error": "<CODE>", "message": "<human text>"}`; clients of this
 * product family read only `error` (a code they translate) so codes are stable API. The kernel's spec codes
 * come first (spec 1-platform.md §8, 2-tickets.md §8); Atendo's own codes follow. Plugins own theirs.
 */
export const ERROR_CATALOGUE = {
  // ---- spec codes the kernel answers, or that channel adapters (which depend on the SDK alone) and several
  // plugins share. A code one plugin owns (ERR_NO_TICKET_FOUND, ERR_QUEUE_COLOR_ALREADY_EXISTS, ...) is declared in
  // that plugin's contract (`definePlugin({ errors })`) with its texts in plugins/<id>/i18n/errors.json.
  ERR_INVALID_CREDENTIALS: { status: 401, message: 'Authentication error, try again' },
  ERR_SENDING_WAPP_MSG: { status: 400, message: 'Sending failed' },
  ERR_SESSION_EXPIRED: { status: 401, message: 'Session expired, please log in' },
  ERR_USER_CREATION_DISABLED: { status: 403, message: 'User creation disabled' },
  ERR_NO_PERMISSION: { status: 403, message: 'No permission' },
  ERR_NO_SETTING_FOUND: { status: 404, message: 'Setting not found' },
  ERR_NO_USER_FOUND: { status: 404, message: 'User not found' },
  ERR_NO_WAPP_FOUND: { status: 404, message: 'Connection not found' },
  ERR_OUT_OF_HOURS: { status: 401, message: 'Fora do horário de expediente' },
  // ---- Atendo codes
  ERR_VALIDATION: { status: 400, message: 'The request does not match the schema' },
  ERR_INVALID_JSON: { status: 400, message: 'The body is not valid JSON' },
  ERR_UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'Unsupported content type' },
  ERR_PAYLOAD_TOO_LARGE: { status: 413, message: 'The request body is too large' },
  ERR_NOT_FOUND: { status: 404, message: 'Route not found' },
  ERR_METHOD_NOT_ALLOWED: { status: 405, message: 'Method not allowed' },
  ERR_INVALID_TOKEN: { status: 403, message: "Invalid or expired token. We'll try to assign a new one on next request" },
  ERR_TOO_MANY_REQUESTS: { status: 429, message: 'Too many requests, try again later' },
  ERR_FEATURE_NOT_IN_PLAN: { status: 403, message: "This company's plan does not include this feature" },
  ERR_PLAN_LIMIT_REACHED: { status: 400, message: "The plan's limit has been reached" },
  ERR_COMPANY_INACTIVE: { status: 403, message: 'This company is inactive' },
  /** The company's due date has passed: only the open-invoices page's routes answer until a super admin renews it. */
  ERR_SUBSCRIPTION_EXPIRED: { status: 403, message: "This company's subscription has expired" },
  ERR_NO_COMPANY_FOUND: { status: 404, message: 'Company not found' },
  ERR_NO_PLAN_FOUND: { status: 404, message: 'Plan not found' },
  ERR_DUPLICATED_EMAIL: { status: 409, message: 'This e-mail is already in use' },
  ERR_DUPLICATED_NAME: { status: 409, message: 'This name is already in use' },
  ERR_COMPANY_NOT_DELETABLE: { status: 400, message: 'Company 1 cannot be deleted or deactivated' },
  ERR_PLAN_IN_USE: { status: 409, message: 'The plan is used by a company' },
  ERR_CANNOT_DELETE_SELF: { status: 400, message: 'You cannot delete yourself' },
  ERR_WRONG_CURRENT_PASSWORD: { status: 400, message: 'The current password is not right' },
  ERR_LAST_SUPER_USER: { status: 400, message: 'The last super user cannot be removed' },
  ERR_SIGNUP_DISABLED: { status: 403, message: 'Sign-up is disabled' },
  /** Sign-up with an e-mail or company name already taken: one code for both, so it does not tell which e-mails have accounts. */
  ERR_SIGNUP_REFUSED: { status: 409, message: 'The company could not be created with these data: the e-mail or the company name may be in use' },
  ERR_INVALID_SIGNATURE: { status: 401, message: 'Invalid signature' },
  ERR_UPLOAD_TYPE: { status: 415, message: 'File type not allowed' },
  ERR_SHEET_INVALID: { status: 400, message: 'The spreadsheet could not be read' },
  ERR_SHEET_TOO_MANY_ROWS: { status: 400, message: 'The spreadsheet has too many rows' },
  ERR_INVALID_RESET_CODE: { status: 400, message: 'Invalid verification code' },
  ERR_RESET_CODE_EXPIRED: { status: 400, message: 'The verification code has expired, request a new one' },
  ERR_RESET_ATTEMPTS_EXCEEDED: { status: 429, message: 'Too many wrong codes, request a new one' },
  ERR_SERVICE_UNAVAILABLE: { status: 503, message: 'Service not ready' },
  ERR_INTERNAL: { status: 500, message: 'Internal server error' },
} as const satisfies Record<string, { status: number; message: string }>;

/** A catalogue entry: HTTP status and default English message. */
export interface ErrorDefinition {
  status: number;
  message: string;
}

/** The kernel's own codes. */
export type KernelErrorCode = keyof typeof ERROR_CATALOGUE;

/**
 * Every error code, kernel and plugin. Plugins add theirs by module augmentation next to their
 * `defineErrors` call (in `contract.ts`):
 *
 * ```ts
 * export const errors = defineErrors({ ERR_NO_CAMPAIGN_FOUND: { status: 404, message: 'Campaign not found' } });
 * declare module '@atendo/sdk' { interface ErrorCodes extends Record<keyof typeof errors, true> {} }
 * ```
 */
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface ErrorCodes extends Record<KernelErrorCode, true> {}

export type ErrorCode = keyof ErrorCodes & string;

/** Owner of each code known in this process: `kernel` or the plugin id that declared it. */
const registry = new Map<string, ErrorDefinition & { owner: string }>(
  Object.entries(ERROR_CATALOGUE).map(([code, def]) => [code, { ...def, owner: 'kernel' }]),
);

const CODE_RE = /^ERR_[A-Z0-9_]+$/;

/**
 * Declares a plugin's error codes and makes them known to `AppError` at once (so unit tests that never boot
 * the loader still get the right status). Pass the result to `definePlugin({errors})`: the loader merges
 * every plugin's codes into one catalogue at boot and refuses a code declared by two owners.
 */
export function defineErrors<const T extends Record<string, ErrorDefinition>>(defs: T): T {
  for (const [code, def] of Object.entries(defs)) {
    if (!CODE_RE.test(code)) throw new Error(`invalid error code ${code}: use ERR_UPPER_SNAKE`);
    if (!Number.isInteger(def.status) || def.status < 400 || def.status > 599) throw new Error(`error ${code}: status must be 4xx or 5xx`);
    const known = registry.get(code);
    if (known && known.owner === 'kernel') throw new Error(`error code ${code} is a kernel code`);
    if (!known) registry.set(code, { ...def, owner: '' });
  }
  return defs;
}

/**
 * Records `owner` as the declarer of `defs` (called by the loader for each plugin's `errors`). Throws when a
 * code already belongs to another owner: two plugins may not share a code.
 */
export function registerErrorCodes(owner: string, defs: Record<string, ErrorDefinition>): void {
  for (const [code, def] of Object.entries(defs)) {
    if (!CODE_RE.test(code)) throw new Error(`plugin ${owner}: invalid error code ${code}`);
    const known = registry.get(code);
    if (known && known.owner && known.owner !== owner) {
      throw new Error(`error code ${code} is declared by both ${known.owner} and ${owner}`);
    }
    registry.set(code, { ...def, owner });
  }
}

/** The whole catalogue as known in this process (kernel codes and every declared plugin code). */
export function errorCatalogue(): Record<string, ErrorDefinition & { owner: string }> {
  return Object.fromEntries([...registry.entries()].map(([k, v]) => [k, { ...v }]));
}

/** True when `code` is a known catalogue code (kernel or declared by a plugin). */
export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && registry.has(code);
}

/**
 * An error the API answers with as-is: `statusCode` from the catalogue (or the override),
 * body `{error: code, message, ...extra}`. Throw it from any handler or service.
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly statusCode: number;
  /** Extra keys merged into the JSON body (for example the owner of an open ticket). */
  readonly extra?: Record<string, unknown>;

  constructor(code: ErrorCode, message?: string, opts: { statusCode?: number; extra?: Record<string, unknown> } = {}) {
    const def = registry.get(code);
    super(message ?? def?.message ?? code);
    this.name = 'AppError';
    this.code = code;
    this.statusCode = opts.statusCode ?? def?.status ?? 500;
    this.extra = opts.extra;
  }
}

/** The JSON body of every error answer. */
export interface ErrorBody {
  error: ErrorCode;
  message: string;
  [key: string]: unknown;
}
