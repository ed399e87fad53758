/**
 * Property tests (fast-check) are bounded by work, not by the clock: each states its number of
 * runs (`numRuns`) and none uses fast-check's time limits. The default 60 s test timeout was a
 * wall-clock budget in disguise, and on a loaded machine (load 30) three of these files ran past
 * it with nothing wrong. Their timeout (the last argument of `it`) is this backstop instead,
 * which only a hang reaches.
 */
export const PROPERTY_BACKSTOP_MS = 15 * 60_000;
