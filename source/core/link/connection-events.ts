/**
 * What an upstream's connection tells the engine as it happens: its close,
 * its list changes, resource updates, task status and progress, roots asked
 * at start, and a sign-in it needs (`UpstreamConnection.open`'s events).
 */
import type {Progress} from './connection.js';
import type {ExitInfo} from './child-process-transport.js';

export type ConnectionEvents = {
	onClose: (exit: ExitInfo | undefined) => void;
	/** The upstream said its tools changed; `meta`: the notification's `_meta`, passed on to clients. */
	onToolsChanged: (meta?: Record<string, unknown>) => void;
	/** The upstream said its resources (and templates) or its prompts changed; `meta` as for tools. */
	onListChanged?: (kind: 'resources' | 'prompts', meta?: Record<string, unknown>) => void;
	/** A resource the upstream was asked to watch (resources/subscribe) changed; `meta`: the notification's `_meta`, passed on to clients. */
	onResourceUpdated?: (uri: string, meta: Record<string, unknown> | undefined) => void;
	/** It sent its first roots/list outside any call: on its own, as after initialized (when told roots). */
	onRootsAtStart?: () => void;
	/** The upstream's `notifications/tasks/status` params: one of its tasks changed status (2025-11-25 tasks). */
	onTaskStatus?: (params: Record<string, unknown>) => void;
	/** Progress the upstream sent for one of its tasks (its own id) after answering the task's tools/call with a CreateTaskResult: the progress token stays valid for the task's life. */
	onTaskProgress?: (upstreamTaskId: string, progress: Progress) => void;
	/** Hangar's id for one of the upstream's task ids, for the `related-task` `_meta` of a request it sends a client; undefined: not a task hangar handed out. */
	exposedTaskId?: (upstreamTaskId: string) => string | undefined;
	/** A remote upstream needs a person to sign in (OAuth): no sign-in, or its tokens stopped working (oauth-bearer.ts). */
	onSignInNeeded?: (reason: string) => void;
};
