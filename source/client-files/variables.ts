/**
 * Each client's variable syntax, rewritten into hangar's `${VAR}` (see the
 * README's Variables section). VS Code and Cursor write `${env:VAR}`,
 * `${workspaceFolder}`, `${userHome}` and VS Code `${input:id}` (a value it
 * prompts for, which hangar cannot do: it becomes `${ID}` from hangar's
 * environment, with a note). Gemini CLI expands `$VAR` too. Clients without
 * variables pass `${…}` through literally, which hangar would expand: that
 * gets a note.
 */
import path from 'node:path';
import type {Dialect, Draft} from './server-entry.js';

/** The environment variable that stands for VS Code input `id`. */
export function inputVariable(id: string): string {
	const name = id.toUpperCase().replaceAll(/[^A-Z0-9_]+/g, '_').replace(/^_+|_+$/g, '');
	return /^[A-Z_]/.test(name) ? name : `INPUT_${name}`;
}

/** VS Code's and Cursor's predefined variables. */
export function editorVariables(text: string, draft: Draft): string {
	const {projectDir} = draft.context.group;
	return text.replaceAll(/\$\{([A-Za-z]+)(?::([^}]*))?\}/g, (whole, name: string, argument: string | undefined) => {
		if (name === 'env' && argument !== undefined && /^[A-Za-z_][A-Za-z0-9_]*$/.test(argument)) return `\${${argument}}`;
		if (name === 'input' && argument !== undefined) {
			const variable = inputVariable(argument);
			draft.notes.push(`\${input:${argument}} → \${${variable}}: hangar cannot prompt; set ${variable} in the environment hangar runs in`);
			return `\${${variable}}`;
		}

		if (argument === undefined) {
			if (name === 'userHome') return draft.context.home;
			if (name === 'pathSeparator') return path.sep;
			if ((name === 'workspaceFolder' || name === 'workspaceRoot') && projectDir !== undefined) return projectDir;
			if (name === 'workspaceFolderBasename' && projectDir !== undefined) return path.basename(projectDir);
		}

		draft.notes.push(`${whole}: hangar has no such variable; write a value or \${VAR} in its place`);
		return whole;
	});
}

/** Gemini CLI: `$VAR` and `${VAR}` from the environment. */
export function shellVariables(text: string): string {
	return text.replaceAll(/\$([A-Za-z_][A-Za-z0-9_]*)/g, '${$1}');
}

/** Clients that write strings literally: a `${…}` there was meant as text, but hangar will expand it. */
export function literalVariables(text: string, draft: Draft): string {
	const env = text.replaceAll(/\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g, '${$1}');
	for (const match of env.matchAll(/\$\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\}/g)) {
		// A reference a key rule wrote itself (Codex's bearer_token_env_var) has its own note: the client never wrote it.
		if (draft.notes.some(note => note.includes(match[0]))) continue;
		draft.notes.push(`${match[0]} is expanded by hangar from its environment (${draft.context.client} passed it as written)`);
	}

	return env;
}

export const editorDialect: Pick<Dialect, 'variables'> = {variables: editorVariables};
