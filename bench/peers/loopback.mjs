/**
 * Preloaded (`node --import`) into mcp-hub and supergateway, which have no
 * option for the address they listen on and would listen on every
 * interface: a listen given only a port listens on 127.0.0.1. It runs once at
 * start-up and is not on any call's path.
 */
import net from 'node:net';

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
	if (typeof args[0] === 'number' && typeof args[1] !== 'string') args.splice(1, 0, '127.0.0.1');
	else if (typeof args[0] === 'object' && args[0] !== null && args[0].port !== undefined && args[0].host === undefined) args[0] = {...args[0], host: '127.0.0.1'};
	return listen.apply(this, args);
};
