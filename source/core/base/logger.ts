/**
 * Hangar's own log. It never writes to stdout (that belongs to the MCP
 * protocol in `--stdio` mode and to Ink in the TUI): lines go to stderr or to
 * a file, one line each, `time level [scope] message key=value...`.
 */
import fs from 'node:fs';
import path from 'node:path';

export const logLevels = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof logLevels)[number];

export type LogSink = (line: string) => void;

export class Logger {
	private readonly threshold: number;

	constructor(
		private readonly sink: LogSink,
		level: LogLevel = 'info',
		private readonly scope = 'hangar',
	) {
		this.threshold = logLevels.indexOf(level);
	}

	child(scope: string): Logger {
		const child = new Logger(this.sink, logLevels[this.threshold] ?? 'info', scope);
		return child;
	}

	/** Whether a line at `level` is written (to skip building costly debug fields). */
	enabled(level: Exclude<LogLevel, 'silent'>): boolean {
		return logLevels.indexOf(level) >= this.threshold;
	}

	debug(message: string, fields?: Record<string, unknown>): void {
		this.write('debug', message, fields);
	}

	info(message: string, fields?: Record<string, unknown>): void {
		this.write('info', message, fields);
	}

	warn(message: string, fields?: Record<string, unknown>): void {
		this.write('warn', message, fields);
	}

	error(message: string, fields?: Record<string, unknown>): void {
		this.write('error', message, fields);
	}

	private write(level: LogLevel, message: string, fields?: Record<string, unknown>): void {
		if (logLevels.indexOf(level) < this.threshold) return;
		let line = `${new Date().toISOString()} ${level} [${this.scope}] ${message}`;
		if (fields !== undefined) {
			for (const [key, value] of Object.entries(fields)) {
				if (value === undefined) continue;
				line += ` ${key}=${typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value) ?? String(value)}`;
			}
		}

		this.sink(line);
	}
}

export function stderrSink(): LogSink {
	return line => {
		process.stderr.write(`${line}\n`);
	};
}

/** Appends to a file; the directory is created if needed. Synchronous so nothing is lost on exit. */
export function fileSink(file: string): LogSink {
	fs.mkdirSync(path.dirname(file), {recursive: true});
	const fd = fs.openSync(file, 'a');
	return line => {
		try {
			fs.writeSync(fd, `${line}\n`);
		} catch {
			// A full disk must not take the gateway down with it.
		}
	};
}

export const silentLogger = new Logger(() => {}, 'silent');
