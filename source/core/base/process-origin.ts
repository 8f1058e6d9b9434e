/**
 * Who started this hangar process, when it is the daemon a client's
 * `--stdio` bridge started (see endpoints/daemon.ts): such a supervisor has
 * that client's environment, not the person's shell's, which is what an
 * unset `${VAR}` in the config has to explain. Read once at load and removed
 * from the environment, so the upstreams it starts do not inherit it.
 */
import process from 'node:process';

export const startedByVariable = 'MCP_HANGAR_STARTED_BY';

function take(): string | undefined {
	const value = process.env[startedByVariable];
	delete process.env[startedByVariable];
	return value === '' ? undefined : value;
}

export const startedBy: string | undefined = take();
