/**
 * A command written for Windows, in a client file read on Linux or macOS:
 * `npx.cmd` (or `uvx.exe`, `node.exe`), and `cmd /c npx …`, which Windows
 * users write because a client there cannot start a `.cmd` shim directly.
 * People copy these files between machines and paste them from Windows
 * guides; as written they would not start here (there is no `cmd`, and no
 * `npx.cmd` on PATH). Import rewrites them to the command they run, with a
 * note, and setup compares the rewritten launch, as it is what hangar runs.
 * On Windows they are kept as written. A Windows path (`C:\\…`, `\\\\server\\…`)
 * cannot be rewritten: it is kept, with a note that it names no file here.
 */
import type {HangarEntry} from './client-model.js';

/** `npx.cmd` → `npx`: a bare program name with Windows' extension for it (a path is left alone: it names a Windows file). */
function withoutWindowsExtension(command: string): string | undefined {
	if (/[/\\]/.test(command)) return undefined;
	const match = /^(.+)\.(?:cmd|exe|bat)$/i.exec(command);
	return match === null ? undefined : match[1]!;
}

/** Rewrites a Windows launch in place for this platform; notes what changed. */
export function fromWindowsLaunch(entry: HangarEntry, notes: string[], platform: NodeJS.Platform): void {
	if (platform === 'win32' || entry.command === undefined) return;
	const written = [entry.command, ...(entry.args ?? [])].join(' ');
	const args = entry.args ?? [];
	const shell = withoutWindowsExtension(entry.command) ?? entry.command;
	// cmd /c PROGRAM ARGS (also /C, /s /c, /d /c): the program is what runs.
	const at = args.findIndex(arg => /^\/c$/i.test(arg));
	if (shell.toLowerCase() === 'cmd' && at !== -1 && at + 1 < args.length && args.slice(0, at).every(arg => /^\/[a-z]$/i.test(arg))) {
		entry.command = args[at + 1]!;
		entry.args = args.slice(at + 2);
	}

	const bare = withoutWindowsExtension(entry.command);
	if (bare !== undefined) entry.command = bare;
	if (entry.args !== undefined && entry.args.length === 0) delete entry.args;
	const now = [entry.command, ...(entry.args ?? [])].join(' ');
	if (now !== written) notes.push(`"${written}" is Windows' way to start it; written as "${now}" for ${platform}`);
}

/** `C:\\…`, `C:/…` or `\\\\server\\share…`: a path only Windows has. */
const windowsPath = /^(?:[A-Za-z]:[\\/]|\\\\[^\\])/;

/** Notes each Windows path left in the command or its arguments on another platform: the entry would not find them. */
export function noteWindowsPaths(entry: HangarEntry, notes: string[], platform: NodeJS.Platform): void {
	if (platform === 'win32' || entry.command === undefined) return;
	const found = [
		...(windowsPath.test(entry.command) ? [`"${entry.command}" (command)`] : []),
		...(entry.args ?? []).flatMap((arg, index) => (windowsPath.test(arg) ? [`"${arg}" (args[${index}])`] : [])),
	];
	if (found.length === 0) return;
	const listed = found.length === 1 ? found[0]! : `${found.slice(0, -1).join(', ')} and ${found.at(-1)!}`;
	const one = found.length === 1;
	notes.push(`${listed} ${one ? 'is a Windows path' : 'are Windows paths'}, which name${one ? 's' : ''} no file on ${platform}: write this machine's ${one ? 'path' : 'paths'} in hangar's config`);
}
