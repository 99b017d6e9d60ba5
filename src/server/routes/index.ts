import type { Route } from '../route.js';
import { ADMIN_ROUTES } from './admin-routes.js';
import { DOCUMENT_ROUTES } from './document-routes.js';
import { EVAL_ROUTES } from './eval-routes.js';
import { JOB_ROUTES } from './job-routes.js';
import { QUALITY_ROUTES } from './quality-routes.js';
import { SEARCH_ROUTES } from './search-routes.js';

/** Every route the server answers besides `/healthz` and the API description, with the role it needs. */
export const ROUTES: readonly Route[] = [
  ...ADMIN_ROUTES,
  ...SEARCH_ROUTES,
  ...DOCUMENT_ROUTES,
  ...JOB_ROUTES,
  ...QUALITY_ROUTES,
  ...EVAL_ROUTES,
];
