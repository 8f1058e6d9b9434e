import {describe, expect, it} from 'vitest';
import {negotiationFor, openInEra, withoutEraFields, type Opening} from '../../../../source/core/link/modern-mode.js';
import {SpawnError} from '../../../../source/core/link/launch-problem.js';
import type {ServerConfig} from '../../../../source/core/config/read-config.js';
import type {LogBuffer} from '../../../../source/core/link/log-buffer.js';

describe('driving a 2026-07-28 upstream', () => {
	it('opens in the saved era without a probe, and probes for at most a third of the start timeout without one', () => {
		expect(negotiationFor('legacy', 30_000)).toEqual({mode: 'legacy'});
		expect(negotiationFor('modern', 30_000)).toEqual({mode: {pin: '2026-07-28'}});
		expect(negotiationFor(undefined, 60_000)).toEqual({mode: 'auto', probe: {timeoutMs: 10_000}});
		expect(negotiationFor(undefined, 6000)).toEqual({mode: 'auto', probe: {timeoutMs: 2000}});
	});

	it('hands a 2025 session a complete result without the modern wire\'s resultType and serverInfo, keeping the rest of _meta', () => {
		const serverInfo = {'io.modelcontextprotocol/serverInfo': {name: 's', version: '1'}};
		expect(withoutEraFields({resultType: 'complete', content: [], _meta: serverInfo})).toEqual({content: []});
		expect(withoutEraFields({content: [], _meta: {...serverInfo, trace: 'x'}})).toEqual({content: [], _meta: {trace: 'x'}});
		expect(withoutEraFields({content: [], isError: true})).toEqual({content: [], isError: true});
	});

	it('does not take a command that never ran for a 2025 server that exited on the probe, nor spawn it again', async () => {
		const lines: string[] = [];
		const opening: Opening<undefined, undefined> = {
			given: undefined,
			config: {launch: {kind: 'stdio'}, startTimeoutMs: 30_000} as unknown as ServerConfig,
			log: {push: (_source: string, line: string) => lines.push(line)} as unknown as LogBuffer,
			events: undefined,
			signal: new AbortController().signal,
			graceMs: 0,
			clientSide: undefined,
		};
		let spawns = 0;
		const failed = openInEra(opening, undefined, async (_opening, _hint, attempt) => {
			spawns++;
			attempt.exit = {code: null, signal: null, at: 0};
			throw new SpawnError('/nonexistent/ghost', 'ENOENT');
		});
		await expect(failed).rejects.toBeInstanceOf(SpawnError);
		expect(spawns).toBe(1);
		expect(lines.join('\n')).not.toContain('a 2025 server');
	});
});
