import {describe, expect, it} from 'vitest';
import {JsonRpcError} from '../../../../source/core/base/errors.js';
import {page, pageSize} from '../../../../source/core/gateway/pagination.js';

const items = Array.from({length: 25}, (_, i) => i);

describe('hangar\'s list pages', () => {
	it('serves a short list in one page without a cursor', () => {
		expect(page('tools/list', items, undefined)).toEqual({items});
		expect(pageSize).toBeGreaterThanOrEqual(100);
	});

	it('walks a long list with opaque cursors, each item once', () => {
		const seen: number[] = [];
		let cursor: string | undefined;
		let pages = 0;
		do {
			const next = page('prompts/list', items, cursor, 10);
			seen.push(...next.items);
			cursor = next.nextCursor;
			if (cursor !== undefined) expect(cursor).not.toMatch(/\d+$/);
			pages += 1;
		} while (cursor !== undefined);

		expect(seen).toEqual(items);
		expect(pages).toBe(3);
	});

	it('refuses with -32602 a cursor it did not give, or one of another list', () => {
		const cursor = page('tools/list', items, undefined, 10).nextCursor!;
		for (const [method, bad] of [
			['tools/list', 'junk'],
			['tools/list', ''],
			['prompts/list', cursor],
			['tools/list', Buffer.from('tools/list:999').toString('base64url')],
			['tools/list', Buffer.from('tools/list:-1').toString('base64url')],
		] as const) {
			let thrown: unknown;
			try {
				page(method, items, bad, 10);
			} catch (error) {
				thrown = error;
			}

			expect(thrown, `${method} ${bad}`).toBeInstanceOf(JsonRpcError);
			expect((thrown as JsonRpcError).code).toBe(-32_602);
		}
	});
});
