/**
 * The Set and Map that keep their table when they empty (a member of their
 * own, never shown): they must read as a Set and a Map do.
 */
import {describe, expect, it} from 'vitest';
import {SteadyMap, SteadySet} from '../../../../source/core/base/steady-collections.js';

describe('SteadySet', () => {
	it('holds, counts and lists its members as a Set does, oldest first, across emptying and clearing', () => {
		const set = new SteadySet<string | number>();
		expect(set.size).toBe(0);
		expect([...set]).toEqual([]);
		set.add('a').add(1).add('a');
		expect([set.size, set.has('a'), set.has(1), set.has(2)]).toEqual([2, true, true, false]);
		expect([...set]).toEqual(['a', 1]);
		expect(set.delete('a')).toBe(true);
		expect(set.delete('a')).toBe(false);
		expect(set.delete(1)).toBe(true);
		expect([set.size, [...set.values()]]).toEqual([0, []]);
		set.add(2).add(3);
		set.clear();
		expect([set.size, [...set]]).toEqual([0, []]);
		set.add(4);
		expect([...set]).toEqual([4]);
	});

	it('may lose members while it is read, as a Set may', () => {
		const set = new SteadySet<number>();
		for (let index = 0; index < 5; index++) set.add(index);
		const seen: number[] = [];
		for (const member of set) {
			seen.push(member);
			set.delete(member);
		}

		expect([seen, set.size]).toEqual([[0, 1, 2, 3, 4], 0]);
	});
});

describe('SteadyMap', () => {
	it('holds, counts and lists its entries as a Map does, oldest first, across emptying and clearing', () => {
		const map = new SteadyMap<string, number>();
		expect([map.size, map.get('a'), map.has('a'), [...map.values()], [...map.keys()]]).toEqual([0, undefined, false, [], []]);
		map.set('a', 1).set('b', 2).set('a', 3);
		expect([map.size, map.get('a'), map.get('b'), map.has('b')]).toEqual([2, 3, 2, true]);
		expect([[...map.keys()], [...map.values()]]).toEqual([['a', 'b'], [3, 2]]);
		expect(map.delete('a')).toBe(true);
		expect(map.delete('a')).toBe(false);
		map.delete('b');
		expect([map.size, [...map.values()], [...map.keys()]]).toEqual([0, [], []]);
		map.set('c', 4);
		map.clear();
		expect([map.size, [...map.values()], map.get('c')]).toEqual([0, [], undefined]);
	});
});
