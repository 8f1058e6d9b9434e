/**
 * In-process supervisor for lifecycle tests: the real engine with real child
 * processes, observed through its typed transition events.
 */
import path from 'node:path';
import {parseConfig} from '../../source/core/config/read-config.js';
import {silentLogger} from '../../source/core/base/logger.js';
import {StateStore} from '../../source/core/engine/state-store.js';
import {Supervisor} from '../../source/core/engine/supervisor.js';
import type {TransitionEvent} from '../../source/core/engine/upstream/upstream.js';
import {fastHangar, tempDir, waitFor, type ServerEntry} from './hangar.js';

export type TestSupervisor = {
	supervisor: Supervisor;
	dir: string;
	transitions: TransitionEvent[];
	/** Transitions of one upstream as "from->to" strings. */
	path: (name: string) => string[];
	waitForState: (name: string, state: string, timeoutMs?: number) => Promise<void>;
	close: () => Promise<void>;
};

const open: Supervisor[] = [];

export async function startSupervisor(
	servers: Record<string, ServerEntry>,
	hangar: Record<string, unknown> = {},
	options: {dir?: string; launch?: boolean} = {},
): Promise<TestSupervisor> {
	const dir = options.dir ?? tempDir();
	const config = parseConfig(
		{hangar: {...fastHangar, stateDir: path.join(dir, 'state'), ...hangar}, mcpServers: servers},
		path.join(dir, 'mcp-hangar.json'),
	);
	const store = await StateStore.open(config.hangar.stateDir, silentLogger, 10);
	const supervisor = new Supervisor(config, store, silentLogger);
	const transitions: TransitionEvent[] = [];
	supervisor.on('transition', event => transitions.push(event));
	if (options.launch !== false) void supervisor.launch();
	open.push(supervisor);
	return {
		supervisor,
		dir,
		transitions,
		path: name => transitions.filter(event => event.upstream === name).map(event => `${event.from}->${event.to}`),
		waitForState: async (name, state, timeoutMs) => {
			await waitFor(() => supervisor.upstream(name).state === state, `${name} to be ${state} (now ${supervisor.upstream(name).state})`, timeoutMs);
		},
		close: async () => supervisor.shutdown('test finished'),
	};
}

/** Shuts down every supervisor a test started (call from afterEach). */
export async function closeAll(): Promise<void> {
	await Promise.all(open.splice(0).map(async supervisor => supervisor.shutdown('test finished')));
}
