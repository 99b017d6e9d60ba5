import type { Context } from 'hono';
import type { z } from 'zod';
import { QuiverError } from '../errors.js';
import type { Vault } from '../vault.js';
import type { Role } from './tokens.js';

/** What the routes are given: the two vaults (see app.ts), the configured limits and roots. */
export interface AppDeps {
  /** The vault opened read-only: all that a `read` token's request can reach. */
  reader: Vault;
  /** The vault opened for writing: for `write` and `admin` routes only. */
  writer: Vault;
  limits?: { ratePerSecond?: number; burst?: number; maxBodyBytes?: number; maxUploadBytes?: number };
  /** Folders under which an admin may ingest server-side paths (none: no path ingest at all). */
  roots?: readonly string[];
  /** Origins allowed by CORS (none: same origin only). */
  corsOrigins?: readonly string[];
  /** Where request lines go (never a token or a body). */
  log?: (line: string) => void;
}

export type Env = { Variables: { token: { id: string; role: Role }; requestId: string } };
export type Ctx = Context<Env>;

/**
 * One endpoint: method, path (Hono syntax, `:id` parameters), the least role it needs, what it
 * does (for the OpenAPI description), the zod schema of its JSON body when it takes one, and the
 * handler, which gets the body already checked.
 */
export interface Route<B = unknown> {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  role: Role;
  tag: string;
  summary: string;
  body?: z.ZodType<B>;
  /** Query parameters, named with a one-line description (documented; the handler reads them). */
  query?: Record<string, string>;
  /** Also answers `text/event-stream` (Server-Sent Events). */
  stream?: boolean;
  /** Takes `multipart/form-data` (file uploads). */
  multipart?: boolean;
  /** The success status (default 200). */
  status?: number;
  handle: (c: Ctx, deps: AppDeps, body: B) => Promise<Response>;
}

/** A route with its body type checked at the definition, stored type-erased in the table. */
export function route<B>(r: Route<B>): Route {
  return r as unknown as Route;
}

/**
 * The request's JSON body checked against `schema`: not JSON, not an object, or not matching →
 * BAD_INPUT naming the first wrong field and why (`"limit": Too big: expected number to be <=100`).
 */
export async function parseBody<B>(c: Ctx, schema: z.ZodType<B>): Promise<B> {
  let v: unknown;
  try {
    v = await c.req.json();
  } catch {
    throw new QuiverError('BAD_INPUT', 'quiver: the request body must be a JSON object');
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw new QuiverError('BAD_INPUT', 'quiver: the request body must be a JSON object');
  const r = schema.safeParse(v);
  if (!r.success) {
    const issue = r.error.issues[0];
    const where = issue === undefined || issue.path.length === 0 ? 'the body' : `"${issue.path.join('.')}"`;
    throw new QuiverError('BAD_INPUT', `quiver: ${where}: ${issue?.message ?? 'invalid'}`, {
      details: { issues: r.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })) },
    });
  }
  return r.data;
}

/** An integer query parameter in [min, max], or `fallback` when absent; anything else is BAD_INPUT. */
export function intQuery(c: Ctx, name: string, fallback: number, min: number, max: number): number {
  const raw = c.req.query(name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!/^-?\d+$/.test(raw) || !Number.isSafeInteger(n) || n < min || n > max)
    throw new QuiverError(
      'BAD_INPUT',
      `quiver: ${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`,
    );
  return n;
}

/** A path parameter that must be present (Hono gives it for every matched route). */
export function param(c: Ctx, name: string): string {
  const v = c.req.param(name);
  if (v === undefined || v === '') throw new QuiverError('BAD_INPUT', `quiver: missing ${name}`);
  return v;
}

/**
 * A multipart body and its `file` fields; BAD_INPUT with `help` (what the route wants) when the
 * body is not multipart/form-data.
 */
export async function multipartFiles(c: Ctx, help: string): Promise<{ form: FormData; files: File[] }> {
  let form: FormData;
  try {
    form = await c.req.formData();
  } catch {
    throw new QuiverError('BAD_INPUT', help);
  }
  return { form, files: form.getAll('file').filter((f): f is File => typeof f !== 'string') };
}
