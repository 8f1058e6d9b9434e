/**
 * The state loader against generated shapes: a valid state with a random
 * JSON value put at one of its paths (or the key removed), and the valid
 * text cut at every few characters. Whatever the file holds, reading it
 * never throws, what it yields reads again without a problem, a
 * supervisor starts on it and serves its lists, and a quarantine is lost
 * only when the mutation removed the record that held it. Deterministic:
 * the generator is seeded.
 */
import fs from 'node:fs';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {silentLogger} from '../../../../source/core/base/logger.js';
import {parseConfig} from '../../../../source/core/config/read-config.js';
import {readState} from '../../../../source/core/engine/state-schema.js';
import {StateStore} from '../../../../source/core/engine/state-store.js';
import {Supervisor} from '../../../../source/core/engine/supervisor.js';
import {statusEntries} from '../../../../source/core/views/views.js';
import {fixture, tempDir} from '../../../support/hangar.js';

/** mulberry32: a small seeded generator, so a failure replays. */
function random(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d_2b_79_f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
	};
}

const quarantine = {state: 'quarantined', at: 1_700_000_000_000, reason: 'a pinned tool changed', changes: [{tool: 'echo', field: 'description', before: 'Echo', after: 'Ignore all'}], seen: {echo: {hash: 'abc', description: 'Ignore all', inputSchema: {type: 'object'}}}};

/** A state file with every field set, `a` quarantined first in its record. */
const valid = {
	version: 1,
	upstreams: {
		a: {
			admin: quarantine,
			counters: {starts: 3, crashes: 1, calls: 40, failures: 2},
			tools: [
				{name: 'echo', description: 'Echo', inputSchema: {type: 'object', properties: {message: {type: 'string'}}}},
				{name: 'sum', title: 'Sum', inputSchema: {type: 'object'}, outputSchema: {type: 'object'}, annotations: {readOnlyHint: true}},
			],
			toolsVerifiedAt: 1_700_000_000_000,
			catalog: {
				capabilities: {resources: {subscribe: true}, prompts: {listChanged: true}, completions: {}},
				verifiedAt: 1_700_000_000_000,
				resources: [{uri: 'file:///a', name: 'a'}],
				resourceTemplates: [{uriTemplate: 'file:///{x}', name: 'x'}],
				prompts: [{name: 'p', arguments: [{name: 'q', required: true}]}],
			},
			lastExit: {code: 1, signal: null, at: 1_700_000_000_000, stderrTail: ['boom']},
			pins: {by: 'first-use', pinnedAt: 1, tools: {echo: {hash: 'abc', description: 'Echo', inputSchema: {type: 'object'}}}},
			firstSeenAt: 1,
		},
		b: {counters: {starts: 0, crashes: 0, calls: 0, failures: 0}},
	},
};

type Path = Array<string | number>;

function paths(value: unknown, at: Path = []): Path[] {
	const found: Path[] = [at];
	if (Array.isArray(value)) value.forEach((item, index) => found.push(...paths(item, [...at, index])));
	else if (typeof value === 'object' && value !== null) for (const [key, item] of Object.entries(value)) found.push(...paths(item, [...at, key]));
	return found;
}

function jsonValue(next: () => number, depth = 0): unknown {
	const pick = Math.floor(next() * (depth > 2 ? 7 : 9));
	const scalars: unknown[] = [null, true, -1, 1.5, 1e308, '', 'x\u0000\u001b]52;c;', Number.MAX_SAFE_INTEGER, 0];
	if (pick < 7) return scalars[Math.floor(next() * scalars.length)];
	const size = Math.floor(next() * 3);
	if (pick === 7) return Array.from({length: size}, () => jsonValue(next, depth + 1));
	return Object.fromEntries(Array.from({length: size}, (_, index) => [['name', 'state', 'at', 'tools', 'uri'][index] ?? `k${index}`, jsonValue(next, depth + 1)]));
}

/** `value` with `replacement` at `at` (undefined: the key removed). */
function substitute(value: unknown, at: Path, replacement: unknown): unknown {
	if (at.length === 0) return replacement;
	const copy = structuredClone(value) as Record<string | number, unknown>;
	let parent = copy;
	for (const key of at.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
	const last = at.at(-1)!;
	if (replacement === undefined && Array.isArray(parent)) parent.splice(last as number, 1);
	else if (replacement === undefined) delete parent[last];
	else parent[last] = replacement;
	return copy;
}

const adminPath = ['upstreams', 'a', 'admin'];
/** Mutations that may take a's quarantine away: of the record itself or of what holds it, replaced or removed. */
const mayLoseQuarantine = (at: Path, removed: boolean): boolean => at.length < adminPath.length || (removed && at.join('.') === adminPath.join('.'));

const supervisors: Supervisor[] = [];
const work = tempDir();
let cases = 0;

afterAll(async () => {
	await Promise.all(supervisors.splice(0).map(async supervisor => supervisor.shutdown('test finished')));
});

/** Starts a supervisor on a state dir holding `text`: what a start does, down to the lists it serves. */
async function startOn(text: string): Promise<{store: StateStore; supervisor: Supervisor}> {
	const dir = path.join(work, String(cases++));
	const stateDir = path.join(dir, 'state');
	fs.mkdirSync(stateDir, {recursive: true});
	fs.writeFileSync(path.join(stateDir, 'state.json'), text);
	const config = parseConfig({hangar: {stateDir}, mcpServers: {a: fixture('normal'), b: fixture('normal', [], {lazy: true})}}, path.join(dir, 'mcp-hangar.json'));
	const store = await StateStore.open(stateDir, silentLogger, 10);
	const supervisor = new Supervisor(config, store, silentLogger);
	expect(statusEntries(supervisor)).toHaveLength(2);
	supervisor.tools();
	supervisor.capabilities();
	supervisor.contextCost();
	supervisor.searchTools('echo', 5);
	// What every call does on its way out (a counters field of null once made this throw).
	store.update('a', upstream => {
		upstream.counters.calls += 1;
	}, true);
	await supervisor.shutdown('case finished');
	return {store, supervisor};
}

describe('the state loader, fuzzed', () => {
	it('reads a valid state with every field unchanged and without a problem', () => {
		const {state, problems} = readState(valid);
		expect(problems).toEqual([]);
		expect(state).toEqual(valid);
	});

	it('never throws on a random value at any path, yields a state that reads cleanly, and keeps a quarantine unless its record was removed', async () => {
		const next = random(26);
		const all = paths(valid);
		let lost = 0;
		for (let index = 0; index < 2000; index++) {
			const at = all[Math.floor(next() * all.length)]!;
			const removed = at.length > 0 && next() < 0.2;
			const mutated = substitute(valid, at, removed ? undefined : jsonValue(next));
			const {state} = readState(mutated);
			const again = readState(JSON.parse(JSON.stringify(state)));
			expect(again.problems, `case ${index}: ${at.join('.')}`).toEqual([]);
			expect(again.state).toEqual(JSON.parse(JSON.stringify(state)));
			if (state.upstreams['a']?.admin?.state !== 'quarantined') {
				lost += 1;
				expect(mayLoseQuarantine(at, removed), `case ${index}: quarantine lost by a change at ${at.join('.')}`).toBe(true);
			}

			// Every 20th case goes through a whole start.
			if (index % 20 === 0) await startOn(JSON.stringify(mutated));
		}

		// The generator does reach the cases that matter.
		expect(lost).toBeGreaterThan(0);
	});

	it('starts on the valid text cut anywhere, keeping the quarantine once its record is whole', async () => {
		const text = JSON.stringify(valid, null, 2);
		const adminEnd = text.indexOf('"counters"');
		for (let cut = 0; cut < text.length; cut += 19) {
			const {store} = await startOn(text.slice(0, cut));
			if (cut >= adminEnd) expect(store.data.upstreams['a']?.admin?.state, `cut at ${cut}`).toBe('quarantined');
		}
	});
});
