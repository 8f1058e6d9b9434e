/**
 * Cline (the VS Code extension, also in Cursor, Windsurf and VSCodium):
 * `cline_mcp_settings.json` in the editor's globalStorage, under
 * `saoudrizwan.claude-dev/settings/`. Servers under `mcpServers`, often named
 * after their repository (`github.com/owner/repo`), with `autoApprove`,
 * `disabled`, `timeout` in seconds and `type` "streamableHttp".
 */
import {appConfigRoot, pathsOf, singleGroup, stdioEntry, type ClientFormat} from '../client-format.js';
import {timeoutRule} from '../server-entry.js';
import {literalVariables} from '../variables.js';

/** Editors Cline runs in, each with its own globalStorage. */
const editors = ['Code', 'Code - Insiders', 'VSCodium', 'Cursor', 'Windsurf'];

export const cline: ClientFormat = {
	id: 'cline',
	label: 'Cline',
	syntax: 'json',
	locations: environment =>
		editors.map(editor => ({
			client: 'cline' as const,
			scope: 'user' as const,
			file: pathsOf(environment).join(appConfigRoot(environment), editor, 'User', 'globalStorage', 'saoudrizwan.claude-dev', 'settings', 'cline_mcp_settings.json'),
		})),
	groups: (root, location) => singleGroup(root, location, ['mcpServers']),
	dialect: {keys: {timeout: timeoutRule('callTimeoutSeconds', 'seconds')}, variables: literalVariables},
	serversPath: () => ['mcpServers'],
	hangarEntry: stdioEntry,
};
