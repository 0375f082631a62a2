import type { Middleware } from 'koa';
import { AppError } from '../../shared/platform/errors.js';
import { deprecationHeaders, isSunset, LEGACY_SUNSET_AT } from '../legacy/legacy-sunset.js';
import type { AppState } from '../context.js';

/**
 * Before the access rule of every earlier route: Deprecation, Sunset and Link on every answer (the error middleware keeps
 * headers set before a throw), and from the sunset on 410 `endpoint_sunset` before anything else runs.
 */
export function legacyDeprecation(options: { now: () => Date; link: string; successor: string }): Middleware<AppState> {
  return async (ctx, next) => {
    for (const [name, value] of Object.entries(deprecationHeaders(options.link))) ctx.set(name, value);
    if (isSunset(options.now())) {
      throw new AppError(410, 'endpoint_sunset', `This route of the earlier contract was retired on ${LEGACY_SUNSET_AT.toISOString()}; use ${options.successor}.`);
    }
    await next();
  };
}
