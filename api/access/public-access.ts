import { declareAccess } from './access.js';

/** Anyone may call the route: what protects it (a signed link, a rate limit) is in the route itself. */
export const PUBLIC_ACCESS = declareAccess('public', (_ctx, next) => next());
