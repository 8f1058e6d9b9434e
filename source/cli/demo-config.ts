/**
 * The demo config the package ships (demo/config.json, beside dist/): two
 * upstreams made of the shipped fixture server, found relative to the config
 * file through ${HANGAR_CONFIG_DIR}. The help's examples name it by its
 * absolute path, so they work from any directory, installed or checked out.
 * config.example.json stays the checkout's richer example (it needs the dev
 * dependencies).
 */
import {fileURLToPath} from 'node:url';

/** Absolute path of demo/config.json (from source/cli or dist/cli alike). */
export const demoConfigPath: string = fileURLToPath(new URL('../../demo/config.json', import.meta.url));
