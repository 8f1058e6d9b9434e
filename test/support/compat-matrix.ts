/**
 * The compatibility matrix as measured (test/e2e/compat-matrix.test.ts writes
 * test/compat-matrix.json) and its rendering as the README's table, which
 * test/drift/compat-matrix.test.ts keeps equal to the file.
 */
import {spawn, type ChildProcess} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export const clientKinds = ['modern', 'legacy', 'dual'] as const;
export const upstreamKinds = ['modern', 'legacy', 'dual'] as const;
/** How a client reaches hangar: `mcp-hangar --stdio` or `serve --http`. */
export const transports = ['stdio', 'http'] as const;
/** How hangar reaches an upstream: a subprocess over stdio, or a remote Streamable HTTP server (`url`). */
export const upstreamTransports = ['stdio', 'http'] as const;
export const features = ['call', 'lists', 'listChanged', 'resourceUpdates', 'sampling', 'elicitation', 'tasks', 'logging', 'progress'] as const;

export type ClientKind = (typeof clientKinds)[number];
export type UpstreamKind = (typeof upstreamKinds)[number];
export type Transport = (typeof transports)[number];
export type UpstreamTransport = (typeof upstreamTransports)[number];
export type Feature = (typeof features)[number];

/**
 * What one feature did in one cell: `works` (same generation on both legs),
 * `translated` (hangar carried it from one generation to the other),
 * `refused` (an error reached the client, `reason` says which) or `missing`
 * (nothing reached the client, `reason` says what was waited for); `why`
 * is the test's account of the cause.
 */
export type Outcome = {outcome: 'works' | 'translated' | 'refused' | 'missing'; reason?: string; why?: string};

export type Cell = {client: ClientKind; upstream: UpstreamKind; upstreamTransport: UpstreamTransport; transport: Transport; clientEra: string; upstreamEra: string; features: Record<Feature, Outcome>};

export type Matrix = {measuredWith: string; cells: Cell[]};

export const matrixFile = path.resolve(import.meta.dirname, '..', 'compat-matrix.json');
export const readmeStart = '<!-- compat-matrix: generated from test/compat-matrix.json by test/e2e/compat-matrix.test.ts -->';
export const readmeEnd = '<!-- /compat-matrix -->';

const clientNames: Record<ClientKind, string> = {modern: 'v2, pinned to 2026-07-28', legacy: 'v1 (2025-11-25)', dual: 'v2, auto'};
const upstreamNames: Record<UpstreamKind, string> = {modern: '2026-07-28 only (v2)', legacy: '2025 (v1)', dual: 'dual-era (v2)'};
const upstreamTransportNames: Record<UpstreamTransport, string> = {stdio: 'stdio', http: 'HTTP (remote)'};
const featureNames: Record<Feature, string> = {
	call: 'call',
	lists: 'lists',
	listChanged: 'list changes',
	resourceUpdates: 'resource subscription',
	sampling: 'sampling',
	elicitation: 'elicitation',
	tasks: 'tasks',
	logging: 'logging',
	progress: 'progress',
};

function mark(outcome: Outcome): string {
	switch (outcome.outcome) {
		case 'works':
			return 'yes';
		case 'translated':
			return 'translated';
		case 'refused':
			return 'refused¹';
		case 'missing':
			return 'no²';
	}
}

/**
 * The README's table: one row per client × upstream × upstream transport, both
 * of hangar's endpoints in one row when they agree, then why for each gap.
 */
export function renderMatrix(matrix: Matrix): string {
	const rows: string[] = [];
	const notes = new Map<string, {feature: Feature; outcome: Outcome; pairs: string[]}>();
	for (const client of clientKinds) {
		for (const upstream of upstreamKinds) {
			for (const upstreamTransport of upstreamTransports) {
				const cells = transports.map(
					transport => matrix.cells.find(cell => cell.client === client && cell.upstream === upstream && cell.upstreamTransport === upstreamTransport && cell.transport === transport)!,
				);
				const same = cells.every(cell => JSON.stringify({...cell, transport: ''}) === JSON.stringify({...cells[0]!, transport: ''}));
				for (const cell of same ? [cells[0]!] : cells) {
					const transport = same ? 'stdio, HTTP' : cell.transport === 'stdio' ? 'stdio' : 'HTTP';
					const pair = `${clientNames[client]} → ${upstreamNames[upstream]} over ${upstreamTransportNames[upstreamTransport]}${same ? '' : ` (hangar ${transport})`}`;
					const marks = features.map(feature => {
						const outcome = cell.features[feature];
						if (outcome.why !== undefined) {
							const key = `${feature} ${outcome.outcome} ${outcome.why}`;
							const note = notes.get(key) ?? {feature, outcome, pairs: []};
							note.pairs.push(pair);
							notes.set(key, note);
						}

						return mark(outcome);
					});
					rows.push(`| ${clientNames[client]} | ${upstreamNames[upstream]} | ${upstreamTransportNames[upstreamTransport]} | ${transport} | ${cell.clientEra} → ${cell.upstreamEra} | ${marks.join(' | ')} |`);
				}
			}
		}
	}

	return [
		`| Client (SDK) | Upstream (SDK) | upstream transport | hangar endpoint | spoken (client → upstream) | ${features.map(feature => featureNames[feature]).join(' | ')} |`,
		`| --- | --- | --- | --- | --- | ${features.map(() => '---').join(' | ')} |`,
		...rows,
		'',
		`Measured with ${matrix.measuredWith}. ¹ an error reached the client; ² nothing reached the client. Why:`,
		'',
		...[...notes.values()].map(({feature, outcome, pairs}) => `- ${featureNames[feature]}, ${mark(outcome)} (${pairs.join('; ')}): ${outcome.why}.`),
	].join('\n');
}

export function readMatrix(): Matrix {
	return JSON.parse(fs.readFileSync(matrixFile, 'utf8')) as Matrix;
}

/** The README's generated section, between its markers. */
export function readmeSection(readme: string): string | undefined {
	const start = readme.indexOf(readmeStart);
	const end = readme.indexOf(readmeEnd);
	if (start === -1 || end < start) return undefined;
	return readme.slice(start + readmeStart.length, end).trim();
}

export function withReadmeSection(readme: string, table: string): string {
	const start = readme.indexOf(readmeStart);
	const end = readme.indexOf(readmeEnd);
	return `${readme.slice(0, start + readmeStart.length)}\n\n${table}\n\n${readme.slice(end)}`;
}

/** test/fixtures/matrix-upstream.mjs: an SDK upstream of one generation (`--era legacy|modern|dual`), over stdio or (`--http`) on loopback. */
export const matrixUpstreamScript = path.join(import.meta.dirname, '..', 'fixtures', 'matrix-upstream.mjs');

/** The matrix upstream of `era` as a remote Streamable HTTP server on loopback, named `name`, its process added to `children`; resolves with its URL. */
export async function startMatrixUpstreamOverHttp(era: string, name: string, children: ChildProcess[]): Promise<string> {
	const child = spawn(process.execPath, [matrixUpstreamScript, '--era', era, '--http', '--name', name], {stdio: ['pipe', 'pipe', 'inherit']});
	children.push(child);
	let output = '';
	for await (const chunk of child.stdout!) {
		output += String(chunk);
		const url = /listening (\S+)/.exec(output)?.[1];
		if (url !== undefined) return url;
	}

	throw new Error(`the ${era} HTTP upstream ended before it listened: ${output}`);
}
