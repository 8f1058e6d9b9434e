/**
 * Hangar's own list pages (`tools/list`, `resources/list`,
 * `resources/templates/list`, `prompts/list`): opaque cursors, and -32602 for
 * a cursor hangar did not hand out. A page holds `pageSize` items, enough
 * that the common case (tens of upstreams, a few hundred tools) is one page:
 * a client that ignores `nextCursor` still sees everything there, and one
 * that follows it is never asked for many round trips.
 *
 * A cursor names its list and the offset of the next item, base64url
 * encoded so clients treat it as opaque. The lists are derived again for
 * every page; when one changes between pages, clients get the list_changed
 * notification and start over, as the protocol expects.
 */
import {invalidCursor} from '../engine/refusals.js';

export const pageSize = 500;

export type Page<T> = {items: T[]; nextCursor?: string};

/** The page of `items` that `cursor` (undefined: the first) asks for, in the list `method`. */
export function page<T>(method: string, items: readonly T[], cursor: string | undefined, size = pageSize): Page<T> {
	const offset = cursor === undefined ? 0 : offsetOf(method, cursor);
	if (offset === undefined || offset > items.length) throw invalidCursor(method, cursor!);
	const end = Math.min(items.length, offset + size);
	const slice = offset === 0 && end === items.length ? [...items] : items.slice(offset, end);
	return end < items.length ? {items: slice, nextCursor: cursorOf(method, end)} : {items: slice};
}

function cursorOf(method: string, offset: number): string {
	return Buffer.from(`${method}:${offset}`).toString('base64url');
}

function offsetOf(method: string, cursor: string): number | undefined {
	const match = /^(.+):(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
	if (match === null || match[1] !== method || cursorOf(method, Number(match[2])) !== cursor) return undefined;
	return Number(match[2]);
}
