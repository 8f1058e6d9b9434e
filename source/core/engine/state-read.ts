/**
 * Reading a state dir: state.json field by field (state-schema.ts), a text
 * that does not parse repaired as far as it can be (a cut-off file keeps its
 * quarantines and pins), and the quarantines of quarantine.json added, so a
 * quarantine survives a state file that does not. A field that does not fit
 * is dropped with a reason in `problems`, never a crash. Synchronous but for
 * the first read at start: a takeover reads the holder's file in the middle
 * of a person's command.
 */
import {readFile} from 'node:fs/promises';
import path from 'node:path';
import {jsonrepair} from 'jsonrepair';
import type {PersistedState, PersistedUpstream} from './state-store.js';
import {parseExact} from '../base/exact-json.js';
import {readText} from './state-files.js';
import {readQuarantines, readState, type QuarantineRecord} from './state-schema.js';

export const emptyState = (): PersistedState => ({version: 1, upstreams: {}});

export function emptyUpstream(): PersistedUpstream {
	return {counters: {starts: 0, crashes: 0, calls: 0, failures: 0}};
}

export type QuarantineFile = {version: 1; upstreams: Record<string, QuarantineRecord>};

/** What a state dir holds, read and checked: the state, with the quarantines of both files. */
export type DirContent = {
	state: PersistedState;
	problems: string[];
	/** state.json did not fit (whole or in part): its original is worth keeping aside. */
	damaged: boolean;
};

/** state.json's text (undefined: no such file), or why it cannot be read. */
export type StateText = {text: string | undefined} | {error: Error};

export function readStateText(file: string): StateText {
	try {
		return {text: readText(file)};
	} catch (error) {
		return {error: error as Error};
	}
}

/**
 * The same, asynchronously: at start, where the read yields to the event
 * loop as lowdb's did (what an early-spawned upstream's 'spawn' event, among
 * others, has counted on).
 */
export async function readStateTextAsync(file: string): Promise<StateText> {
	try {
		return {text: await readFile(file, 'utf8')};
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === 'ENOENT' ? {text: undefined} : {error: error as Error};
	}
}

/** Reads state.json field by field, repairing a text that does not parse, and adds the quarantines of quarantine.json. */
export function readDir(dir: string, read: StateText = readStateText(path.join(dir, 'state.json'))): DirContent {
	const file = path.join(dir, 'state.json');
	const problems: string[] = [];
	let state = emptyState();
	let damaged = false;
	let text: string | undefined;
	if ('error' in read) {
		problems.push(`state file ${file} is unreadable (${read.error.message})`);
		damaged = true;
	} else {
		text = read.text;
	}

	if (text !== undefined) {
		let value: unknown;
		let repaired = false;
		try {
			// A cached list keeps its numbers as the upstream wrote them (exact-json.ts).
			value = parseExact(text);
		} catch (error) {
			repaired = true;
			damaged = true;
			value = repair(text);
			problems.push(
				value === undefined
					? `state file ${file} is not valid JSON (${(error as Error).message}) and could not be repaired`
					: `state file ${file} is not valid JSON (${(error as Error).message}); kept its quarantines and pinned tools, the rest is learned again`,
			);
		}

		if (value !== undefined) {
			const read = readState(value, repaired);
			state = read.state;
			if (read.problems.length > 0) damaged = true;
			problems.push(...read.problems.map(problem => `state file ${file}: ${problem}`));
		}
	}

	addQuarantines(dir, state, problems);
	return {state, problems, damaged};
}

/**
 * The JSON a damaged text still holds: repaired as it is, else cut back
 * member by member (a repair can fail on what the cut left, such as half a
 * URL), so what came before the damage is kept.
 */
function repair(text: string): unknown {
	let end = text.length;
	for (let attempt = 0; attempt < 100 && end > 0; attempt++) {
		try {
			return JSON.parse(jsonrepair(text.slice(0, end))) as unknown;
		} catch {
			end = Math.max(text.lastIndexOf(',', end - 1), text.lastIndexOf('{', end - 1) + 1, text.lastIndexOf('[', end - 1) + 1);
		}
	}

	return undefined;
}

/** quarantine.json's quarantines, added to `state` (either file's quarantine keeps an upstream quarantined). */
function addQuarantines(dir: string, state: PersistedState, problems: string[]): void {
	const file = path.join(dir, 'quarantine.json');
	let value: unknown;
	try {
		const text = readText(file);
		if (text === undefined) return;
		value = JSON.parse(text);
	} catch (error) {
		problems.push(`${file} is unreadable (${(error as Error).message}); the quarantines in state.json still hold`);
		return;
	}

	const read = readQuarantines(value);
	problems.push(...read.problems.map(problem => `${file}: ${problem}`));
	for (const [name, record] of Object.entries(read.quarantines)) {
		const upstream = (state.upstreams[name] ??= emptyUpstream());
		if (upstream.admin === undefined) upstream.admin = record;
	}
}

export function quarantinesOf(state: PersistedState): QuarantineFile {
	const upstreams: Record<string, QuarantineRecord> = {};
	for (const [name, upstream] of Object.entries(state.upstreams)) {
		if (upstream.admin?.state === 'quarantined') upstreams[name] = upstream.admin;
	}

	return {version: 1, upstreams};
}

/**
 * The upstreams the state dir holds quarantined, read without opening the
 * store (no lock, nothing written): what `--stdio` checks before it spawns
 * any upstream early. Undefined when state.json cannot be read as a state
 * file: then nothing may be assumed about any upstream.
 */
export function quarantinedIn(dir: string): Set<string> | undefined {
	let content: DirContent;
	try {
		content = readDir(dir);
	} catch {
		return undefined;
	}

	if (content.damaged) return undefined;
	return new Set(Object.keys(quarantinesOf(content.state).upstreams));
}

