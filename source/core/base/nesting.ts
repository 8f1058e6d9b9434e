/**
 * How deep hangar follows nested JSON that it walks itself: to mask secrets
 * in an error's data, to write a call's preview for the call log, to hash a
 * tool for its pin. Whatever an upstream or a client sends can be nested
 * arbitrarily deep (JSON.parse takes a million levels), and a recursive walk
 * over it would overflow the stack; JSON.stringify itself fails at a few
 * thousand levels. Past this depth a walk stops: a copy or a preview holds
 * `nestedTooDeep` instead of the rest, a hash refuses the value.
 */
export const maxNestingDepth = 512;

/** What a masked copy holds in place of a value nested deeper than `maxNestingDepth`. */
export const nestedTooDeep = `… (nested deeper than ${maxNestingDepth} levels: left out)`;

/** A value hangar cannot take whole because it is nested deeper than `maxNestingDepth`. */
export class NestingTooDeepError extends Error {
	constructor(what: string) {
		super(`${what} is nested deeper than ${maxNestingDepth} levels, more than hangar follows`);
		this.name = 'NestingTooDeepError';
	}
}
