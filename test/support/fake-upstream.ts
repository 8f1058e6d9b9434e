/**
 * A fake upstream for unit tests: an SDK `Server` on the far side of the
 * SDK's in-memory transport, opened through the engine's connection factory
 * (`UpstreamConnection.over`). No process, no sockets: a start, a call and a
 * crash take microseconds, and the test decides when each happens.
 */
import {InMemoryTransport} from '@modelcontextprotocol/sdk/inMemory.js';
import {Server} from '@modelcontextprotocol/sdk/server/index.js';
import {CallToolRequestSchema, ListPromptsRequestSchema, ListToolsRequestSchema, type CallToolResult} from '@modelcontextprotocol/sdk/types.js';
import {UpstreamConnection, type OpenConnection} from '../../source/core/link/connection.js';

export type FakeTool = (args: Record<string, unknown>) => CallToolResult | Promise<CallToolResult>;

/**
 * What the next starts do at `tools/list`, the second half of a start: answer, hang, or close the connection (a crash
 * during start); `hang-prompts`: it serves prompts too, and answers tools/list but never `prompts/list` (until `release`).
 */
export type StartBehaviour = 'answer' | 'hang' | 'crash' | 'hang-prompts';

export class FakeUpstream {
	/** Connections opened so far: one per start. */
	starts = 0;
	startBehaviour: StartBehaviour = 'answer';
	readonly tools = new Map<string, FakeTool>([['echo', args => ({content: [{type: 'text', text: String(args['text'] ?? '')}]})]]);
	/** The open connection's server side. */
	private serverSide: InMemoryTransport | undefined;
	private held: Array<() => void> = [];

	/** The connection factory to give the `Upstream` (its `openConnection` seam). */
	readonly open: OpenConnection = UpstreamConnection.over(() => this.connect());

	/** A tool that never answers, unless `release` is called. */
	hangingTool(name: string): void {
		this.tools.set(name, async () => new Promise<CallToolResult>(resolve => this.held.push(() => resolve({content: [{type: 'text', text: 'late'}]}))));
	}

	/** Lets every held start (`hang`) and hanging call answer. */
	release(): void {
		for (const go of this.held.splice(0)) go();
	}

	/** The upstream goes away: its side of the connection closes, as a process exit would. */
	async crash(): Promise<void> {
		await this.serverSide?.close();
	}

	private connect(): InMemoryTransport {
		this.starts += 1;
		const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
		this.serverSide = serverSide;
		const behaviour = this.startBehaviour;
		const server = new Server({name: 'fake', version: '1.0.0'}, {capabilities: {tools: {listChanged: true}, ...(behaviour === 'hang-prompts' ? {prompts: {}} : {})}});
		if (behaviour === 'hang-prompts') {
			server.setRequestHandler(ListPromptsRequestSchema, async () => {
				await new Promise<void>(resolve => this.held.push(resolve));
				return {prompts: []};
			});
		}

		server.setRequestHandler(ListToolsRequestSchema, async () => {
			if (behaviour === 'crash') {
				void serverSide.close();
				return new Promise(() => {});
			}

			if (behaviour === 'hang') await new Promise<void>(resolve => this.held.push(resolve));
			return {tools: [...this.tools.keys()].map(name => ({name, inputSchema: {type: 'object' as const}}))};
		});
		server.setRequestHandler(CallToolRequestSchema, async request => {
			const tool = this.tools.get(request.params.name);
			if (tool === undefined) return {content: [{type: 'text', text: `no tool ${request.params.name}`}], isError: true};
			return tool(request.params.arguments ?? {});
		});
		void server.connect(serverSide);
		return clientSide;
	}
}
