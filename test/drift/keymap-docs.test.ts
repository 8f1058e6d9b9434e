import fs from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {keymapMarkdown} from '../../source/tui/components/keymap.js';
import {root} from '../support/hangar.js';

describe('the keymap', () => {
	it('is listed in docs/tui.md exactly as generated', () => {
		const docs = fs.readFileSync(path.join(root, 'docs', 'tui.md'), 'utf8');
		const region = /<!-- keymap:start -->\n<!--[^\n]*-->\n([\s\S]*?)\n<!-- keymap:end -->/.exec(docs);
		expect(region, 'docs/tui.md needs a keymap region between <!-- keymap:start --> and <!-- keymap:end -->').not.toBeNull();
		expect(region?.[1]).toBe(keymapMarkdown());
	});
});
