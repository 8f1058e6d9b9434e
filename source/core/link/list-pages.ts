/**
 * Reads every page of a list an upstream serves (tools/list, prompts/list,
 * ...), following `nextCursor`. A server that repeats a cursor, or never
 * stops giving a new one, would be followed forever: reading stops at a
 * repeated cursor or after `maxListPages` pages, keeps what it read, and
 * says so in the upstream's log.
 */
import type {LogBuffer} from './log-buffer.js';

/** The most pages of one list followed. */
export const maxListPages = 500;

export async function eachPage(method: string, read: (cursor: string | undefined) => Promise<Record<string, unknown>>, take: (page: Record<string, unknown>, first: boolean) => void, log: LogBuffer): Promise<void> {
	let cursor: string | undefined;
	const seen = new Set<string>();
	for (let pages = 1; ; pages++) {
		const page = await read(cursor);
		take(page, cursor === undefined);
		cursor = typeof page['nextCursor'] === 'string' ? page['nextCursor'] : undefined;
		if (cursor === undefined) return;
		const stop = seen.has(cursor) ? 'repeated a nextCursor' : pages >= maxListPages ? `gave a nextCursor on every one of ${maxListPages} pages` : undefined;
		if (stop !== undefined) {
			log.push('hangar', `${method}: the upstream ${stop}; hangar stopped following its pages and keeps the ${pages} it read. Its pagination is broken: report it to its authors`);
			return;
		}

		seen.add(cursor);
	}
}
