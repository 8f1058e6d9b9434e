/**
 * Newline-delimited lines of a stream, as the minimal hops read them
 * (bench/hop.js, bench/supervised-hop.js, bench/http-hop.js): utf8, split on
 * "\n", empty lines skipped. The least a stdio proxy can do to find its
 * messages, and nothing more (no size limit, no "\r").
 */
export function lines(stream, onLine) {
	let rest = '';
	stream.setEncoding('utf8');
	stream.on('data', chunk => {
		let text = rest + chunk;
		let newline = text.indexOf('\n');
		while (newline !== -1) {
			const line = text.slice(0, newline);
			if (line.length > 0) onLine(line);
			text = text.slice(newline + 1);
			newline = text.indexOf('\n');
		}

		rest = text;
	});
}
