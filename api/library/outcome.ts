/**
 * What a library operation returns to its route: a value, or a problem (name, detail and extra
 * members). Operations never touch the reply, so handlers stay "parse, call, answer".
 */
import type { ProblemExtras } from '../http/problem.ts';
import type { ProblemName } from '../../src/domain/problems.ts';

export type Outcome<T> = { ok: true; value: T } | { ok: false; problem: ProblemName; detail: string; extras?: ProblemExtras };

export const ok = <T>(value: T): Outcome<T> => ({ ok: true, value });
export const fail = <T = never>(problem: ProblemName, detail: string, extras?: ProblemExtras): Outcome<T> => ({ ok: false, problem, detail, ...(extras ? { extras } : {}) });
