/**
 * Test support: reads the TUI's upstream table from a captured screen by its
 * column titles, so e2e tests do not depend on which columns the width lets
 * in (columns are chosen by priority, and the history columns appear once
 * calls were made). Cells and titles are separated by two or more spaces.
 * A left-aligned cell starts where its title starts, a right-aligned one
 * ends where its title ends; otherwise a cell belongs to the title it
 * overlaps, or else to the nearest title on its left (a cell never starts
 * left of its column, and a sparkline may start with blanks).
 */

type Span = {text: string; start: number; end: number};

function spans(line: string): Span[] {
	const out: Span[] = [];
	for (const match of line.matchAll(/\S+(?: \S+)*/g)) out.push({text: match[0], start: match.index, end: match.index + match[0].length});
	return out;
}

function titleOf(cell: Span, titles: readonly Span[]): Span {
	return (
		titles.find(title => title.start === cell.start) ??
		titles.find(title => title.end === cell.end) ??
		titles.find(title => title.start < cell.end && cell.start < title.end) ??
		titles.filter(title => title.end <= cell.start).at(-1) ??
		titles[0]!
	);
}

/** The table row of upstream `name` as {TITLE: cell}; undefined when the screen has no such row. */
export function tableRow(screen: string, name: string): Record<string, string> | undefined {
	const lines = screen.split('\n');
	const header = lines.find(line => /^ {2}NAME {2}/.test(line));
	const line = lines.find(candidate => /^[› ] /.test(candidate) && candidate.slice(2).startsWith(`${name} `));
	if (header === undefined || line === undefined) return undefined;
	const titles = spans(header);
	const row: Record<string, string> = {};
	for (const cell of spans(line.slice(2)).map(span => ({...span, start: span.start + 2, end: span.end + 2}))) {
		const title = titleOf(cell, titles);
		row[title.text] = row[title.text] === undefined ? cell.text : `${row[title.text]}  ${cell.text}`;
	}

	return row;
}

/** One cell of upstream `name`'s row, by its column title (STATE, BRK, PID, CALLS, FAILED, …). */
export function tableCell(screen: string, name: string, title: string): string | undefined {
	const row = tableRow(screen, name);
	if (row === undefined) return undefined;
	return row[title] ?? '';
}
