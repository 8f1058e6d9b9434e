/**
 * What the message area above the key hints says, as lines fitted to the
 * width: "stopping N upstreams…" while quitting (or "detaching…" when
 * attached to another process's supervisor), else an open question,
 * else the last action's outcome (a success only for a while: see
 * `HangarTui`'s `messageMs`). An error takes up to two lines and its
 * hint up to two more, so the part that says what to do is not cut off.
 */
import {printable, wrap} from './cell-format.js';
import type {Segment} from './Segments.js';
import type {Dialog, Message, UiState} from './ui-state.js';

function question(dialog: Dialog): string {
	if (dialog.kind === 'lift-quarantine') return `Lift the quarantine of "${dialog.name}" and pin ${dialog.pins}? (y/n)`;
	if (dialog.kind === 'quarantine') return `Quarantine "${dialog.name}"? It is stopped, its tools are hidden and its calls refused until a person lifts it, also after a restart of hangar. (y/n)`;
	return `${dialog.clients} client${dialog.clients === 1 ? ' is' : 's are'} attached. Quit and stop every upstream anyway? (y/n)`;
}

const messageTone: Record<Message['tone'], Segment['tone']> = {
	pending: {color: 'cyan'},
	success: {color: 'green'},
	error: {color: 'red', bold: true},
};

const messageMark: Record<Message['tone'], string> = {pending: '… ', success: '✓ ', error: '✗ '};

const lines = (text: string, width: number, maxLines: number, tone: Segment['tone']): Segment[][] =>
	wrap(text, Math.max(1, width), maxLines).map(line => [{text: line, tone}]);

export function messageLines(ui: UiState, width: number): Segment[][] {
	if (ui.quitting?.detaching === true) return lines('detaching: the supervisor, its upstreams and its clients keep running…', width, 1, {color: 'yellow', bold: true});
	if (ui.quitting !== undefined) {
		const n = ui.quitting.upstreams;
		return lines(`stopping ${n} upstream${n === 1 ? '' : 's'}…`, width, 1, {color: 'yellow', bold: true});
	}

	// A question is read whole before y: up to four lines (a 32-character name's quarantine question takes three at 80 columns).
	if (ui.dialog !== undefined) return lines(question(ui.dialog), width, 4, {color: 'yellow', bold: true});
	const {message} = ui;
	if (message === undefined) return [[{text: ' '}]];
	const text = messageMark[message.tone] + printable(message.text);
	// A URL is shown whole, so it can be copied: the authorization URL of a sign-in is a few lines long.
	if (message.url !== undefined) return [...lines(text, width, 2, messageTone[message.tone]), ...lines(printable(message.url), width, 12, {color: 'cyan'})];
	if (message.tone !== 'error') return lines(text, width, 1, messageTone[message.tone]);
	const hint = message.hint === undefined ? [] : lines(printable(message.hint), width - 2, 2, {color: 'yellow'}).map(line => [{text: '  '}, ...line]);
	return [...lines(text, width, 2, messageTone.error), ...hint];
}
