/**
 * What driving an upstream in the 2026-07-28 generation ("modern") takes
 * beside the SDK, which negotiates the era and adds the envelope to the
 * requests it sends itself: the envelope on the requests hangar sends raw
 * (connection.ts `sendRaw`), and results cleaned of what belongs to the
 * modern wire before they reach a 2025-era session.
 */
import {CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY, LOG_LEVEL_META_KEY, PROTOCOL_VERSION_META_KEY, type VersionNegotiationOptions} from '@modelcontextprotocol/client';
import {isPlainObject} from '../wire/message-classifier.js';
import {implementationInfo, modernProtocolVersions, supportedProtocolVersions} from '../wire/protocol.js';
import {errorMessage} from '../base/errors.js';
import type {ServerConfig} from '../config/read-config.js';
import {describeExit, type ExitInfo} from './child-process-transport.js';
import {SpawnError} from './launch-problem.js';
import type {ClientSide} from './client-side.js';
import type {LogBuffer} from './log-buffer.js';

/**
 * Which protocol generation an upstream is driven in: `legacy` (the 2025
 * `initialize` handshake and a session) or `modern` (2026-07-28: no
 * initialize, no ping, a `_meta` envelope on every request, multi-round-trip
 * input requests instead of server-to-client requests).
 */
export type UpstreamEra = 'legacy' | 'modern';

/**
 * What is saved of an upstream's era: one of the two, or `dual` (it answers
 * `server/discover` and the 2025 `initialize` too). A dual-era upstream is
 * driven in both: its 2025 mode for 2025 clients, and an era twin of it in
 * its 2026-07-28 mode for 2026-07-28 clients (engine/clients/era-twins.ts).
 */
export type SavedEra = UpstreamEra | 'dual';

/** The revision hangar speaks to a modern upstream. */
export const modernRevision = '2026-07-28';

/**
 * What hangar knew of the upstream's era before this start: a verdict saved
 * from an earlier probe (then no probe runs), or nothing (then it is probed
 * with `server/discover`, falling back to `initialize`).
 */
export type EraHint = UpstreamEra | undefined;

/** The era a connection speaks, and whether this start learned it with a probe. */
/** `tentative`: the probe could not conclude (the 2025 `initialize` timed out), so no verdict is saved and the next start probes again. */
/** `dual`: the probe found it answers both generations (this connection is its 2025 mode). */
export type ConnectionEra = {era: UpstreamEra; protocolVersion: string | undefined; probed: boolean; tentative?: boolean; dual?: boolean};

/**
 * How long a stdio upstream gets to answer the `server/discover` probe before
 * it counts as a legacy server that ignores unknown requests (the SDK then
 * sends `initialize` on the same pipe). Long enough for a cold `npx` start.
 */
export const discoverProbeMs = 10_000;

/** An upstream that answered initialize with a protocol version hangar does not speak: the SDK's bare refusal, with the versions hangar does. */
export class UnsupportedServerVersion extends Error {
	readonly check = 'A release of the server that speaks one of those versions is needed.';

	constructor(readonly version: string) {
		super(`it answered initialize with protocol version ${version}, which hangar does not speak (hangar speaks ${supportedProtocolVersions.join(', ')} through initialize, and ${modernProtocolVersions.join(', ')} per request)`);
		this.name = 'UnsupportedServerVersion';
	}
}

/** `error`, or, for the SDK's refusal of the server's negotiated version, an UnsupportedServerVersion naming what hangar speaks. */
export function withServerVersion(error: unknown): unknown {
	const refused = error instanceof Error ? /^Server's protocol version is not supported: (.*)$/.exec(error.message) : null;
	return refused === null ? error : new UnsupportedServerVersion(refused[1]!.slice(0, 100));
}

/** The `_meta` key in which a 2026-07-28 server names itself on every result. */
const serverInfoKey = 'io.modelcontextprotocol/serverInfo';

/**
 * A modern upstream's complete result without what belongs to the wire it
 * came on: `resultType` and the `serverInfo` in `_meta` (hangar's gateway
 * writes its own for a modern client; a 2025 client never sees them from a
 * 2025 server). Everything else, `_meta` included, stays as it came.
 */
export function withoutEraFields(result: Record<string, unknown>): Record<string, unknown> {
	const {resultType: _type, ...rest} = result;
	const meta = rest['_meta'];
	if (!isPlainObject(meta) || !(serverInfoKey in meta)) return rest;
	const {[serverInfoKey]: _info, ...otherMeta} = meta;
	if (Object.keys(otherMeta).length === 0) {
		const {_meta: _dropped, ...bare} = rest;
		return bare;
	}

	return {...rest, _meta: otherMeta};
}

/**
 * The SDK's negotiation for a start: a saved verdict goes straight to its
 * era (`legacy`: the plain 2025 initialize; `modern`: a server/discover that
 * must offer 2026-07-28), no verdict probes (`auto`, in place on hangar's own
 * transports: no second process).
 */
export function negotiationFor(hint: EraHint, startTimeoutMs: number): VersionNegotiationOptions {
	if (hint === 'modern') return {mode: {pin: modernRevision}};
	if (hint === 'legacy') return {mode: 'legacy'};
	return {mode: 'auto', probe: {timeoutMs: probeMs(startTimeoutMs)}};
}

/** How long a probe waits: `discoverProbeMs`, and a third of the start timeout at most, so a silent legacy server still has time for initialize and its lists. */
function probeMs(startTimeoutMs: number): number {
	return Math.max(1, Math.min(discoverProbeMs, Math.round(startTimeoutMs / 3)));
}

/**
 * The 2026-07-28 `_meta` envelope hangar's raw requests carry to a modern
 * upstream (the SDK adds the same to the ones it sends): the revision,
 * hangar as the client, the capabilities the upstream is told, and the log
 * level the clients asked for (the era has no logging/setLevel).
 */
export function modernEnvelope(clientSide: ClientSide | undefined, none: Record<string, unknown>, caller?: unknown): Record<string, unknown> {
	const level = clientSide?.logLevel;
	return {
		[PROTOCOL_VERSION_META_KEY]: modernRevision,
		[CLIENT_INFO_META_KEY]: implementationInfo,
		[CLIENT_CAPABILITIES_META_KEY]: clientSide?.capabilitiesOf?.(caller) ?? clientSide?.capabilities ?? none,
		...(level === undefined ? {} : {[LOG_LEVEL_META_KEY]: level}),
	};
}

/** What one start opens a connection with (`given`: a transport made elsewhere, as in unit tests). */
export type Opening<Events, Given> = {
	given: Given | undefined;
	config: ServerConfig;
	log: LogBuffer;
	events: Events;
	signal: AbortSignal;
	graceMs: number;
	clientSide: ClientSide | undefined;
};

/**
 * Opens the session in the era `hint` says, or probes for it, as the
 * 2026-07-28 spec's backwards-compatibility sections describe: a
 * `server/discover` request first, and the 2025 `initialize` when the
 * upstream answers it with an error, does not answer it within
 * `discoverProbeMs` (stdio), or answers HTTP 4xx. Two cases cost a second
 * attempt: a stdio upstream that exits on the unknown request (a legacy
 * server whose SDK stops on anything before initialize) is spawned again
 * and initialized; and an upstream saved as modern that no longer opens so
 * is probed again. The caller saves the verdict, so the next start goes
 * straight to the right era.
 */
export async function openInEra<Events, Given, Connection extends EraAware>(
	opening: Opening<Events, Given>,
	hint: EraHint,
	connect: Connect<Events, Given, Connection>,
): Promise<Connection> {
	const connection = await openProbing(opening, hint, connect);
	if (hint !== undefined || opening.given !== undefined || connection.era.era !== 'modern') return connection;
	return preferLegacy(opening, connection, connect);
}

/** How a connection is opened in an era (`UpstreamConnection.connect`); `attempt` tells how the process ended when it did. */
type Connect<Events, Given, Connection> = (opening: Opening<Events, Given>, hint: EraHint, attempt: {exit: ExitInfo | undefined}) => Promise<Connection>;

/** What openInEra needs of a connection besides opening it. */
type EraAware = {markProbed(tentative?: boolean, dual?: boolean): void; readonly era: {era: UpstreamEra}; close(graceMs: number): Promise<unknown>};

/**
 * A probe found a 2026-07-28 upstream: is it dual-era? Its `server/discover`
 * does not say (the v2 SDK's and the conformance reference server's list
 * only their 2026-07-28 revision), so a second connection asks with the 2025
 * `initialize`. A dual-era upstream is driven in both generations, as each
 * client would reach it directly: this connection is its 2025 mode, for
 * 2025 clients (sampling and elicitation mid-call, resources/subscribe,
 * completion, list_changed), and its era twin, opened pinned to 2026-07-28
 * when a 2026-07-28 client first asks, serves 2026-07-28 clients
 * (engine/clients/era-twins.ts): a dual-era server may expose different
 * things on its two paths. A 2026-07-28-only upstream refuses `initialize`
 * and is opened a third time, pinned. All on the first start only: the
 * verdict is saved.
 */
async function preferLegacy<Events, Given, Connection extends EraAware>(
	opening: Opening<Events, Given>,
	probed: Connection,
	connect: Connect<Events, Given, Connection>,
): Promise<Connection> {
	const {log, signal, config} = opening;
	await probed.close(opening.graceMs);
	signal.throwIfAborted();
	const limit = AbortSignal.any([signal, AbortSignal.timeout(probeMs(config.startTimeoutMs))]);
	try {
		const legacy = await connect({...opening, signal: limit}, 'legacy', {exit: undefined});
		legacy.markProbed(false, true);
		log.push('hangar', 'era probe: it answered server/discover and the 2025 initialize too (dual-era): driven in its 2025 mode for 2025 clients, and in its 2026-07-28 mode (its era twin) for 2026-07-28 clients');
		return legacy;
	} catch (error) {
		signal.throwIfAborted();
		// A wait that ran out proves nothing (a loaded machine, a slow start): only a refusal concludes 2026-07-28-only.
		const timedOut = limit.aborted;
		log.push('hangar', timedOut
			? `era probe: the 2025 initialize got no answer in ${probeMs(config.startTimeoutMs)} ms: driven as 2026-07-28 this time, not saved; its next start probes again`
			: `era probe: it refused the 2025 initialize (${errorMessage(error)}): a 2026-07-28-only server, driven as 2026-07-28`);
		const modern = await connect(opening, 'modern', {exit: undefined});
		modern.markProbed(timedOut);
		return modern;
	}
}

async function openProbing<Events, Given, Connection extends EraAware>(
	opening: Opening<Events, Given>,
	hint: EraHint,
	connect: Connect<Events, Given, Connection>,
): Promise<Connection> {
	const {log, signal, config} = opening;
	const attempt = {exit: undefined as ExitInfo | undefined};
	try {
		return await connect(opening, hint, attempt);
	} catch (error) {
		if (signal.aborted || opening.given !== undefined) throw error;
		if (hint === 'modern') {
			log.push('hangar', `it was saved as a 2026-07-28 upstream, but opening it so failed (${errorMessage(error)}): probing its era again`);
			return openProbing(opening, undefined, connect);
		}

		const exited = attempt.exit;
		// A process that never ran (command not found, not executable) did not exit on the probe: a second spawn fails the same way.
		if (hint !== undefined || config.launch.kind !== 'stdio' || exited === undefined || exited.code === 126 || exited.code === 127 || error instanceof SpawnError) throw error;
		log.push('hangar', `it exited on the server/discover probe (${describeExit(exited)}): a 2025 server; starting it again with initialize`);
		const connection = await connect(opening, 'legacy', attempt);
		connection.markProbed();
		return connection;
	}
}
