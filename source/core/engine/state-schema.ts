/**
 * The shape of `state.json`, checked field by field when it is read. A field
 * that does not fit is dropped (or, for a counter, reset to 0) with a
 * reason naming its JSON path, and the rest of the record is kept: a bad
 * field costs what it held (a cached tool list is learned again), never the
 * start. Shapes are as loose as what reads them allows: a tool, resource or
 * prompt keeps the fields hangar does not read, as the upstream sent them.
 *
 * Also the shape of `quarantine.json` (see StateStore): the quarantines
 * alone, kept apart so they survive a state file that does not.
 */
import {z} from 'zod';
import type {PersistedState, PersistedUpstream} from './state-store.js';

/** Milliseconds since 1970, in the range a Date can show (1e308 once made status throw). */
const time = z.number().int().min(0).max(8.64e15);
const object = z.record(z.string(), z.unknown());

const toolShape = z.looseObject({
	name: z.string().min(1),
	title: z.string().optional(),
	description: z.string().optional(),
	inputSchema: object.optional(),
	outputSchema: object.optional(),
	annotations: object.optional(),
});
/** Checked against toolShape but kept as written: zod's output puts the keys it knows first, and a cached tool reaches clients as the upstream listed it. */
const tool = z.custom<z.infer<typeof toolShape>>(value => toolShape.safeParse(value).success, {message: 'expected a tool definition with a name'});

const catalog = z.object({
	capabilities: z.looseObject({
		resources: z.looseObject({}).optional(),
		prompts: z.looseObject({}).optional(),
		completions: object.optional(),
	}),
	verifiedAt: time,
	resources: z.array(z.looseObject({uri: z.string(), name: z.string()})),
	resourceTemplates: z.array(z.looseObject({uriTemplate: z.string(), name: z.string()})),
	prompts: z.array(
		z.looseObject({
			name: z.string(),
			title: z.string().optional(),
			description: z.string().optional(),
			arguments: z.array(z.looseObject({name: z.string(), description: z.string().optional(), required: z.boolean().optional()})).optional(),
		}),
	),
});

const counter = z.number().int().nonnegative().finite();
const counterNames = ['starts', 'crashes', 'calls', 'failures'] as const;

const lastExit = z.object({
	code: z.number().int().nullable(),
	signal: z.string().nullable(),
	at: time,
	stderrTail: z.array(z.string()),
});

const pinnedTool = z.object({hash: z.string(), description: z.string().nullable(), inputSchema: z.unknown()});

const toolChange = z.object({tool: z.string(), field: z.enum(['description', 'inputSchema']), before: z.unknown(), after: z.unknown()});

export const adminSchema = z.object({
	state: z.literal('quarantined'),
	at: time,
	reason: z.string(),
	changes: z.array(toolChange).optional(),
	seen: z.record(z.string(), pinnedTool).optional(),
});

const pins = z.object({
	approvedAt: time.optional(),
	pinnedAt: time.optional(),
	by: z.enum(['first-use', 'approval']).optional(),
	tools: z.record(z.string(), pinnedTool).optional(),
});

/** Every field of an upstream's record but the counters, which are checked one by one. */
const fields = {
	tools: z.array(tool),
	toolsVerifiedAt: time,
	catalog,
	lastExit,
	admin: adminSchema,
	pins,
	firstSeenAt: time,
	identity: z.object({
		serverInfo: z.object({name: z.string(), version: z.string()}).nullable(),
		instructions: z.string().nullable(),
	}),
	clientScoped: z.object({at: time, method: z.string(), launch: z.string().optional(), server: z.string().nullable().optional()}),
	rootsAtStart: z.object({at: time, asked: z.boolean()}),
	era: z.object({era: z.enum(['legacy', 'modern', 'dual']), at: time, protocolVersion: z.string().max(40).optional(), launch: z.string(), server: z.string().nullable(), dualChecked: z.boolean().optional()}),
} satisfies Record<Exclude<keyof PersistedUpstream, 'counters'>, z.ZodType>;

type FieldName = keyof typeof fields;

/** The fields worth keeping from a file that had to be repaired: a cut tool list or catalog would pass for a whole one. */
export const salvagedFields: ReadonlySet<FieldName> = new Set(['admin', 'pins', 'firstSeenAt', 'clientScoped', 'era']);

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A value as a reason shows it: its type, or a short JSON. */
function shown(value: unknown): string {
	if (value === undefined) return 'missing';
	const json = JSON.stringify(value) ?? String(value);
	return json.length <= 40 ? json : `${Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : typeof value} (${json.length} characters)`;
}

function firstIssue(error: z.ZodError, at: string): string {
	const issue = error.issues[0]!;
	const where = issue.path.length === 0 ? at : `${at}.${issue.path.join('.')}`;
	return `${where}: ${issue.message}`;
}

/** A quarantine record that does not fit, as one that keeps the upstream quarantined until a person approves it. */
function damagedQuarantine(raw: unknown, issue: string): QuarantineRecord {
	const reason = isRecord(raw) && typeof raw['reason'] === 'string' ? raw['reason'] : 'a quarantine whose saved record could not be read';
	const at = isRecord(raw) && time.safeParse(raw['at']).success ? (raw['at'] as number) : Date.now();
	return {state: 'quarantined', at, reason: `${reason} (its saved record was damaged: ${issue}; approve it again once you trust it)`};
}

/** Reads one upstream's record; `keep` limits which fields are kept (a repaired file). */
function readUpstream(name: string, value: unknown, problems: string[], keep?: ReadonlySet<FieldName>): PersistedUpstream | undefined {
	const at = `upstreams[${JSON.stringify(name)}]`;
	if (!isRecord(value)) {
		problems.push(`${at} is ${shown(value)}, not an object: dropped`);
		return undefined;
	}

	const upstream: PersistedUpstream = {counters: {starts: 0, crashes: 0, calls: 0, failures: 0}};
	const counters = value['counters'];
	if (isRecord(counters)) {
		for (const key of counterNames) {
			const parsed = counter.safeParse(counters[key]);
			if (parsed.success) upstream.counters[key] = parsed.data;
			else if (counters[key] !== undefined) problems.push(`${at}.counters.${key} is ${shown(counters[key])}, not a count: reset to 0`);
		}
	} else if (counters !== undefined) {
		problems.push(`${at}.counters is ${shown(counters)}, not an object: reset to 0`);
	}

	for (const key of Object.keys(fields) as FieldName[]) {
		const raw = value[key];
		if (raw === undefined) continue;
		if (keep !== undefined && !keep.has(key)) continue;
		const parsed = fields[key].safeParse(raw);
		if (parsed.success) {
			(upstream as Record<string, unknown>)[key] = parsed.data;
		} else if (key === 'admin') {
			// A damaged quarantine stays a quarantine: a person looks before it serves again.
			upstream.admin = damagedQuarantine(raw, firstIssue(parsed.error, `${at}.admin`));
			problems.push(`${firstIssue(parsed.error, `${at}.admin`)}: kept it quarantined`);
		} else {
			problems.push(`${firstIssue(parsed.error, `${at}.${key}`)}: dropped ${key}`);
		}
	}

	return upstream;
}

/**
 * A state file's content as hangar can use it, with a reason for every part
 * left out. `repaired`: the text had to be repaired to parse, so only what
 * cannot mislead when cut short is kept (see salvagedFields).
 */
export function readState(value: unknown, repaired = false): {state: PersistedState; problems: string[]} {
	const problems: string[] = [];
	const state: PersistedState = {version: 1, upstreams: {}};
	if (!isRecord(value)) {
		problems.push(`the file holds ${shown(value)}, not an object ({"version":1,"upstreams":{...}})`);
		return {state, problems};
	}

	if (value['version'] !== 1) problems.push(`"version" is ${shown(value['version'])}, not 1: read as version 1`);
	const upstreams = value['upstreams'];
	if (!isRecord(upstreams)) {
		if (upstreams !== undefined) problems.push(`"upstreams" is ${shown(upstreams)}, not an object: dropped`);
		return {state, problems};
	}

	for (const [name, record] of Object.entries(upstreams)) {
		const upstream = readUpstream(name, record, problems, repaired ? salvagedFields : undefined);
		if (upstream !== undefined) state.upstreams[name] = upstream;
	}

	return {state, problems};
}

export type QuarantineRecord = NonNullable<PersistedUpstream['admin']>;

/** `quarantine.json`: {"version":1,"upstreams":{"<name>":<admin record>}}, with a reason for what does not fit; a damaged record stays a quarantine. */
export function readQuarantines(value: unknown): {quarantines: Record<string, QuarantineRecord>; problems: string[]} {
	const problems: string[] = [];
	const quarantines: Record<string, QuarantineRecord> = {};
	const upstreams = isRecord(value) ? value['upstreams'] : undefined;
	if (!isRecord(upstreams)) {
		problems.push('it is not {"version":1,"upstreams":{...}}');
		return {quarantines, problems};
	}

	for (const [name, record] of Object.entries(upstreams)) {
		const parsed = adminSchema.safeParse(record);
		if (parsed.success) {
			quarantines[name] = parsed.data;
		} else {
			const issue = firstIssue(parsed.error, `upstreams[${JSON.stringify(name)}]`);
			quarantines[name] = damagedQuarantine(record, issue);
			problems.push(`${issue}: kept it quarantined`);
		}
	}

	return {quarantines, problems};
}
