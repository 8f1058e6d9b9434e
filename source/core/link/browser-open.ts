/**
 * Opening a sign-in URL in the person's browser, where there is one: the
 * `auth` verb (in the CLI's process) and the supervisor's sign-in started
 * from the TUI (in the supervisor's process) decide the same way.
 */
import {spawn} from 'node:child_process';
import process from 'node:process';

/** Why a browser cannot be opened here (undefined: it can): a remote session or no display. $BROWSER always can. */
export function noBrowser(env: NodeJS.ProcessEnv): string | undefined {
	if (env['BROWSER'] !== undefined && env['BROWSER'] !== '') return undefined;
	if (env['SSH_CONNECTION'] !== undefined || env['SSH_TTY'] !== undefined) return 'this is a remote (ssh) session';
	if (process.platform === 'linux' && !env['DISPLAY'] && !env['WAYLAND_DISPLAY']) return 'there is no display';
	return undefined;
}

/**
 * Starts $BROWSER, else the platform's opener, detached: it outlives nothing
 * of hangar's and its failure is harmless (the URL is shown too). Only an
 * http(s) URL: an opener hands any other scheme to whichever program claims
 * it. No shell parses the URL: on Windows `cmd /c start` would run what
 * follows an `&` of its query as a command, so the URL goes to the URL
 * protocol handler through rundll32.
 */
export function openBrowser(url: string): void {
	const protocol = URL.canParse(url) ? new URL(url).protocol : '';
	if (protocol !== 'https:' && protocol !== 'http:') return;
	const browser = process.env['BROWSER'];
	const [command, args] =
		browser !== undefined && browser !== ''
			? [browser, [url]]
			: process.platform === 'darwin'
				? ['open', [url]]
				: process.platform === 'win32'
					? ['rundll32', ['url.dll,FileProtocolHandler', url]]
					: ['xdg-open', [url]];
	const child = spawn(command, args, {detached: true, stdio: 'ignore'});
	child.on('error', () => {});
	child.unref();
}
