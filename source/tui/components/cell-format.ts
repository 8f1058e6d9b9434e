/**
 * How numbers, times and free text become terminal cells: short, fixed
 * formats so columns line up, and text made safe to print (no escape
 * sequence, control, tab or newline from an upstream's stderr reaches the
 * terminal raw) and cut to a width instead of wrapping.
 */
import {terminalText} from '../../core/base/terminal-text.js';

/** 42s, 5m12s, 3h05m, 2d03h. */
export function duration(seconds: number): string {
	const s = Math.max(0, Math.round(seconds));
	if (s < 60) return `${s}s`;
	if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
	if (s < 86_400) return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
	return `${Math.floor(s / 86_400)}d${String(Math.floor((s % 86_400) / 3600)).padStart(2, '0')}h`;
}

/**
 * An age for a table cell: exact under an hour (35s, 4m10s), as the detail
 * view shows it, then one unit (3h, 2d). A table of exact ages changes every
 * second in its first hour; the frame rule keeps that cheap (see
 * use-hangar-snapshot.ts), and an age that reads "<1m" while the details say
 * "up 35s" is the kind of disagreement a person notices.
 */
export function shortDuration(seconds: number): string {
	const s = Math.max(0, Math.floor(seconds));
	if (s < 3600) return duration(s);
	if (s < 86_400) return `${Math.floor(s / 3600)}h`;
	return `${Math.floor(s / 86_400)}d`;
}

/** Ages under this many seconds are shown to the second (see `shortDuration`). */
export const secondsShownBelow = 3600;

/** How long hangar has run, as the header shows it (7s, 4m10s, 3h05m, 2d03h). */
export function uptime(seconds: number): string {
	return seconds < 3600 ? shortDuration(seconds) : duration(seconds);
}

/** 999, 12.3k, 4.5M. */
export function count(value: number): string {
	if (value < 10_000) return String(value);
	if (value < 1_000_000) return `${(value / 1000).toFixed(1)}k`;
	return `${(value / 1_000_000).toFixed(1)}M`;
}

/** 3.2ms, 45ms, 1.2s; "-" when unknown. */
export function millis(ms: number | null): string {
	if (ms === null) return '-';
	if (ms < 10) return `${ms.toFixed(1)}ms`;
	if (ms < 1000) return `${Math.round(ms)}ms`;
	return `${(ms / 1000).toFixed(1)}s`;
}

export function latency(value: {p50: number | null; p95: number | null}): string {
	if (value.p50 === null && value.p95 === null) return '-';
	return `${millis(value.p50)}/${millis(value.p95)}`;
}

/** Local wall-clock time, HH:MM:SS, of an ISO string or ms since the epoch. */
export function clock(at: string | number): string {
	const date = new Date(at);
	return [date.getHours(), date.getMinutes(), date.getSeconds()].map(part => String(part).padStart(2, '0')).join(':');
}

/** "in 4s" or "12s ago", relative to `now` (ms). */
export function relative(iso: string, now: number): string {
	const delta = (Date.parse(iso) - now) / 1000;
	return delta >= 0 ? `in ${duration(delta)}` : `${duration(-delta)} ago`;
}

/**
 * One printable line: its line breaks (LF, CRLF) and tabs as spaces, then the
 * output rule (core/base/terminal-text.ts): controls, escape sequences and
 * bidi controls shown escaped. A lone carriage return is not a line break but
 * a jump back over the line, so it is escaped (`\x0d`), as the CLI shows it,
 * never turned into a space (`A\rB` and `A B` must not look the same). Cells
 * are made printable before they are fitted, so a column's width counts what
 * is shown.
 */
export function printable(text: string): string {
	return terminalText(text.replace(/(?:\r?\n|\t)+/g, ' '));
}

/** `text` cut to `width` characters, with "…" when cut. */
export function cut(text: string, width: number): string {
	if (width <= 0) return '';
	const chars = [...text];
	if (chars.length <= width) return text;
	return width === 1 ? '…' : `${chars.slice(0, width - 1).join('')}…`;
}

/** `text` cut or padded to exactly `width` characters. */
export function fit(text: string, width: number, align: 'left' | 'right' = 'left'): string {
	const cutText = cut(text, width);
	const gap = width - [...cutText].length;
	if (gap <= 0) return cutText;
	return align === 'left' ? cutText + ' '.repeat(gap) : ' '.repeat(gap) + cutText;
}

/**
 * `text` cut to `width` characters in its middle, with "…" where it is cut:
 * "a-very-lo…name-num00". Names that share a long start (or end) stay
 * apart, where a cut at the end would show them all the same.
 */
export function cutMiddle(text: string, width: number): string {
	const chars = [...text];
	if (chars.length <= width) return text;
	if (width <= 2) return cut(text, width);
	const head = Math.floor((width - 1) / 2);
	return `${chars.slice(0, head).join('')}…${chars.slice(chars.length - (width - 1 - head)).join('')}`;
}

/** A path cut from the left, so its file name stays visible: "…/configs/hangar.json". */
export function cutLeft(text: string, width: number): string {
	const chars = [...text];
	if (chars.length <= width) return text;
	if (width <= 1) return cut(text, width);
	return `…${chars.slice(chars.length - width + 1).join('')}`;
}

/** `text` word-wrapped to `width`, at most `maxLines` lines, the last one cut with "…" when there is more. */
export function wrap(text: string, width: number, maxLines: number): string[] {
	const lines: string[] = [];
	let line = '';
	const words = text.split(' ');
	for (let index = 0; index < words.length; index++) {
		let word = words[index] ?? '';
		while ([...word].length > width) {
			// A word longer than a line is split where the line ends.
			const room = line === '' ? width : width - [...line].length - 1;
			if (room <= 0) {
				lines.push(line);
				line = '';
				continue;
			}

			const chars = [...word];
			lines.push(line === '' ? chars.slice(0, room).join('') : `${line} ${chars.slice(0, room).join('')}`);
			line = '';
			word = chars.slice(room).join('');
		}

		const candidate = line === '' ? word : `${line} ${word}`;
		if ([...candidate].length <= width) {
			line = candidate;
		} else {
			lines.push(line);
			line = word;
		}
	}

	if (line !== '' || lines.length === 0) lines.push(line);
	if (lines.length <= maxLines) return lines;
	const kept = lines.slice(0, maxLines);
	const last = cut(`${kept.at(-1) ?? ''} ${lines[maxLines] ?? ''}`, width);
	kept[maxLines - 1] = last.endsWith('…') ? last : `${cut(last, width - 1)}…`;
	return kept;
}
