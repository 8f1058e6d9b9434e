import {describe, expect, it} from 'vitest';
import {HangarError} from '../../../../source/core/base/errors.js';
import {maxInputRequests, readInputRound} from '../../../../source/core/link/input-rounds.js';

const read = (result: Record<string, unknown>) => readInputRound('m', 'tools/call', result);

describe('an input_required answer', () => {
	it('is read as its embedded requests by key, with the requestState untouched', () => {
		const round = read({resultType: 'input_required', inputRequests: {confirm: {method: 'elicitation/create', params: {message: 'ok?'}}}, requestState: 'opaque'});
		expect(round).toEqual({inputRequests: {confirm: {method: 'elicitation/create', params: {message: 'ok?'}}}, requestState: 'opaque'});
	});

	it('is refused when it asks for something hangar does not relay, has no method, or asks too much in one round', () => {
		expect(() => read({inputRequests: {x: {method: 'tools/call', params: {}}}})).toThrow(HangarError);
		expect(() => read({inputRequests: {x: {params: {}}}})).toThrow(/has no method/);
		expect(() => read({})).toThrow(/neither inputRequests nor requestState/);
		const many = Object.fromEntries(Array.from({length: maxInputRequests + 1}, (_, index) => [`k${index}`, {method: 'roots/list'}]));
		expect(() => read({inputRequests: many})).toThrow(/at most 16/);
	});
});
