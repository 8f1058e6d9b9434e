/**
 * `mcp-hangar logs --actions [SERVER] [--json]`: the people's actions of the
 * audit trail (start, stop, restart, quarantine, approve, each step of a
 * sign-in, sign-out) and the config reloads, read from the audit file in
 * the state dir, so it works whether a supervisor runs or not (one running
 * writes a line within 100 ms).
 */
import {terminalJson, terminalOutput, terminalText} from '../core/base/terminal-text.js';
import {readAuditActions, type AuditAction} from '../core/engine/observe/audit-log.js';
import {readConfig, type VerbOptions} from './supervisor-verbs.js';

type Output = {out: (text: string) => void; err: (text: string) => void};

/** How many of the last actions are printed. */
export const actionsShown = 500;

/** One action as a line: when, the action and its upstream, the outcome, who asked, what hangar said (all escaped: an upstream's name or error is not hangar's text). */
export function actionLine(action: AuditAction): string {
	const target = action.upstream === null ? '' : ` ${action.upstream}`;
	return `${terminalText(action.time)}  ${terminalText(`${action.action}${target}`)}  ${terminalText(action.outcome)}  ${terminalText(action.via)}  ${terminalText(action.message)}\n`;
}

export function actionsVerb(options: VerbOptions & {server: string | undefined; json: boolean}, io: Output = terminalOutput): number {
	const {config} = readConfig(options);
	const dir = config.hangar.stateDir;
	const actions = readAuditActions(dir, Number.MAX_SAFE_INTEGER).filter(action => options.server === undefined || action.upstream === options.server);
	for (const action of actions.slice(-actionsShown)) io.out(options.json ? `${terminalJson(action)}\n` : actionLine(action));
	if (actions.length === 0) io.err(`No person's action or reload${options.server === undefined ? '' : ` of "${options.server}"`} in the audit file of ${dir} (hangar.auditLog writes it).\n`);
	return 0;
}
