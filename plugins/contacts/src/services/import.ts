import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { AppError, type Realtime } from '@atendo/sdk';
import type { ContactStore } from './contacts';
import type { SheetRow } from './sheet';
import { EMAIL_RE } from '../schemas/contacts';

/** Progress of one sheet import, as `GET /contacts/import/:jobId` and the socket events show it. */
export interface ImportProgress {
  jobId: string;
  status: 'running' | 'done' | 'failed';
  processed: number;
  total: number;
  created: number;
  updated: number;
  /** Rows refused, by sheet row number (at most MAX_REPORTED_ERRORS are kept). */
  errors: { row: number; error: string }[];
}

/** A progress event every this many rows (the old client's pace), and at least this often. */
const PROGRESS_EVERY_ROWS = 5;
const PROGRESS_EVERY_MS = 1000;
/** Finished jobs stay readable this long. */
const KEEP_DONE_MS = 60 * 60_000;
const MAX_REPORTED_ERRORS = 1000;

interface Job {
  companyId: number;
  progress: ImportProgress;
}

/**
 * Validates one import row and returns what to store, or the row's error text. Name: at most 50
 * characters (empty: the number is used); number: see `ContactStore.prepareNumber`; email: valid or empty.
 */
export function checkImportRow(store: ContactStore, r: { name: string | null; number: string | null; email: string | null }): { name: string | null; number: string; email: string | null } {
  const name = r.name?.trim() || null;
  if (name && name.length > 50) throw new AppError('ERR_VALIDATION', 'name must have at most 50 characters');
  if (!r.number?.trim()) throw new AppError('ERR_VALIDATION', 'number is required');
  const number = store.prepareNumber(r.number, 'whatsapp');
  const email = r.email?.trim() || null;
  if (email && (email.length > 255 || !EMAIL_RE.test(email))) throw new AppError('ERR_VALIDATION', 'Invalid email');
  return { name, number, email };
}

/**
 * Background sheet imports. A job processes its rows one by one, each in its own statement (a small
 * transaction of its own), so one bad row never undoes the others. Progress goes to
 * `company-{cid}-contact` as `{action:'import-progress', ...ImportProgress}` every 5 rows (or second),
 * then `{action:'import-done', ...ImportProgress}`. Jobs live in this process's memory: `GET
 * /contacts/import/:jobId` answers on the node that took the upload, for an hour after the job ends.
 */
export class ContactImports {
  private readonly jobs = new Map<string, Job>();
  private readonly running = new Set<Promise<void>>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private closing = false;

  constructor(
    private readonly store: ContactStore,
    private readonly realtime: Realtime,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Starts importing `rows` for `companyId` and returns the job's initial progress at once. */
  start(companyId: number, rows: SheetRow[]): ImportProgress {
    if (this.closing) throw new AppError('ERR_SERVICE_UNAVAILABLE');
    const progress: ImportProgress = { jobId: randomUUID(), status: 'running', processed: 0, total: rows.length, created: 0, updated: 0, errors: [] };
    this.jobs.set(progress.jobId, { companyId, progress });
    const run = this.run(companyId, progress, rows)
      .catch((err) => {
        progress.status = 'failed';
        this.log.error({ err, jobId: progress.jobId }, 'contact import failed');
      })
      .finally(() => {
        this.running.delete(run);
        this.emit(companyId, 'import-done', progress);
        const t = setTimeout(() => {
          this.jobs.delete(progress.jobId);
          this.timers.delete(t);
        }, KEEP_DONE_MS);
        t.unref();
        this.timers.add(t);
      });
    this.running.add(run);
    return { ...progress, errors: [] };
  }

  /** A job's progress; 404 ERR_NO_IMPORT_FOUND when unknown here or of another company. */
  get(companyId: number, jobId: string): ImportProgress {
    const job = this.jobs.get(jobId);
    if (!job || job.companyId !== companyId) throw new AppError('ERR_NO_IMPORT_FOUND');
    return job.progress;
  }

  /** Stops the jobs after their current row and waits for them (plugin shutdown). */
  async close(): Promise<void> {
    this.closing = true;
    await Promise.allSettled([...this.running]);
    for (const t of this.timers) clearTimeout(t);
  }

  private emit(companyId: number, action: 'import-progress' | 'import-done', p: ImportProgress): void {
    this.realtime.emitToCompany(companyId, `company-${companyId}-contact`, { action, ...p, errors: [...p.errors] });
  }

  private async run(companyId: number, progress: ImportProgress, rows: SheetRow[]): Promise<void> {
    // Let the 202 answer go out before the first row.
    await new Promise((r) => setImmediate(r));
    const acceptAudio = await this.store.shouldAcceptAudio(companyId);
    let lastEmit = Date.now();
    for (const r of rows) {
      if (this.closing) {
        progress.status = 'failed';
        if (progress.errors.length < MAX_REPORTED_ERRORS) progress.errors.push({ row: r.row, error: 'import interrupted: the server is shutting down' });
        return;
      }
      try {
        const row = checkImportRow(this.store, r);
        const { created } = await this.store.upsertImported(companyId, row, acceptAudio);
        if (created) progress.created++;
        else progress.updated++;
      } catch (err) {
        const message = err instanceof AppError ? err.message : 'the row could not be saved';
        if (!(err instanceof AppError)) this.log.warn({ err, row: r.row }, 'contact import row failed');
        if (progress.errors.length < MAX_REPORTED_ERRORS) progress.errors.push({ row: r.row, error: message });
      }
      progress.processed++;
      if (progress.processed % PROGRESS_EVERY_ROWS === 0 || Date.now() - lastEmit >= PROGRESS_EVERY_MS) {
        lastEmit = Date.now();
        this.emit(companyId, 'import-progress', progress);
      }
    }
    progress.status = 'done';
  }
}
