/**
 * Intake settings read from the environment when the routes are registered (api/config.ts
 * covers the service as a whole; these belong to the public submission endpoints only).
 *
 *   ARCHIVE_CONTRIBUTION_RATE_LIMIT  "<requests>/<seconds>", default "20/60"
 *   ARCHIVE_CORRECTION_RATE_LIMIT    "<requests>/<seconds>", default "20/60"
 *
 * A bad value stops the start with a message naming the variable.
 */
import { ConfigError } from '../config.ts';
import { CONTRIBUTION_BODY_LIMIT, CORRECTION_BODY_LIMIT, DEFAULT_RATE_LIMIT as DEFAULT, RATE_LIMIT_VARIABLES } from '../../src/domain/contributions/policy.ts';

export interface RateLimitSetting {
  /** Requests allowed in a burst, and per window on average. */
  limit: number;
  windowSeconds: number;
}

export interface IntakeConfig {
  contributionRateLimit: RateLimitSetting;
  correctionRateLimit: RateLimitSetting;
  /** Largest accepted body, bytes. */
  contributionBodyLimit: number;
  correctionBodyLimit: number;
}

export const DEFAULT_RATE_LIMIT = `${DEFAULT.limit}/${DEFAULT.windowSeconds}`;

export function parseRateLimit(name: string, value: string | undefined): RateLimitSetting {
  const raw = (value ?? DEFAULT_RATE_LIMIT).trim();
  const m = /^(\d{1,9})\s*\/\s*(\d{1,7})$/.exec(raw);
  const limit = m ? Number(m[1]) : NaN;
  const windowSeconds = m ? Number(m[2]) : NaN;
  if (!m || limit < 1 || windowSeconds < 1) {
    throw new ConfigError(`${name} must be "<requests>/<seconds>" with both at least 1, e.g. "${DEFAULT_RATE_LIMIT}" (got "${value}")`);
  }
  return { limit, windowSeconds };
}

export function loadIntakeConfig(env: NodeJS.ProcessEnv = process.env): IntakeConfig {
  return {
    contributionRateLimit: parseRateLimit(RATE_LIMIT_VARIABLES.contributions, env[RATE_LIMIT_VARIABLES.contributions]),
    correctionRateLimit: parseRateLimit(RATE_LIMIT_VARIABLES.correctionReports, env[RATE_LIMIT_VARIABLES.correctionReports]),
    contributionBodyLimit: CONTRIBUTION_BODY_LIMIT,
    correctionBodyLimit: CORRECTION_BODY_LIMIT,
  };
}
