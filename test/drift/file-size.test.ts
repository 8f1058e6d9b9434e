/**
 * No source file over 600 lines: past that a module is doing more than one
 * thing and a reader loses its thread. Split it by what it does (see how
 * engine/upstream/ or demo/fixture/ are split), not by line count.
 */
import fs from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {root} from '../support/hangar.js';

const limit = 600;

function sourceFiles(dir: string): string[] {
	return fs.readdirSync(dir, {withFileTypes: true}).flatMap(entry => {
		const full = path.join(dir, entry.name);
		if (entry.isDirectory()) return sourceFiles(full);
		return /\.(ts|tsx|mts|cts|js|mjs)$/.test(entry.name) ? [full] : [];
	});
}

const lineCount = (file: string) => fs.readFileSync(file, 'utf8').split('\n').length - (fs.readFileSync(file, 'utf8').endsWith('\n') ? 1 : 0);

describe('the size of source files', () => {
	it(`keeps every file under source/ at ${limit} lines or fewer`, () => {
		const files = sourceFiles(path.join(root, 'source'));
		expect(files.length).toBeGreaterThan(100);
		const sizes = files.map(file => ({file: path.relative(root, file), lines: lineCount(file)}));
		expect(sizes.filter(({lines}) => lines > limit)).toEqual([]);
	});
});
