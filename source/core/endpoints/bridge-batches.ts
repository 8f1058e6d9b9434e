/**
 * JSON-RPC batch lines at the `--stdio` bridge (bridge.ts), which a
 * 2025-03-26 session may send: the members of a client's batch, and what a
 * supervisor's batch answer answers. Any other line is not decoded here.
 */
import {numbersRead, parseExact} from '../base/exact-json.js';
import type {Id} from '../wire/message-classifier.js';

/** The members of a batch line, or undefined for a line that is not a JSON array (checked as one message). */
export function batchMembers(line: string): unknown[] | undefined {
	try {
		const members = parseExact(line);
		return Array.isArray(members) ? members.map(numbersRead) : undefined;
	} catch {
		return undefined;
	}
}

/** The ids a batch answer line answers, each with whether it is an error. */
export function batchAnswers(line: string): Array<{id: Id; error: boolean}> {
	const answered: Array<{id: Id; error: boolean}> = [];
	for (const answer of batchMembers(line) ?? []) {
		const id = (answer as {id?: unknown} | null)?.id;
		if (typeof id === 'string' || typeof id === 'number') answered.push({id, error: typeof answer === 'object' && answer !== null && 'error' in answer});
	}

	return answered;
}
