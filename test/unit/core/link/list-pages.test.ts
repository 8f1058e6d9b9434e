import {describe, expect, it} from 'vitest';
import {eachPage, maxListPages} from '../../../../source/core/link/list-pages.js';
import {LogBuffer} from '../../../../source/core/link/log-buffer.js';

async function read(next: (page: number) => string | undefined): Promise<{pages: number; log: string[]}> {
	const log = new LogBuffer(10);
	let pages = 0;
	await eachPage('tools/list', async () => ({tools: [], nextCursor: next(++pages)}), () => {}, log);
	return {pages, log: log.tail(10).map(line => line.text)};
}

describe('eachPage', () => {
	it('follows nextCursor to the last page', async () => {
		expect(await read(page => (page < 3 ? `c${page}` : undefined))).toEqual({pages: 3, log: []});
	});

	it(`stops after ${maxListPages} pages of a server that always gives a new cursor, and says so`, async () => {
		const {pages, log} = await read(page => `c${page}`);
		expect(pages).toBe(maxListPages);
		expect(log).toEqual([`tools/list: the upstream gave a nextCursor on every one of ${maxListPages} pages; hangar stopped following its pages and keeps the ${maxListPages} it read. Its pagination is broken: report it to its authors`]);
	});

	it('stops at a repeated cursor, and says so', async () => {
		const {pages, log} = await read(() => 'same');
		expect(pages).toBe(2);
		expect(log[0]).toContain('the upstream repeated a nextCursor');
	});
});
