import {describe, expect, it} from 'vitest';
import {vscode} from '../../../source/client-files/clients/vscode.js';
import {entryProblem} from '../../../source/client-files/hangar-config-file.js';
import {convertServer, parseDotenv} from '../../../source/client-files/server-entry.js';

describe('envFile', () => {
	it('reads dotenv files', () => {
		expect(parseDotenv('# c\nA=1\nexport B="two words"\nC=\'lit\\n\'\nD=x # note\nnot a line\n')).toEqual({A: '1', B: 'two words', C: 'lit\\n', D: 'x'});
	});
});

describe('an envFile with a variable in its path', () => {
	const convert = (envFile: string) =>
		convertServer('gh', {type: 'stdio', command: 'npx', args: ['-y', 'x'], envFile}, vscode.dialect, {
			client: 'vscode',
			file: '/home/me/pasted/vs.json',
			group: {path: ['servers'], projectDir: undefined, servers: {}},
			home: '/home/me',
			platform: 'linux',
		});

	it('one hangar cannot expand (${workspaceFolder} outside a project) is named once, not also said to be kept', () => {
		const server = convert('${workspaceFolder}/.env');
		expect(server.notes).toEqual(['${workspaceFolder}: hangar has no such variable; write a value or ${VAR} in its place']);
		expect(server.notes.join('\n')).not.toContain('kept');
		// Import then refuses the entry, naming the variable (hangar-config-file.ts's entryProblem).
		expect(entryProblem(server.entry)).toContain('"${workspaceFolder}" is VS Code\'s own variable');
	});

	it('one hangar expands is kept as written, not resolved against the client\'s file or read now', () => {
		const server = convert('${env:HOME}/.env');
		expect(server.entry?.envFile).toBe('${HOME}/.env');
		expect(server.notes).toEqual(['envFile "${HOME}/.env" kept as written: hangar expands its variables, then reads the file, when it loads the config']);
	});
});
