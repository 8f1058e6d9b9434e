/**
 * The lines of the detail view, built from `UpstreamDetails` (plain data):
 * a summary (with any name clash it is part of), then the sections (tools
 * with per-tool calls and latency, state transitions with their reasons,
 * recent calls, the stderr tail, and its prompts, resources and resource
 * templates when it has any), each cut
 * to the rows it is given with a "… N more" line. In a short terminal the
 * last sections give way to one line naming them rather than show a title
 * over nothing.
 */
import type {StatusEntry, UpstreamDetails} from '../core/engine/views.js';
import {clock, count, duration, fit, latency, millis, printable, relative} from './cell-format.js';
import {shareRows} from './row-budget.js';
import {segmentsLength, type Segment} from './Segments.js';
import {breakerTone, stateTone} from './state-style.js';

export type Line = readonly Segment[];

export type Section = {
	title: string;
	/** All rows, most interesting first (the ones kept when cut). */
	rows: Line[];
	/** Rows to show when there are none. */
	empty: string;
	/** Show the kept rows oldest first (a log tail reads downwards). */
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
		[label('failures '), {text: `${s.consecutiveFailures}/${s.failures}`, tone: s.consecutiveFailures > 0 ? {color: 'red'} : {}}, label(' (consecutive/total)')],
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
	if (s.instances !== undefined) {
		lines.push([label('instances  '), {text: `${s.instances.length} (one per client session)`}]);
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

function detailSections(details: UpstreamDetails, width: number): {sections: Section[]; extra: Section | undefined} {
	const nameWidth = Math.min(32, Math.max(4, ...details.tools.map(tool => tool.name.length)));
	const compact = width < 60;
	const tools = [...details.tools]
		.map((tool, index) => ({tool, index}))
		.sort((a, b) => b.tool.calls - a.tool.calls || a.index - b.index)
		.map(({tool}): Line => [
			{text: `  ${fit(tool.name, nameWidth)}`},
			{text: `  ${fit(count(tool.calls), 6, 'right')} calls`},
			{text: compact ? '' : `  ${fit(count(tool.failures), 4, 'right')} failed`, tone: tool.failures > 0 ? {color: 'yellow'} : dim},
			{text: compact ? '' : `  ${fit(latency(tool.latencyMs), 13, 'right')}`},
			{text: tool.pinned ? '  pinned' : '', tone: dim},
			{text: compact || tool.description === null ? '' : `  ${printable(tool.description)}`, tone: dim},
		]);
	// What the server's filter keeps out, after the served tools, each with its rule.
	tools.push(
		...details.filteredTools.map((tool): Line => [
			{text: `  ${fit(tool.name, nameWidth)}`, tone: dim},
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
		{text: call.tool},
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

/**
 * A section cut to `rows` rows (its title included), with "… N more" when
 * cut: on a line of its own when there is room for it and a row, else on
 * the title line, so a cut section always shows at least one row.
 */
export function sectionLines(section: Section, rows: number): Line[] {
	const title: Line = [{text: section.title, tone: {bold: true}}];
	if (rows <= 0) return [];
	if (section.rows.length === 0) return rows === 1 ? [title] : [title, [label(section.empty)]];
	const room = rows - 1;
	if (section.rows.length <= room) return [title, ...(section.keepLast === true ? [...section.rows].reverse() : section.rows)];
	const alone = room >= 2;
	const kept = section.rows.slice(0, alone ? room - 1 : Math.max(0, room));
	const ordered = section.keepLast === true ? [...kept].reverse() : kept;
	const more = `  … ${section.rows.length - kept.length} more`;
	if (!alone) return [[...title, label(more)], ...ordered];
	return section.keepLast === true ? [title, [label(more)], ...ordered] : [title, ...ordered, [label(more)]];
}

/** Rows a section would use uncut (its title included). */
function sectionWant(section: Section): number {
	return 1 + Math.max(1, section.rows.length);
}

/** Rows a section needs to show anything: its title and one row. */
const sectionMinimum = 2;

/**
 * The whole detail view in `height` rows: the summary, then the sections
 * sharing what is left. Every section shown gets its title and at least one
 * row; when not all fit, the last ones give way to a line saying which, so
 * a short terminal never shows a section's title over nothing.
 */
export function detailLines(details: UpstreamDetails, now: number, width: number, height: number): Line[] {
	const summary = summaryLines(details, now, width).slice(0, height);
	const {sections, extra} = detailSections(details, width);
	const left = height - summary.length;
	let shown = sections.length;
	if (left < sections.length * sectionMinimum) shown = Math.max(0, Math.floor((left - 1) / sectionMinimum));
	const hidden = sections.slice(shown);
	const budget = shareRows(sections.slice(0, shown).map(sectionWant), left - (hidden.length > 0 ? 1 : 0));
	const lines: Line[] = [...summary, ...sections.slice(0, shown).flatMap((section, index) => sectionLines(section, budget[index] ?? 0))];
	if (extra !== undefined && hidden.length === 0) {
		const room = height - lines.length;
		if (room >= sectionMinimum) lines.push(...sectionLines(extra, Math.min(room, sectionWant(extra))));
		else if (room === 1) lines.push([label(`… ${extra.title.replace(/ \(.*$/, '')}: enlarge the terminal`)]);
	} else if (extra !== undefined) {
		hidden.push(extra);
	}

	if (hidden.length > 0 && left > 0) {
		const names = hidden.map(section => section.title.replace(/ \(.*$/, '')).join(', ');
		// What to do first: the names are what a narrow terminal cuts.
		lines.push([label(`… ${hidden.length} more section${hidden.length === 1 ? '' : 's'}: enlarge the terminal (${names})`)]);
	}

	return lines;
}
