/**
 * VS Code: a workspace's `.vscode/mcp.json`, the user profile's `mcp.json`,
 * and (older setups) the `mcp` object of the user's settings.json. Servers
 * are under `servers`, not `mcpServers`; `inputs` declares values VS Code
 * prompts for, referenced as `${input:id}`. Hangar cannot prompt, so each
 * becomes an environment variable (see inputVariable), with a note. The files
 * are JSON with comments.
 */
import {appConfigRoot, objectAt, pathsOf, projectDirOf, type ClientFormat, type HangarLaunch} from '../client-format.js';
import type {ClientLocation} from '../client-model.js';
import {ignoredRule} from '../server-entry.js';
import {editorVariables, inputVariable} from '../variables.js';

const isSettings = (location: ClientLocation) => location.file.endsWith('settings.json');

function inputNotes(inputs: unknown): string[] {
	if (!Array.isArray(inputs)) return [];
	return inputs.flatMap(input => {
		if (typeof input !== 'object' || input === null || typeof (input as {id?: unknown}).id !== 'string') return [];
		const {id, description, password} = input as {id: string; description?: unknown; password?: unknown};
		const what = typeof description === 'string' ? ` (${description}${password === true ? ', a secret' : ''})` : '';
		return [`VS Code prompts for input "${id}"${what}; hangar reads it from the environment variable ${inputVariable(id)}: set it where hangar runs (e.g. in the env of the client's hangar entry)`];
	});
}

export const vscode: ClientFormat = {
	id: 'vscode',
	label: 'VS Code',
	syntax: 'jsonc',
	locations: environment => {
		const paths = pathsOf(environment);
		const user = paths.join(appConfigRoot(environment), 'Code', 'User');
		return [
			{client: 'vscode', scope: 'user', file: paths.join(user, 'mcp.json')},
			{client: 'vscode', scope: 'user', file: paths.join(user, 'settings.json')},
			{client: 'vscode', scope: 'project', file: paths.join(environment.cwd, '.vscode', 'mcp.json')},
		];
	},
	groups: (root, location) => {
		const base = isSettings(location) ? ['mcp'] : [];
		const servers = objectAt(root, [...base, 'servers']);
		const notes = inputNotes(objectAt(root, base)?.['inputs']);
		if (servers === undefined) return {groups: [], notes};
		return {groups: [{path: [...base, 'servers'], projectDir: location.scope === 'project' ? projectDirOf(location) : undefined, servers}], notes};
	},
	dialect: {
		keys: {dev: ignoredRule('hangar does not watch or debug a server'), gallery: ignoredRule('a VS Code gallery reference'), version: ignoredRule('a VS Code gallery version')},
		variables: editorVariables,
	},
	userFilesTogether: true,
	serversPath: location => (isSettings(location) ? ['mcp', 'servers'] : ['servers']),
	hangarEntry: (launch: HangarLaunch) => ({type: 'stdio', command: launch.command, args: launch.args}),
};
