/**
 * Two lines on every screen: which config, how long hangar has run, how many
 * MCP clients are attached; then how many upstreams are in each state, and
 * where hangar's log goes. Attached to a supervisor another process owns,
 * the first line names that process, and data that is not fresh says how
 * old it is and why on the second line, ahead of the counts when the line
 * cannot hold both.
 */
import {Box} from 'ink';
import type {UpstreamState} from '../../core/engine/upstream/upstream-state.js';
import {count, cutLeft, printable, uptime} from './cell-format.js';
import {activeClientCount, mcpClientCount, type HangarSnapshot} from './hangar-source.js';
import {Segments, segmentsLength, type Segment} from './Segments.js';
import {shownState, stateTone, statesByRank} from './state-style.js';
import {useTuiState} from './tui-context.js';

function stateCounts(states: readonly UpstreamState[]): Segment[] {
	const segments: Segment[] = [];
	for (const state of statesByRank) {
		const n = states.filter(candidate => candidate === state).length;
		if (n === 0) continue;
		segments.push({text: '  '}, {text: `${n} `}, {text: state, tone: stateTone[state]});
	}

	return segments;
}

/**
 * What the definitions cost a client's context, and what the other
 * exposure would change: "~26.9k tokens to each client (search exposure:
 * -20.1k)". Estimates (see core/engine/upstream/context-cost.ts).
 */
export function contextSegments(context: HangarSnapshot['context'] | undefined): Segment[] {
	if (context === undefined) return [];
	const saving = context.direct - context.search;
	const other =
		context.exposure === 'direct'
			? saving > 0
				? `search exposure would save ~${count(saving)}`
				: ''
			: `search exposure; direct: ~${count(context.direct)}`;
	return [{text: `  ~${count(context.current)} tokens to each client`}, ...(other === '' ? [] : [{text: ` (${other})`, tone: {dim: true}}])];
}

/** `left`, then `right` pushed to the end of the line if it fits. */
function spread(left: Segment[], right: Segment[], width: number): Segment[] {
	const gap = width - segmentsLength(left) - segmentsLength(right);
	return gap >= 2 ? [...left, {text: ' '.repeat(gap)}, ...right] : left;
}

/** How long hangar has run, as the header's right end says it. */
const upFor = (snapshot: Pick<HangarSnapshot, 'now' | 'startedAt'>): string => `  up ${uptime((snapshot.now - snapshot.startedAt) / 1000)}`;

/** A path keeps at least this much of its tail before the owner may share its line: "…/.config/mcp-hangar/config.json". */
const pathKeeps = 32;

/**
 * The first line, wide: "mcp-hangar  attached to hangar pid 12 (mcp-hangar serve)  <config>  clients 1  up 5s".
 * When the owner and enough of the config's path do not both fit beside the
 * title and the client count, the owner goes to the front of the second line
 * as "attached to pid 12".
 */
export function firstLine(title: Segment, owner: string | undefined, configPath: string, right: Segment[], width: number): {first: Segment[]; ownerAbove: Segment[]} {
	const room = Math.max(10, width - segmentsLength([title]) - 2 - segmentsLength(right) - 2);
	const line = (before: Segment[], pathRoom: number): Segment[] => spread([title, {text: '  '}, ...before, {text: cutLeft(configPath, pathRoom), tone: {dim: true}}], right, width);
	if (owner === undefined) return {first: line([], room), ownerAbove: []};
	const full = `attached to ${printable(owner)}`;
	const pathNeeds = Math.min([...configPath].length, pathKeeps);
	if ([...full].length + 2 + pathNeeds <= room) return {first: line([{text: full, tone: {color: 'cyan'}}, {text: '  '}], room - [...full].length - 2), ownerAbove: []};
	const pid = /pid \d+/.exec(owner)?.[0];
	const short = `attached to ${pid ?? printable(owner)}`;
	return {first: line([], room), ownerAbove: [{text: short, tone: {color: 'cyan'}}, {text: '  '}]};
}

export function Header() {
	const {snapshot, size, layout} = useTuiState();
	const width = size.columns;
	const clients = mcpClientCount(snapshot);
	const idle = clients - activeClientCount(snapshot);
	// The uptime ticks: drawn as its own text, so the rest of the line stays the same string each second.
	const right: Segment[] = [{text: `clients ${clients}${idle > 0 ? ` (${idle} idle)` : ''}`}, {text: upFor(snapshot), ticks: true, live: upFor}];
	const title: Segment = {text: 'mcp-hangar', tone: {bold: true, color: 'cyan'}};
	const total = snapshot.entries.length;
	const counts = stateCounts(snapshot.entries.map(entry => shownState(entry).state));
	const stale: Segment[] = snapshot.stale === undefined ? [] : [{text: `  ⚠ ${snapshot.stale.seconds}s old: ${printable(snapshot.stale.why)}`, tone: {color: 'red', bold: true}}];
	// The file on disk says something else than what runs (a refused or pending reload): said before anything else on the line.
	const drift: Segment[] = snapshot.config?.drift == null ? [] : [{text: `  ⚠ ${printable(snapshot.config.drift)}`, tone: {color: 'yellow', bold: true}}];
	// A second supervisor of this config (another state dir): clients may reach it instead of this one.
	if (snapshot.config?.others != null) drift.push({text: `  ⚠ ${printable(snapshot.config.others)}`, tone: {color: 'red', bold: true}});

	if (layout === 'compact') {
		return (
			<Box flexDirection="column">
				<Segments segments={spread([title], right, width)} />
				<Segments segments={[{text: `${total} total`}, ...counts, ...stale, ...drift]} />
			</Box>
		);
	}

	// The config's name and the client count stay on the first line at any width; the owner moves to the second line when both do not fit beside it.
	const {first, ownerAbove} = firstLine(title, snapshot.owner, snapshot.configPath, right, width);
	const summary: Segment[] = [...ownerAbove, {text: `${total} upstream${total === 1 ? '' : 's'}:`}, ...counts];
	const warnings = [...stale, ...drift];
	// Warnings follow the counts when the line holds both; else they go first, so a narrow line cuts the counts, not why they are old.
	const second: Segment[] = warnings.length === 0 || segmentsLength(summary) + segmentsLength(warnings) <= width
		? [...summary, ...warnings]
		: [{...warnings[0]!, text: warnings[0]!.text.trimStart()}, ...warnings.slice(1), {text: '  '}, ...summary];
	if (snapshot.notice !== undefined) second.push({text: `  ${snapshot.notice}`, tone: {color: 'yellow'}});
	// Only when it fits whole beside the rest: the states and warnings come first.
	const cost = contextSegments(snapshot.context);
	if (segmentsLength(second) + segmentsLength(cost) <= width) second.push(...cost);
	const logRoom = width - segmentsLength(second) - 'log '.length - 2;
	const log: Segment[] = logRoom >= 12 ? [{text: 'log ', tone: {dim: true}}, {text: cutLeft(snapshot.logFile, logRoom), tone: {dim: true}}] : [];
	return (
		<Box flexDirection="column">
			<Segments segments={first} />
			<Segments segments={spread(second, log, width)} />
		</Box>
	);
}
