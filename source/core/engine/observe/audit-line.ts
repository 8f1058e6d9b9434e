/**
 * A call's audit line, written as text rather than by JSON.stringify of a
 * record object: the same bytes (a test holds them to it), for about a
 * quarter of the time. The strings a call line repeats (the client, the
 * session, the upstream, the tool) are quoted once and kept, in a bounded
 * map; the rest (an error, the arguments) are quoted as they come.
 */
import type {AuditCall} from './audit-log.js';

/** Strings quoted and kept, at most; past it the map starts again. */
const quotesKept = 512;
/** Longer strings are quoted each time, never kept. */
const keptLength = 256;

/** JSON string literals of strings seen before. */
export class JsonQuotes {
	private readonly quoted = new Map<string, string>();

	of(text: string | null): string {
		if (text === null) return 'null';
		if (text.length > keptLength) return JSON.stringify(text);
		let quoted = this.quoted.get(text);
		if (quoted === undefined) {
			quoted = JSON.stringify(text);
			if (this.quoted.size >= quotesKept) this.quoted.clear();
			this.quoted.set(text, quoted);
		}

		return quoted;
	}
}

/** What an ISO 8601 time is made of: nothing JSON escapes. */
const isoCharacters = /^[\d.:+TZ-]*$/;

/** A number as JSON writes it (null when not finite). */
function jsonNumber(value: number): string {
	return Number.isFinite(value) ? String(value) : 'null';
}

/**
 * A duration rounded to the microsecond (`Math.round(ms * 1000) / 1000`, as
 * the record holds it) as JSON writes it, put together from integers: the
 * shortest form of a fraction costs V8 more than the rest of the line.
 */
export function millisText(ms: number): string {
	const micros = Math.round(ms * 1000);
	// Past 2^53 µs (285 years) or below 0, as JSON writes it.
	if (!Number.isSafeInteger(micros) || micros < 0) return jsonNumber(ms);
	const whole = Math.floor(micros / 1000);
	const fraction = micros - whole * 1000;
	if (fraction === 0) return String(whole);
	if (fraction % 100 === 0) return `${whole}.${fraction / 100}`;
	if (fraction % 10 === 0) return `${whole}.${fraction < 100 ? '0' : ''}${fraction / 10}`;
	return `${whole}.${fraction < 10 ? '00' : fraction < 100 ? '0' : ''}${fraction}`;
}

/**
 * `JSON.stringify(record)`, without its newline. `isoTime`: the record's
 * time is one `isoTime` made, which holds nothing JSON escapes, so it is not
 * checked: a regular expression over that text, still a concatenation the
 * engine flattens first, cost about 2,000 instructions a call.
 */
export function callLine(record: AuditCall, quotes: JsonQuotes, isoTime = false): string {
	const args = record.args === undefined ? '' : `,"args":${JSON.stringify(record.args)}`;
	const error = record.error === null ? 'null' : JSON.stringify(record.error);
	const time = isoTime || isoCharacters.test(record.time) ? `"${record.time}"` : JSON.stringify(record.time);
	return `{"kind":"call","time":${time},"client":${quotes.of(record.client)},"session":${quotes.of(record.session)},"upstream":${quotes.of(record.upstream)},"tool":${quotes.of(record.tool)},"ms":${millisText(record.ms)},"outcome":${quotes.of(record.outcome)},"code":${quotes.of(record.code)},"error":${error},"argsBytes":${jsonNumber(record.argsBytes)}${args}}`;
}
