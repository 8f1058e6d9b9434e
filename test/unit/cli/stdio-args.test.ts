import {describe, expect, it} from 'vitest';
import {lingeringServeArgs, plainStdioArgs, standaloneStdioArgs} from '../../../source/cli/stdio-args.js';

describe('the command line a client launches, recognised before the CLI loads', () => {
	it('takes --stdio with --config, -c, --state-dir, --log-level and --log-file, spaced or with =', () => {
		expect(plainStdioArgs(['--stdio'])).toEqual({});
		expect(plainStdioArgs(['--stdio', '--config', 'a.json', '--state-dir=/s', '--log-level', 'debug', '--log-file=/l'])).toEqual({config: 'a.json', stateDir: '/s', logLevel: 'debug', logFile: '/l'});
		expect(plainStdioArgs(['-c', 'a.json', '--stdio'])).toEqual({config: 'a.json'});
	});

	it('leaves every other command line to the CLI, which parses, refuses and explains', () => {
		for (const argv of [
			[],
			['--config', 'a.json'],
			['--stdio', '--standalone'],
			['--stdio', '--stdio'],
			['--stdio', '--config', 'a.json', '--config', 'b.json'],
			['--stdio', '--config'],
			['--stdio', '--config', '--standalone'],
			['--stdio', '--log-level', 'loud'],
			['--stdio', '--help'],
			['serve', '--stdio'],
			['--stdio', '--stdio=false'],
			['--stdio', '--unknown'],
		]) {
			expect(plainStdioArgs(argv), argv.join(' ')).toBeUndefined();
		}
	});

	it('takes the daemon a bridge starts, serve --linger with the same flags, and leaves any other serve to the CLI', () => {
		expect(lingeringServeArgs(['serve', '--linger', '--config', '/c.json', '--state-dir', '/s', '--log-file', '/l', '--log-level', 'debug'])).toEqual({config: '/c.json', stateDir: '/s', logFile: '/l', logLevel: 'debug'});
		expect(lingeringServeArgs(['serve', '--config=/c.json', '--linger'])).toEqual({config: '/c.json'});
		for (const argv of [
			['serve'],
			['--linger', 'serve'],
			['serve', '--linger', '--linger'],
			['serve', '--linger', '--http'],
			['serve', '--linger', '--stdio'],
			['serve', '--linger', 'extra'],
			['serve', '--linger', '--log-level', 'loud'],
			['serve', '--linger', '--config'],
			['tui', '--linger'],
			['--stdio'],
		]) {
			expect(lingeringServeArgs(argv), argv.join(' ')).toBeUndefined();
		}

		expect(plainStdioArgs(['serve', '--linger'])).toBeUndefined();
	});

	it('takes --stdio --standalone with the same flags, in any order', () => {
		expect(standaloneStdioArgs(['--standalone', '--stdio', '-c', 'a.json', '--log-level=warn'])).toEqual({config: 'a.json', logLevel: 'warn'});
		for (const argv of [['--stdio'], ['--standalone'], ['--stdio', '--standalone', '--standalone'], ['--stdio', '--standalone', '--linger'], ['serve', '--stdio', '--standalone']]) {
			expect(standaloneStdioArgs(argv), argv.join(' ')).toBeUndefined();
		}
	});
});
