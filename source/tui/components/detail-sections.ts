/**
 * The lines of the detail view, built from `UpstreamDetails` (plain data):
 * a summary (with any name clash it is part of), then the sections: its
 * history over the last 5 minutes (sparklines of calls, p95 latency and
 * failures, and a timeline of its transitions), tools with per-tool calls,
 * latency and a sparkline, state transitions with their reasons, recent
 * calls, the stderr tail, and its prompts, resources and resource templates
 * when it has any. Long lines wrap. Sections share the rows; one of them has
 * the focus (Tab) and scrolls (↑↓), and can be expanded to the whole body
 * (Enter). In a short terminal the last sections give way to one line naming
 * them rather than show a title over nothing.
 */
import type {SeriesView} from '../../core/engine/upstream/metrics.js';
import type {StatusEntry, TransitionView, UpstreamDetails} from '../../core/views/views.js';
import {clock, count, duration, fit, latency, millis, printable, relative} from './cell-format.js';
import {shareRows} from './row-budget.js';
import {segmentsLength, type Segment} from './Segments.js';
import {mergeBuckets, sparkline} from './sparkline.js';
import {breakerTone, stateTone} from './state-style.js';
import {wrapSegments} from './wrap-segments.js';

export type Line = readonly Segment[];

export type Section = {
	title: string;
	/** All rows, most interesting first (the ones shown when it is not scrolled). */
	rows: Line[];
	/** Rows to show when there are none. */
	empty: string;
	/** Show the rows oldest first, the most interesting at the bottom (a log tail reads downwards). */
	keepLast?: boolean;
};

const dim = {dim: true};
const label = (text: string): Segment => ({text, tone: dim});

type Group = Segment[];

/** Groups packed into lines of at most `width`, two spaces apart; a group too long for any line gets its own (cut when shown). */
function packGroups(groups: readonly Group[], width: number): Line[] {
	const lines: Segment[][] = [];
	let line: Segment[] = [];
	let used = 0;
	for (const group of groups) {
		const length = segmentsLength(group);
		if (line.length > 0 && used + 2 + length > width) {
			lines.push(line);
			line = [];
			used = 0;
		}

		if (line.length > 0) {
			line.push({text: '  '});
			used += 2;
		}

		line.push(...group);
		used += length;
	}

	if (line.length > 0) lines.push(line);
	return lines;
}

const running: ReadonlySet<StatusEntry['state']> = new Set(['ready', 'degraded', 'stopping']);

/**
 * Where the tool list comes from, truthfully: "live" only while the
 * upstream's process runs and has listed them; a list its process gave
 * before it stopped (or, while starting again, before it restarted) is
 * "from its last run", and the "verified" time next to it says when.
 */
function toolsOrigin(entry: Pick<StatusEntry, 'toolsSource' | 'state'>): string {
	if (entry.toolsSource === 'live' && !running.has(entry.state)) return 'from its last run';
	return entry.toolsSource;
}

/** The summary above the sections, packed to `width`. */
function summaryLines(details: UpstreamDetails, now: number, width: number): Line[] {
	const s = details.server;
	const state: Group[] = [
		[{text: s.name, tone: {bold: true}}, {text: '  '}, {text: s.state, tone: stateTone[s.state]}],
		[label(`since ${clock(s.stateSince)} (${relative(s.stateSince, now)})`)],
		[label('breaker '), {text: s.breaker, tone: breakerTone[s.breaker]}],
		[label('pid '), {text: s.pid === null ? '-' : String(s.pid)}],
		[label('restarts '), {text: String(s.restarts)}],
	];
	if (s.upSeconds !== null) state.push([label('up '), {text: duration(s.upSeconds)}]);
	if (s.idleSeconds !== null) state.push([label('idle '), {text: duration(s.idleSeconds)}]);
	const calls: Group[] = [
		[label('calls '), {text: count(s.calls)}],
		// Two counts of different things: calls that failed, and the breaker's failures in a row of any kind (starts, crashes,
		// calls, pings: a failed start counts there, not as a call). Short enough to share a line at 50 columns.
		[label('failed calls '), {text: count(s.failures), tone: s.failures > 0 ? {color: 'yellow'} : {}}],
		[label('failures in a row '), {text: String(s.consecutiveFailures), tone: s.consecutiveFailures > 0 ? {color: 'red'} : {}}],
		[label('tool errors '), {text: String(s.toolErrors)}],
		[label('in flight '), {text: String(s.inFlight)}],
		[label('p50/p95 '), {text: latency(s.latencyMs)}],
	];
	const tools: Group[] = [[label('tools '), {text: s.toolsSource === 'none' ? 'not listed yet' : `${s.tools} (${toolsOrigin(s)}${s.stale ? ', stale' : ''})`}]];
	if (details.filteredTools.length > 0) tools.push([label('filtered out '), {text: String(details.filteredTools.length), tone: {color: 'yellow'}}]);
	if (s.lastVerifiedAt !== null) tools.push([label('verified '), {text: `${clock(s.lastVerifiedAt)} (${relative(s.lastVerifiedAt, now)})`}]);
	if (s.nextRetryAt !== null) {
		tools.push([label(s.state === 'degraded' ? 'next probe ' : 'next restart '), {text: `${clock(s.nextRetryAt)} (${relative(s.nextRetryAt, now)})`, tone: {color: 'yellow'}}]);
	}

	const lines: Line[] = [
		...packGroups(state, width),
		[label('launch  '), {text: printable(details.launch)}],
		...packGroups(calls, width),
		...packGroups(tools, width),
	];
	if (s.lastError !== null) lines.push([label('last error  '), {text: printable(s.lastError), tone: {color: 'red'}}]);
	if (s.instanceMode !== undefined) {
		const mode = s.instanceMode;
		const runs = mode.runs === 'per-client' ? 'one per client session' : 'one shared by every client';
		const why = mode.setting !== 'auto' ? '' : mode.learned === null ? ' (it has asked no client for roots, sampling or elicitation)' : ` (learned: it sent ${mode.learned.method} ${relative(mode.learned.at, now)})`;
		const limit = mode.limit === undefined ? '' : `; ${s.instances?.length ?? 0} of at most ${mode.limit} (hangar.maxInstancesPerServer)`;
		lines.push([label('instances  '), {text: `${mode.setting}: ${runs}${why}${limit}`}]);
	}

	// Its protocol generation, once its first start probed it (unknown before: nothing to show).
	if (s.era.era !== null) lines.push([label('era  '), {text: s.era.era === 'dual' ? `${s.era.protocolVersion ?? '2025'} and 2026-07-28 (dual-era: 2026-07-28 clients get its era twin, learned ${relative(s.era.learnedAt!, now)})` : `${s.era.protocolVersion ?? s.era.era} (${s.era.era}, learned ${relative(s.era.learnedAt!, now)})`}]);
	if (s.eraTwin !== undefined) {
		const twin = s.eraTwin;
		lines.push([label('era twin  '), {text: twin.name, tone: {bold: true}}, {text: '  '}, {text: twin.state, tone: stateTone[twin.state]}, label(`  pid ${twin.pid ?? '-'}  calls ${count(twin.calls)}`)]);
	}

	if (s.instances !== undefined) {
		lines.push([label('running instances  '), {text: `${s.instances.length} (one per client session)`}]);
		for (const instance of s.instances) {
			lines.push([
				label('  '),
				{text: instance.name, tone: {bold: true}},
				{text: '  '},
				{text: instance.state, tone: stateTone[instance.state]},
				label(`  pid ${instance.pid ?? '-'}  calls ${count(instance.calls)}  client ${printable(instance.client)}`),
			]);
		}
	}

	if (details.quarantine !== null) {
		const changes = details.quarantine.changes.length;
		lines.push([
			label('quarantine  '),
			{text: printable(details.quarantine.reason), tone: {color: 'magenta'}},
			...(changes > 0 ? [label(`  (${changes} tool change${changes === 1 ? '' : 's'})`)] : []),
		]);
	}

	if (details.pins !== null) {
		const how = details.pins.by === 'first-use' ? 'at first listing' : 'approved';
		lines.push([label('pinned    '), {text: `${clock(details.pins.pinnedAt)} (${how}), ${details.pins.tools ?? 'no'} tool definitions`}]);
	}

	for (const clash of details.clashes) {
		const kept = clash.owner === s.name;
		lines.push([
			label('name clash  '),
			{text: `${clash.kind} ${clash.name}`, tone: {color: 'yellow'}},
			label(kept ? `  kept here; not exposed for ${clash.shadowed.join(', ')}` : `  kept by ${clash.owner}; not exposed for this server`),
		]);
	}

	return lines;
}

/** Transition marks on the timeline, worst first when two fall in the same character. */
const marks: Array<{to: TransitionView['to']; mark: string; tone: Segment['tone']}> = [
	{to: 'dead', mark: '✗', tone: {color: 'red', bold: true}},
	{to: 'degraded', mark: '!', tone: {color: 'yellow', bold: true}},
	{to: 'quarantined', mark: 'q', tone: {color: 'magenta'}},
	{to: 'starting', mark: '↑', tone: {color: 'cyan'}},
	{to: 'stopped', mark: '■', tone: {dim: true}},
	{to: 'ready', mark: '●', tone: {color: 'green'}},
];

/** The width of the history's sparklines: a character per 5-second bucket when there is room. */
function historyWidth(series: SeriesView, width: number): number {
	return Math.max(10, Math.min(series.calls.length, width - 24));
}

/** Where in a sparkline of `chars` characters over `series` the time `at` falls (undefined: outside it). */
function columnOf(at: number, series: SeriesView, chars: number): number | undefined {
	const span = series.calls.length * series.bucketMs;
	const start = series.end - span;
	if (at < start || at >= series.end) return undefined;
	// The sparkline merges buckets from the newest end: count the same way.
	const per = Math.ceil(series.calls.length / chars);
	const bucketsFromEnd = Math.floor((series.end - 1 - at) / series.bucketMs);
	const column = chars - 1 - Math.floor(bucketsFromEnd / per);
	return column < 0 ? undefined : column;
}

/** The timeline: a mark where each transition of the window happened, on the sparklines' time axis. */
export function timelineSegments(transitions: readonly TransitionView[], series: SeriesView, chars: number): Segment[] {
	const cells: Array<(typeof marks)[number] | undefined> = Array.from({length: chars});
	for (const record of transitions) {
		const column = columnOf(Date.parse(record.at), series, chars);
		const mark = marks.find(candidate => candidate.to === record.to);
		if (column === undefined || mark === undefined) continue;
		const held = cells[column];
		if (held === undefined || marks.indexOf(mark) < marks.indexOf(held)) cells[column] = mark;
	}

	return cells.map(cell => (cell === undefined ? {text: '·', tone: dim} : {text: cell.mark, tone: cell.tone}));
}

function historyRows(details: UpstreamDetails, width: number): Line[] {
	const series = details.history;
	const chars = historyWidth(series, width);
	const per = Math.ceil(series.calls.length / chars) * (series.bucketMs / 1000);
	const calls = series.calls.reduce((sum, n) => sum + n, 0);
	const failures = series.failures.reduce((sum, n) => sum + n, 0);
	const worst = Math.max(0, ...series.p95.map(value => value ?? 0));
	const minutes = (series.calls.length * series.bucketMs) / 60_000;
	const callScale = Math.max(0, ...mergeBuckets(series.calls, chars, 'sum').map(n => n ?? 0));
	// The last bucket is still filling: the rate now is the one before it.
	const lastFull = series.calls.at(-2) ?? 0;
	const timeline = timelineSegments(details.transitions, series, chars);
	const legend = marks.filter(mark => timeline.some(cell => cell.text === mark.mark)).map(mark => `${mark.mark} ${mark.to}`);
	return [
		[label('  calls     '), {text: sparkline(series.calls, chars, 'sum'), tone: {color: 'cyan'}}, label(`  ${count(calls)} in ${minutes}m, ${(lastFull / (series.bucketMs / 1000)).toFixed(1)}/s lately`)],
		[label('  p95       '), {text: sparkline(series.p95, chars, 'max'), tone: {color: 'yellow'}}, label(`  worst ${millis(worst === 0 ? null : worst)}`)],
		[label('  failures  '), {text: sparkline(series.failures, chars, 'sum', callScale), tone: {color: failures > 0 ? 'red' : undefined, dim: failures === 0}}, label(`  ${count(failures)} (on the calls' scale)`)],
		[label('  events    '), ...timeline, label(legend.length === 0 ? '  no transitions' : `  ${legend.join('  ')}`)],
		[label(`  ${' '.repeat(10)}${fit(`-${minutes}m`, Math.floor(chars / 2))}${fit('now', chars - Math.floor(chars / 2), 'right')}  ${per} s a character`)],
	];
}

function detailSections(details: UpstreamDetails, width: number): {sections: Section[]; extra: Section | undefined} {
	const nameWidth = Math.min(32, Math.max(4, ...details.tools.map(tool => printable(tool.name).length)));
	const compact = width < 60;
	const toolSpark = 10;
	const tools = [...details.tools]
		.map((tool, index) => ({tool, index}))
		.sort((a, b) => b.tool.calls - a.tool.calls || a.index - b.index)
		.map(({tool}): Line => [
			{text: `  ${fit(printable(tool.name), nameWidth)}`},
			{text: `  ${fit(count(tool.calls), 6, 'right')} calls`},
			{text: compact ? '' : `  ${fit(count(tool.failures), 4, 'right')} failed`, tone: tool.failures > 0 ? {color: 'yellow'} : dim},
			{text: compact ? '' : `  ${fit(latency(tool.latencyMs), 13, 'right')}`},
			{text: compact ? '' : `  ${tool.history === null ? ' '.repeat(toolSpark) : sparkline(tool.history.calls, toolSpark, 'sum')}`, tone: {color: 'cyan'}},
			{text: compact ? '' : `  ${fit(tool.tokens === 0 ? '-' : `~${count(tool.tokens)}t`, 6, 'right')}`, tone: dim},
			{text: tool.pinned ? '  pinned' : '', tone: dim},
			{text: compact || tool.description === null ? '' : `  ${printable(tool.description)}`, tone: dim},
		]);
	// What the server's filter keeps out, after the served tools, each with its rule.
	tools.push(
		...details.filteredTools.map((tool): Line => [
			{text: `  ${fit(printable(tool.name), nameWidth)}`, tone: dim},
			{text: '  filtered out by ', tone: dim},
			{text: printable(tool.rule), tone: {color: 'yellow'}},
		]),
	);
	const transitions = [...details.transitions].reverse().map((record): Line => [
		label(`  ${clock(record.at)}  `),
		{text: record.from, tone: stateTone[record.from]},
		label(' → '),
		{text: record.to, tone: stateTone[record.to]},
		label(`  ${record.event}  `),
		{text: printable(record.reason)},
	]);
	const calls = [...details.recentCalls].reverse().map((call): Line => [
		label(`  ${clock(call.at)}  `),
		{text: printable(call.tool)},
		{text: `  ${millis(call.ms)}  `},
		call.ok ? {text: 'ok', tone: {color: 'green'}} : {text: `error  ${printable(call.error ?? '')}`, tone: {color: 'red'}},
	]);
	const stderr = [...details.stderr].reverse().map((line): Line => [label(`  ${clock(line.at)}  `), {text: printable(line.text)}]);
	const catalog: Line[] = [
		...details.prompts.map((prompt): Line => [
			label('  prompt    '),
			{text: prompt.exposedName ?? prompt.name, tone: prompt.exposedName === null ? {color: 'yellow'} : {}},
			label(prompt.exposedName === null ? '  (name kept by another server)' : prompt.arguments.length > 0 ? `  (${prompt.arguments.join(', ')})` : ''),
			{text: compact || prompt.description === null ? '' : `  ${printable(prompt.description)}`, tone: dim},
		]),
		...details.resources.map((resource): Line => [label('  resource  '), {text: printable(resource.exposedUri)}, {text: compact ? '' : `  ${printable(resource.name)}`, tone: dim}]),
		...details.resourceTemplates.map((template): Line => [label('  template  '), {text: printable(template.exposedUriTemplate)}, {text: compact ? '' : `  ${printable(template.name)}`, tone: dim}]),
	];
	const counts = `${details.prompts.length} prompts, ${details.resources.length} resources, ${details.resourceTemplates.length} templates`;
	const sections: Section[] = [
		{title: 'HISTORY (last 5 minutes)', rows: details.history === undefined ? [] : historyRows(details, width), empty: '  no history'},
		{
			title: `TOOLS (${details.tools.length}, most called first${details.filteredTools.length > 0 ? `; ${details.filteredTools.length} filtered out by its config entry` : ''})`,
			rows: tools,
			empty: details.server.toolsSource === 'none' ? '  not listed yet: it has not run since it was configured' : '  no tools',
		},
		{title: 'STATE HISTORY (newest first)', rows: transitions, empty: '  no transitions yet'},
		{title: 'RECENT CALLS (newest first)', rows: calls, empty: '  no calls yet'},
		{title: 'STDERR (live tail)', rows: stderr, empty: '  nothing on stderr', keepLast: true},
	];
	// Only for upstreams that have any (most serve tools alone), and only in the rows the other
	// sections leave: what an upstream is doing comes before what it offers.
	return {sections, extra: catalog.length > 0 ? {title: `PROMPTS AND RESOURCES (${counts})`, rows: catalog, empty: ''} : undefined};
}

/** A section's rows wrapped to `width`, in the order they are shown (a keepLast section oldest first). */
function physicalLines(section: Section, width: number): Line[] {
	const rows = section.keepLast === true ? [...section.rows].reverse() : section.rows;
	return rows.flatMap(row => wrapSegments(row, width));
}

/**
 * A section in `rows` rows (its title included), scrolled `scroll` lines
 * away from its most interesting end (the top; the bottom for a keepLast
 * section). Cut, the title says which lines it shows; a focused section's
 * title is marked.
 */
export function sectionLines(section: Section, rows: number, width = Number.POSITIVE_INFINITY, scroll = 0, focused = false): Line[] {
	const title: Segment[] = [{text: `${focused ? '▸ ' : ''}${section.title}`, tone: focused ? {bold: true, color: 'cyan'} : {bold: true}}];
	if (rows <= 0) return [];
	if (section.rows.length === 0) return rows === 1 ? [title] : [title, [label(section.empty)]];
	const lines = physicalLines(section, width);
	const room = rows - 1;
	if (lines.length <= room) return [title, ...lines];
	const most = Math.max(0, lines.length - room);
	const offset = Math.min(Math.max(0, scroll), most);
	const start = section.keepLast === true ? lines.length - room - offset : offset;
	const shown = lines.slice(start, start + room);
	return [[...title, label(`  lines ${start + 1}-${start + shown.length} of ${lines.length}${focused ? ' (↑↓)' : ''}`)], ...shown];
}

/** Rows a section would use uncut (its title included). */
function sectionWant(section: Section, width: number): number {
	return 1 + Math.max(1, physicalLines(section, width).length);
}

/** Rows a section needs to show anything: its title and one row. */
const sectionMinimum = 2;

export type DetailFocus = {section: number; expanded: boolean; scroll: number};

export type DetailLayout = {
	lines: Line[];
	/** Sections there are (Tab cycles through them). */
	sections: number;
	/** How far the focused section can scroll in this layout. */
	maxScroll: number;
};

/**
 * The whole detail view in `height` rows: the summary, then the sections
 * sharing what is left. Every section shown gets its title and at least one
 * row; when not all fit, the last ones give way to a line saying which, so
 * a short terminal never shows a section's title over nothing. The focused
 * section is always shown; expanded, it takes every row under the summary's
 * first line.
 */
export function detailLayout(details: UpstreamDetails, now: number, width: number, height: number, focus: DetailFocus = {section: 0, expanded: false, scroll: 0}): DetailLayout {
	const {sections: main, extra} = detailSections(details, width);
	const all = extra === undefined ? main : [...main, extra];
	const focused = Math.min(Math.max(0, focus.section), all.length - 1);
	const summary = summaryLines(details, now, width).flatMap(line => wrapSegments(line, width, 2));
	if (focus.expanded) {
		const top = summary.slice(0, Math.min(1, height));
		const rows = Math.max(0, height - top.length);
		const section = all[focused]!;
		const lines = sectionLines(section, rows, width, focus.scroll, true);
		return {lines: [...top, ...lines], sections: all.length, maxScroll: Math.max(0, physicalLines(section, width).length - (rows - 1))};
	}

	const head = summary.slice(0, height);
	const left = height - head.length;
	// The focused section is always shown: sections before it give way first when it would not fit.
	const order = all.map((_, index) => index);
	let shown = all.length;
	if (left < all.length * sectionMinimum) shown = Math.max(0, Math.min(all.length, Math.floor((left - 1) / sectionMinimum)));
	let visible = order.slice(0, shown);
	if (shown > 0 && !visible.includes(focused)) visible = [...visible.slice(0, shown - 1), focused];
	const hidden = order.filter(index => !visible.includes(index));
	const budget = shareRows(
		visible.map(index => sectionWant(all[index]!, width)),
		left - (hidden.length > 0 ? 1 : 0),
	);
	const lines: Line[] = [...head];
	let maxScroll = 0;
	visible.forEach((index, position) => {
		const rows = budget[position] ?? 0;
		const isFocused = index === focused;
		lines.push(...sectionLines(all[index]!, rows, width, isFocused ? focus.scroll : 0, isFocused));
		if (isFocused) maxScroll = Math.max(0, physicalLines(all[index]!, width).length - (rows - 1));
	});
	if (hidden.length > 0 && left > 0) {
		const names = hidden.map(index => all[index]!.title.replace(/ \(.*$/, '')).join(', ');
		// What to do first: the names are what a narrow terminal cuts.
		lines.push([label(`… ${hidden.length} more section${hidden.length === 1 ? '' : 's'}: Tab or enlarge (${names})`)]);
	}

	return {lines, sections: all.length, maxScroll};
}

/** The detail view's lines (see `detailLayout`). */
export function detailLines(details: UpstreamDetails, now: number, width: number, height: number, focus?: DetailFocus): Line[] {
	return detailLayout(details, now, width, height, focus).lines;
}
