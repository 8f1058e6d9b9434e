/**
 * Claude Code: user-scope servers in ~/.claude.json (`mcpServers` at the top
 * level), local-scope ones in the same file under `projects.<dir>.mcpServers`
 * (they run in that project), and project-scope ones in `.mcp.json` at a
 * project's root. Entries carry `type` ("stdio", "http", "sse") and use
 * `${VAR}` / `${VAR:-default}` exactly as hangar does. ~/.claude.json holds
 * much else (history, settings), which setup leaves untouched.
 */
import {nearMissNotes, objectAt, pathsOf, projectDirOf, type ClientFormat} from '../client-format.js';
import type {ServerGroup} from '../client-model.js';
import {oauthRule} from '../server-entry.js';

export const claudeCode: ClientFormat = {
	id: 'claude-code',
	label: 'Claude Code',
	syntax: 'json',
	locations: environment => {
		const paths = pathsOf(environment);
		return [
			{client: 'claude-code', scope: 'user', file: paths.join(environment.home, '.claude.json')},
			{client: 'claude-code', scope: 'project', file: paths.join(environment.cwd, '.mcp.json')},
		];
	},
	groups: (root, location) => {
		const groups: ServerGroup[] = [];
		const top = objectAt(root, ['mcpServers']);
		if (top !== undefined) groups.push({path: ['mcpServers'], projectDir: location.scope === 'project' ? projectDirOf(location) : undefined, servers: top});
		if (location.scope === 'user') {
			for (const [dir, project] of Object.entries(objectAt(root, ['projects']) ?? {})) {
				const servers = objectAt(project, ['mcpServers']);
				if (servers !== undefined && Object.keys(servers).length > 0) groups.push({path: ['projects', dir, 'mcpServers'], projectDir: dir, servers});
			}
		}

		return {groups, notes: top === undefined ? nearMissNotes(root, ['mcpServers']) : []};
	},
	dialect: {keys: {oauth: oauthRule}},
	serversPath: () => ['mcpServers'],
	hangarEntry: launch => ({type: 'stdio', command: launch.command, args: launch.args, env: {}}),
};
