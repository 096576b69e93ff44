/* tslint:disable */
/* eslint-disable */

export function __wbg_reset_state(): void;

/**
 * Runs a replay op (the replay module's only export).
 */
export function exec(op: number, args: string): string;

/**
 * Runs when an instance starts: nothing to do, but the glue's `__wbg_reset_state` (which the
 * package calls after a trap, to start a fresh instance) expects a start function.
 */
export function start(): void;
