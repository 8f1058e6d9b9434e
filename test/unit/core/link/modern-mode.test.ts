import {describe, expect, it} from 'vitest';
import {negotiationFor, withoutEraFields} from '../../../../source/core/link/modern-mode.js';

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
});
