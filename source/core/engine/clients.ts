/**
 * The MCP clients connected to this hangar: one record per gateway session
 * (the `--stdio` client of an embedded hangar, each connection on the local
 * socket, each HTTP session). Sessions add themselves when they open, name
 * the client once `initialize` arrives, count calls, and remove themselves
 * when they close. The TUI's header and clients view read `list()`.
 */
import {EventEmitter} from 'node:events';

export type ClientTransport = 'stdio' | 'socket' | 'http';

export type ClientView = {
	id: number;
	transport: ClientTransport;
	/** The session's label in hangar's log ("stdio", "socket#3", an HTTP session id). */
	label: string;
	/** clientInfo from initialize; null until it arrives. */
	name: string | null;
	version: string | null;
	connectedAt: number;
	calls: number;
	lastCallAt: number | null;
	/** The tool name of the last call, as the client sent it. */
	lastTool: string | null;
};

export class ClientRecord {
	name: string | null = null;
	version: string | null = null;
	calls = 0;
	lastCallAt: number | null = null;
	lastTool: string | null = null;
	readonly connectedAt = Date.now();

	constructor(
		readonly id: number,
		readonly transport: ClientTransport,
		readonly label: string,
		private readonly registry: ClientRegistry,
	) {}

	identify(name: string, version: string): void {
		this.name = name;
		this.version = version;
		this.registry.changed();
	}

	called(tool: string): void {
		this.calls += 1;
		this.lastCallAt = Date.now();
		this.lastTool = tool;
		this.registry.changed();
	}

	remove(): void {
		this.registry.remove(this);
	}

	view(): ClientView {
		return {
			id: this.id,
			transport: this.transport,
			label: this.label,
			name: this.name,
			version: this.version,
			connectedAt: this.connectedAt,
			calls: this.calls,
			lastCallAt: this.lastCallAt,
			lastTool: this.lastTool,
		};
	}
}

export class ClientRegistry extends EventEmitter<{changed: []}> {
	private readonly records = new Map<number, ClientRecord>();
	private nextId = 1;

	add(transport: ClientTransport, label: string): ClientRecord {
		const record = new ClientRecord(this.nextId++, transport, label, this);
		this.records.set(record.id, record);
		this.changed();
		return record;
	}

	remove(record: ClientRecord): void {
		if (this.records.delete(record.id)) this.changed();
	}

	get size(): number {
		return this.records.size;
	}

	/** Oldest connection first. */
	list(): ClientView[] {
		return [...this.records.values()].map(record => record.view());
	}

	/** @internal Records call this when they change. */
	changed(): void {
		this.emit('changed');
	}
}
