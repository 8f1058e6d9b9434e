import type {Key} from 'ink';
import {describe, expect, it} from 'vitest';
import {keyPresses, plainKey} from '../../../../source/tui/components/key-chunk.js';
import {matchAction, type KeyContext} from '../../../../source/tui/components/keymap.js';

function key(overrides: Partial<Key> = {}): Key {
	return {...plainKey, ...overrides};
}

describe('key chunks', () => {
	it('splits a read holding several keys into the keys, each as Ink reports it alone', () => {
		const commands = (context: KeyContext, input: string, flags: Partial<Key> = {}): Array<string | undefined> =>
			keyPresses(input, key(flags)).map(press => matchAction(context, press.input, press.key));
		expect(commands('main', 'kk')).toEqual(['up', 'up']);
		expect(commands('main', 'jx\r')).toEqual(['down', 'stop', 'details']);
		// DEL (what Backspace sends) and BS erase; Ctrl-C in a read still interrupts.
		expect(commands('filter', '\u007F\u007F\b')).toEqual(['filterErase', 'filterErase', 'filterErase']);
		expect(commands('filter', 'a\u0003')).toEqual([undefined, 'interrupt']);
		// Text stays text, one character each; other control characters are no key at all.
		expect(keyPresses('Ab\u0000\u001F', key()).map(press => press.input)).toEqual(['A', 'b', '', '']);
		expect(keyPresses('A', key()).map(press => press.key.shift)).toEqual([true]);
		// A key with a flag is one key, as it came.
		expect(keyPresses('', key({upArrow: true}))).toEqual([{input: '', key: key({upArrow: true})}]);
		expect(keyPresses('c', key({ctrl: true}))).toEqual([{input: 'c', key: key({ctrl: true})}]);
	});

	it('takes a meta press apart into the Esc and what came with it: two Esc sent together, or Esc then a key, as Ink 8 reads them', () => {
		const esc = {input: '', key: {...plainKey, escape: true}};
		expect(keyPresses('\u001b', {...plainKey, escape: true, meta: true})).toEqual([esc, esc]);
		expect(keyPresses('t', {...plainKey, meta: true})).toEqual([esc, {input: 't', key: plainKey}]);
		expect(keyPresses('', {...plainKey, upArrow: true, meta: true})).toEqual([esc, {input: '', key: {...plainKey, upArrow: true}}]);
	});
});

