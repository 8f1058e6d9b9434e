import {describe, expect, it} from 'vitest';
import {TemplateMatcher, UriBook, hangarUri, parseHangarUri} from '../../../../source/core/engine/routing/resource-uris.js';

describe('resource URIs across upstreams', () => {
	it('writes and reads hangar://<server>/<uri> with the original URI verbatim', () => {
		const uri = hangarUri('b', 'file:///tmp/a b?x=1#y');
		expect(uri).toBe('hangar://b/file:///tmp/a b?x=1#y');
		expect(parseHangarUri(uri)).toEqual({server: 'b', uri: 'file:///tmp/a b?x=1#y'});
		expect(parseHangarUri('file:///x')).toBeUndefined();
		expect(parseHangarUri('hangar://no-slash')).toBeUndefined();
	});

	it('matches templates as RFC 6570 does, and ranks the more literal template as more specific', () => {
		const broad = new TemplateMatcher('test://{name}');
		const narrow = new TemplateMatcher('test://template/{id}/data');
		expect(narrow.matches('test://template/123/data')).toBe(true);
		expect(narrow.matches('test://template/123/other')).toBe(false);
		expect(broad.matches('test://static')).toBe(true);
		expect(narrow.specificity).toBeGreaterThan(broad.specificity);
		expect(new TemplateMatcher('{unclosed').matches('{unclosed')).toBe(false);
	});

	it('remembers who handed out a URI first, and forgets the least recently used past its bound', () => {
		const book = new UriBook(3);
		expect(book.claim('u1', 'a')).toBe('a');
		expect(book.claim('u1', 'b')).toBe('a');
		book.claim('u2', 'a');
		book.claim('u3', 'a');
		expect(book.owner('u1')).toBe('a'); // u1 is now the most recently used
		book.claim('u4', 'b');
		expect(book.size).toBe(3);
		expect(book.owner('u2')).toBeUndefined();
		expect(book.owner('u1')).toBe('a');
		for (let i = 0; i < 1000; i++) book.claim(`x${i}`, 'c');
		expect(book.size).toBe(3);
	});
});
